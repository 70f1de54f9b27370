//! The device data environment as the source shows it: the map clauses of `target data` and
//! `target enter data` directives whose block is still open. A host variant of a region in
//! there must not run on the host copies: the device copies are authoritative.
//!
//! This is a lexical over-approximation: a section is a candidate while the block of its
//! directive is open, also after its `target data` statement ended or a `target exit data`
//! unmapped it. That is safe because the copies are made with `target update`, which
//! libomptarget turns into nothing for storage that is not present on the device at that
//! moment. What the source cannot show (a `target enter data` in another function) is not
//! covered; see docs/syntax.md, "The cpu variant's data".

use crate::brackets::Brackets;
use crate::kernel_scan::{map_items, MapItem};
use crate::token::{Tok, TokKind};

/// One data directive whose sections are candidates.
#[derive(Clone, Debug)]
pub struct DataDirective {
    /// Its saved token list.
    pub saved: u32,
    /// The block it is written in.
    pub block: u64,
    /// `target data`, `target enter data`.
    pub what: &'static str,
    /// Where the directive is (`file:line`), for the stale-copy warning.
    pub location: String,
    /// Its map items, without `release` and `delete` maps.
    pub items: Vec<MapItem>,
}

/// The data directives in view, innermost last.
#[derive(Default)]
pub struct DataEnv {
    directives: Vec<DataDirective>,
}

/// Whether a directive (tokens after `omp`) maps data for later constructs: its kind.
pub fn data_directive_kind(toks: &[Tok]) -> Option<&'static str> {
    let w = |i: usize, s: &str| toks.get(i).is_some_and(|t| t.is_ident(s));
    if w(0, "target") && w(1, "data") {
        Some("target data")
    } else if w(0, "target") && w(1, "enter") && w(2, "data") {
        Some("target enter data")
    } else {
        None
    }
}

impl DataEnv {
    /// Forgets the directives whose block has closed (`open`: the enclosing blocks now).
    pub fn prune(&mut self, open: &[u64]) {
        self.directives.retain(|d| open.contains(&d.block));
    }

    /// Notes a data directive (`toks`, after `omp`) saved as list `saved`; false when it maps
    /// nothing (then it need not be saved).
    pub fn note(&mut self, toks: &[Tok], saved: u32, block: u64, location: &str) -> bool {
        let Some(what) = data_directive_kind(toks) else { return false };
        let Some(b) = Brackets::new(toks, &mut Vec::new()) else { return false };
        let items: Vec<MapItem> = map_items(toks, 0..toks.len(), &b)
            .into_iter()
            .filter(|m| !matches!(m.map_type.as_str(), "release" | "delete"))
            .filter(|m| toks[m.range.clone()].iter().all(|t| t.kind != TokKind::OmpBegin))
            .collect();
        if items.is_empty() || block == 0 {
            return false;
        }
        self.directives.push(DataDirective { saved, block, what, location: location.to_string(), items });
        true
    }

    /// The directives in view at a point whose enclosing blocks are `open`.
    pub fn in_view(&self, open: &[u64]) -> Vec<&DataDirective> {
        self.directives.iter().filter(|d| open.contains(&d.block)).collect()
    }
}
