//! What a region is — its features, variants and location — and what saved data recorded
//! under another definition is used for. One rule for the runtime, its report and every
//! `ompadapt` command:
//!
//! - A region is its program and its name. Its *definition* is what each data file records
//!   beside the data: feature names, variant names, the directive's location. The current
//!   definition is the running build's (at run time) or the newest data file's (the command,
//!   which knows only the store).
//! - **Features.** A file recorded with other feature names is set aside whole: the runtime
//!   moves it aside (`.stale-`, one line), the command skips it and says how many
//!   measurements it set aside. Its feature vectors mean something else.
//! - **Variants.** A variant is the same variant when its name is the same, in any order: the
//!   name encodes its kind and value (`cpu`, `thread_limit=128`, `schedule=dynamic,16`).
//!   Measurements of variants still present are used, mapped by name. Measurements of variants
//!   the region no longer has stay on disk and are used nowhere: not in training, decisions,
//!   counts or pictures. A stored model is used only if it was trained on the current variant
//!   set; otherwise a run trains its own from the measurements it can use (once they suffice)
//!   and a frozen run runs the first variant, saying why.
//! - **Location.** Reported; a directive that moved is the same region.
//!
//! When the variants changed since the newest saved data, or the stored model is of other
//! variants, a run says so in one line; `show`, `list` and `evaluate` show the current
//! definition, mark the earlier one and count only what belongs to the current one (both in
//! [`super::assessment`], which judges merged data by these rules).

use super::format::DataFile;
use crate::spec::RegionDescriptor;

/// A region's definition, as a data file records it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Definition {
    /// Where the directive was (`file:line`).
    pub loc: String,
    /// Feature names, in order.
    pub features: Vec<String>,
    /// Variant names, in order.
    pub variants: Vec<String>,
}

impl Definition {
    /// The definition `f` was recorded with.
    pub fn of(f: &DataFile) -> Definition {
        Definition { loc: f.loc.clone(), features: f.features.clone(), variants: f.variants.clone() }
    }

    /// The definition of a running region.
    pub fn of_region(spec: &RegionDescriptor) -> Definition {
        Definition { loc: spec.loc.clone(), features: spec.features.clone(), variants: spec.variants.clone() }
    }

    /// Whether data recorded with `features` belongs to this definition (names as written,
    /// surrounding spaces aside).
    pub fn same_features(&self, features: &[String]) -> bool {
        same_features(&self.features, features)
    }

    /// Whether `variants` are this definition's variants: the same names, in any order.
    pub fn same_variants(&self, variants: &[String]) -> bool {
        same_variants(&self.variants, variants)
    }
}

pub(super) fn same_features(a: &[String], b: &[String]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.trim() == y.trim())
}

pub(super) fn same_variants(a: &[String], b: &[String]) -> bool {
    fn sorted(v: &[String]) -> Vec<&str> {
        let mut s: Vec<&str> = v.iter().map(String::as_str).collect();
        s.sort_unstable();
        s
    }
    sorted(a) == sorted(b)
}
