//! The explicit adaptation regions: `begin adaptation` ... `end adaptation` and the single
//! `adaptation` directive before a statement, with what their clauses say and how their
//! statement is lowered (the pass form when the variants name kinds).

use super::names::guess_model_name;
use super::{OpenRegion, Outcome, Pending, PragmaContext, Session, BEGIN, END, SINGLE};
use crate::adaptation::{parse_clauses, Clauses, ADAPTATION_CLAUSES};
use crate::brackets::Brackets;
use crate::clauses::ModelKind;
use crate::data_env::DataDirective;
use crate::diag::{has_error, Diagnostic, Diags};
use crate::kinds::Kind;
use crate::lower::{self, ExprRef, RegionDesc};
use crate::piece::Piece;
use crate::token::{spell_written, Src, Tok};
use crate::variants::VariantSet;
use crate::{kernel_scan, pass_form};
use ompadapt_abi::LoopNames;

impl Session {
    /// The statement of a single `adaptation` directive: the pass form when its variants name
    /// kinds, else the region around the statement as written.
    pub(super) fn region_statement(
        &mut self,
        mut desc: RegionDesc,
        toks: &[Tok],
        data: &[DataDirective],
        stmt: &[Tok],
        auto_at: Option<usize>,
    ) -> Vec<Piece> {
        let mut diags = Vec::new();
        if desc.auto_features.is_some() {
            desc.auto_features = crate::loops::loops_of(stmt);
            if let (None, Some(at)) = (&desc.auto_features, auto_at) {
                diags.push(Diagnostic::warning(
                    at,
                    at + 1,
                    "no automatic features: the statement has no OpenMP construct whose loops and launch they describe",
                ));
            }
        }
        let mut body = vec![Piece::Statement];
        if let Some(kinds) = desc.variants().kinds().filter(|k| kinds_apply(k, stmt)) {
            let site = pass_form::Site {
                id: desc.id,
                model: desc.name(),
                variants: desc.variants(),
                kinds: &kinds,
                stmt,
                data,
                saved: &self.saved,
                offload: self.offload,
                device: self.device,
                cplusplus: self.cplusplus,
            };
            match pass_form::lower(&site, &mut diags) {
                Some(lowered) => {
                    body = lowered.body;
                    // The variants that cannot be generated have left the region.
                    if let Some(remaining) = lowered.remaining {
                        desc.set_variants(remaining);
                    }
                }
                None if has_error(&diags) => {
                    self.statement_diags = diags;
                    return vec![Piece::Statement];
                }
                None => {}
            }
        } else if desc.model_output.is_none() && kernel_scan::construct(stmt).is_some_and(|c| c.offloads()) {
            warn_host_names_before_offload(desc.variants(), &mut diags);
        }
        self.statement_diags = diags;
        let mut pieces = vec![Piece::Text("{".into())];
        pieces.extend(self.begin_pieces(&desc, toks));
        pieces.extend(body);
        pieces.push(lower::end_region_of(&desc));
        pieces.push(Piece::Text("}".into()));
        pieces
    }

    pub(super) fn require_function(&self, directive: &str, ctx: &PragmaContext, end: usize, diags: &mut Diags) -> bool {
        if ctx.block == 0 {
            diags.push(Diagnostic::error(0, end, format!("'{directive}' must appear inside a function body")));
        }
        ctx.block != 0
    }

    /// The clauses of `begin adaptation` / `adaptation`, checked; None after an error.
    pub(super) fn check_clauses(&self, toks: &[Tok], start: usize, directive: &str, ctx: &PragmaContext, diags: &mut Diags) -> Option<Clauses> {
        let b = Brackets::new(toks, diags)?;
        let c = parse_clauses(toks, start, &b, directive, &ADAPTATION_CLAUSES, diags)?;
        let mut ok = true;
        if c.model_name.is_none() {
            diags.push(Diagnostic::error(0, start, format!("'{directive}' requires a 'model_name' clause")));
            ok = false;
        }
        if c.variants.is_none() {
            diags.push(Diagnostic::error(0, start, format!("'{directive}' requires a 'variants' clause")));
            ok = false;
        }
        ok &= self.require_function(directive, ctx, start, diags);
        ok.then_some(c)
    }

    pub(super) fn open_region(&mut self, c: Option<&Clauses>, begin_end: bool, ctx: &PragmaContext, toks: &[Tok]) -> u32 {
        self.next_id += 1;
        let id = self.next_id;
        // An erroneous directive still opens its region, named as well as can be told, so that
        // its `end` and its selectors do not draw further errors.
        let model = c.and_then(|c| c.model_name.as_ref().map(|m| m.0.clone())).unwrap_or_else(|| guess_model_name(toks));
        self.open.push(OpenRegion {
            model,
            id,
            variants: c.and_then(|c| c.variants.clone()),
            begin_end,
            block: ctx.block,
            location: ctx.location.clone(),
            loc_cookie: ctx.loc_cookie,
        });
        id
    }

    pub(super) fn region_desc(&self, id: u32, c: &Clauses, toks: &[Tok], location: &str) -> RegionDesc {
        let name = c.model_name.as_ref().map(|m| m.0.clone()).unwrap_or_default();
        let variants = c.variants.clone().unwrap_or_else(|| VariantSet::categorical(vec![]));
        let mut desc = RegionDesc::new(id, name, location, variants);
        for f in &c.features {
            desc.add_feature(ExprRef::here(f.expr.clone()), spell_written(toks, f.expr.clone()), f.range, f.min_samples);
        }
        desc.descriptor.model_type = c.model_type.as_ref().map_or(ModelKind::Auto, |m| m.kind);
        desc.min_train = c.min_train.clone().map(ExprRef::here);
        desc.params = c.model_type.as_ref().map(|m| m.params.iter().cloned().map(ExprRef::here).collect()).unwrap_or_default();
        desc.model_output = c.model_output.clone().map(ExprRef::here);
        desc.auto_features = c.auto_features.map(|_| LoopNames::default());
        desc
    }

    pub(super) fn begin_pieces(&self, desc: &RegionDesc, toks: &[Tok]) -> Vec<Piece> {
        let saved = &self.saved;
        let tokens = |s: Src| -> &[Tok] {
            match s {
                Src::Here => toks,
                Src::Saved(k) => saved.get(k as usize).map_or(&[][..], |v| v.as_slice()),
            }
        };
        lower::begin_region(desc, &tokens, self.cplusplus)
    }

    pub(super) fn begin(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
        let c = self.check_clauses(toks, 2, BEGIN, ctx, diags);
        let id = self.open_region(c.as_ref(), true, ctx, toks);
        let Some(c) = c else { return Outcome::Emit(vec![]) };
        let desc = self.region_desc(id, &c, toks, &ctx.location);
        Outcome::Emit(self.begin_pieces(&desc, toks))
    }

    pub(super) fn end(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
        let Some(b) = Brackets::new(toks, diags) else { return Outcome::Emit(vec![]) };
        let Some(c) = parse_clauses(toks, 2, &b, END, &["model_name"], diags) else { return Outcome::Emit(vec![]) };
        let Some(top) = self.open.last() else {
            diags.push(Diagnostic::error(0, 2, "'end adaptation' without a matching 'begin adaptation'"));
            return Outcome::Emit(vec![]);
        };
        if !top.begin_end {
            diags.push(Diagnostic::error(
                0,
                2,
                format!("'end adaptation' inside the structured block of the 'adaptation' directive for '{}'", top.model),
            ));
            return Outcome::Emit(vec![]);
        }
        if let Some((name, at)) = &c.model_name {
            if *name != top.model {
                diags.push(Diagnostic::error(
                    *at,
                    *at + 1,
                    format!("'end adaptation' names '{name}' but the innermost open adaptation region is '{}'", top.model),
                ));
                diags.push(Diagnostic::note(*at, *at + 1, format!("'{}' was opened at {}", top.model, top.location)));
                return Outcome::Emit(vec![]);
            }
        }
        if top.block != ctx.block {
            diags.push(Diagnostic::error(
                0,
                2,
                format!("'end adaptation' must be in the same block as the 'begin adaptation' of '{}' ({})", top.model, top.location),
            ));
            self.open.pop();
            return Outcome::Emit(vec![]);
        }
        let top = self.open.pop().expect("checked");
        if top.variants.is_none() {
            return Outcome::Emit(vec![]); // its begin had errors, already reported
        }
        Outcome::Emit(vec![lower::end_region(top.id)])
    }

    pub(super) fn single(&mut self, toks: &[Tok], ctx: &PragmaContext, diags: &mut Diags) -> Outcome {
        let Some(c) = self.check_clauses(toks, 1, SINGLE, ctx, diags) else {
            self.pending.push(Pending::Plain);
            return Outcome::NeedStatement;
        };
        let id = self.open_region(Some(&c), false, ctx, toks);
        let desc = self.region_desc(id, &c, toks, &ctx.location);
        let data = self.data.in_view(&ctx.open).into_iter().cloned().collect();
        self.pending.push(Pending::Region { desc: Box::new(desc), toks: toks.to_vec(), data, auto_at: c.auto_features });
        Outcome::NeedStatement
    }
}

/// Before a target construct, variants named like places (`host`, `GPU`) that name no kind all
/// run the offload as written: a warning at the first.
fn warn_host_names_before_offload(variants: &VariantSet, diags: &mut Diags) {
    let place_names = ["host", "device", "cpu_only", "offload", "accelerator", "CPU", "GPU"];
    if let Some(v) = variants.variants.iter().find(|v| place_names.contains(&v.name.as_str())) {
        diags.push(Diagnostic::warning(
            v.tok,
            v.tok + 1,
            format!(
                "variant '{}' names no variant kind: before a target construct every variant runs the offload as written; write variants(cpu, gpu) to run the host version for 'cpu', or use model_output to act on the choice",
                v.name
            ),
        ));
    }
}

/// Whether variant names that decode as kinds are the compiler's to generate: before an OpenMP
/// construct when one of them fits it (or every name is a kind: then an unfit one is an error
/// worth reporting), before a plain loop when every name is a kind (a warning says they need a
/// construct). Elsewhere — a structured block, a call — names are the user's categorical
/// identifiers, `serial` or `cpu` included (Georgakoudis et al.).
fn kinds_apply(kinds: &[Option<Kind>], stmt: &[Tok]) -> bool {
    let all = kinds.iter().all(Option::is_some);
    match kernel_scan::construct(stmt) {
        Some(c) => {
            all || kinds.iter().flatten().any(|k| {
                if c.offloads() {
                    k.for_target()
                } else {
                    (c.is_parallel_for() && k.for_parallel_for()) || (c.is_parallel_region() && k.sets_team_size())
                }
            })
        }
        None => all && stmt.first().is_some_and(|t| t.is_ident("for")),
    }
}
