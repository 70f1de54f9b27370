//! The statement of an adaptation region: lowered in the pass form when its variants name
//! kinds that fit the construct it starts with, else wrapped as written between the region's
//! begin and end.

use super::Session;
use crate::data_env::DataDirective;
use crate::diag::{has_error, Diagnostic, Diags};
use crate::kinds::Kind;
use crate::lower::{self, RegionDesc};
use crate::piece::Piece;
use crate::token::Tok;
use crate::variants::VariantSet;
use crate::{kernel_scan, pass_form};

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
