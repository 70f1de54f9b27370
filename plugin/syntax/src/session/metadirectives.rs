//! Metadirectives whose selectors read an adaptation region's decision
//! (`when(user={adaptation(model == variant)} : ...)`), and the warning about host variants
//! that run inside a device data environment.

use super::{Outcome, Pending, PragmaContext, Session};
use crate::brackets::Brackets;
use crate::data_env::DataDirective;
use crate::diag::{Diagnostic, Diags};
use crate::directive_variant::DirectiveVariant;
use crate::kernel_scan;
use crate::lower;
use crate::piece::Piece;
use crate::selector::{self, CondPiece, ModelRef};
use crate::token::{spell_written, Tok, TokKind};
use std::collections::HashSet;

impl Session {
    pub(super) fn metadirective(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
        let Some(b) = Brackets::new(toks, diags) else {
            self.pending.push(Pending::Plain);
            return Outcome::NeedStatement;
        };
        let open = &self.open;
        // A region whose directive had errors: accept any selector on it silently.
        let names: HashSet<&str> = open.iter().filter(|r| r.variants.is_none()).map(|r| r.model.as_str()).collect();
        if toks.iter().any(|t| t.kind == TokKind::Ident && names.contains(t.text.as_str())) {
            self.pending.push(Pending::Plain);
            return Outcome::NeedStatement;
        }
        let lookup = |name: &str| -> Option<ModelRef<'_>> {
            let r = open.iter().rev().find(|r| r.model == name)?;
            Some(ModelRef { variant_expr: format!("{}.variant", lower::context_var(r.id)), variants: r.variants.as_ref()? })
        };
        match selector::parse_metadirective(toks, 1, &b, &lookup, diags) {
            Some(arms) => {
                let data = self.data.in_view(&ctx.open).into_iter().cloned().collect();
                self.pending.push(Pending::Metadirective(arms, data))
            }
            None => self.pending.push(Pending::Plain),
        }
        Outcome::NeedStatement
    }
}

/// Warns at each host variant of a metadirective (a directive that is not a target construct)
/// that runs inside a device data environment the source shows, naming the mapped variables
/// the statement uses: their host copies are stale there.
pub(super) fn stale_host_copies<'a>(
    directives: impl Iterator<Item = &'a DirectiveVariant>,
    data: &[DataDirective],
    saved: &[Vec<Tok>],
    stmt: &[Tok],
    diags: &mut Diags,
) {
    let mut names: Vec<String> = Vec::new();
    let mut sections: Vec<String> = Vec::new();
    for d in data {
        let Some(list) = saved.get(d.saved as usize) else { continue };
        for m in &d.items {
            if kernel_scan::mentions(stmt, 0..stmt.len(), &m.base) && !names.contains(&m.base) {
                names.push(m.base.clone());
                sections.push(spell_written(list, m.range.clone()));
            }
        }
    }
    let Some(first) = data.first() else { return };
    if names.is_empty() {
        return;
    }
    for directive in directives {
        let host = directive.words.first().is_some_and(|w| w != "target");
        let Some(at) = directive.pieces.first().map(|r| r.start).filter(|_| host) else { continue };
        diags.push(Diagnostic::warning(
            at,
            at + 1,
            format!(
                "this variant runs on the host inside the device data environment of '{}' at {}: the host copies of {} are stale there; add '#pragma omp target update from({})' before it and 'target update to(...)' for what it writes after it, or write the region as '#pragma omp adaptation ... variants(cpu, gpu)' before the target construct, which makes these copies itself",
                first.what,
                first.location,
                names.join(", "),
                sections.join(", ")
            ),
        ));
    }
}

/// `if (c1) { #pragma omp v1 \n stmt } else if (c2) { ... } else { [default] stmt }`
pub(super) fn metadirective_chain(arms: &[selector::Arm]) -> Vec<Piece> {
    let mut p = Vec::new();
    let mut has_default = false;
    for (i, arm) in arms.iter().enumerate() {
        match &arm.cond {
            Some(cond) => {
                p.push(Piece::Text(if i == 0 { "if (" } else { "else if (" }.into()));
                for c in cond {
                    p.push(match c {
                        CondPiece::Text(t) => Piece::Text(t.clone()),
                        CondPiece::User(r) => Piece::User(r.clone()),
                    });
                }
                p.push(Piece::Text(") {".into()));
            }
            None => {
                has_default = true;
                p.push(Piece::Text(if i == 0 { "{" } else { "else {" }.into()));
            }
        }
        if !arm.directive.pieces.is_empty() {
            p.push(Piece::OmpBegin);
            p.extend(arm.directive.pieces.iter().map(|r| Piece::User(r.clone())));
            p.push(Piece::OmpEnd);
        }
        p.push(Piece::Statement);
        p.push(Piece::Text("}".into()));
    }
    if !has_default {
        p.push(Piece::Text("else {".into()));
        p.push(Piece::Statement);
        p.push(Piece::Text("}".into()));
    }
    p
}
