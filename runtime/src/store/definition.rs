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
//! variants, a run says so in one line ([`Assessment::change`]); `show`, `list` and `evaluate`
//! show the current definition, mark the earlier one and count only what belongs to the
//! current one ([`view`]).

use super::format::{DataFile, ModelRecord};
use super::merge::Merged;
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

fn same_variants(a: &[String], b: &[String]) -> bool {
    fn sorted(v: &[String]) -> Vec<&str> {
        let mut s: Vec<&str> = v.iter().map(String::as_str).collect();
        s.sort_unstable();
        s
    }
    sorted(a) == sorted(b)
}

/// What a region's saved data holds for its current definition, and what it sets aside.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Assessment {
    /// The definition of the newest saved data (None: nothing saved).
    pub saved: Option<Definition>,
    /// Measurements of the current variants: used.
    pub used: u64,
    /// Measurements of variants the region no longer has, and their names: kept on disk, not
    /// used.
    pub unused: u64,
    /// The names of those variants.
    pub unused_variants: Vec<String>,
    /// Files recorded with other feature names: set aside.
    pub stale_files: usize,
    /// The measurements those files hold.
    pub stale_measurements: u64,
    /// The stored model, when it was trained on the current variants.
    pub model: Option<ModelRecord>,
    /// The stored model, when it was trained on other variants: not used.
    pub other_model: Option<ModelRecord>,
}

/// Judges `merged` (a region's saved data) against the region's `current` definition.
pub fn assess(current: &Definition, merged: &Merged) -> Assessment {
    let mut a = Assessment {
        saved: merged.header.as_ref().map(Definition::of),
        stale_files: merged.stale_files.len(),
        stale_measurements: merged.stale_measurements,
        ..Assessment::default()
    };
    let measured = merged.samples.iter().map(|((_, v), p)| (v, p.count)).chain(merged.runs.iter().map(|((_, _, v), _)| (v, 1)));
    for (variant, count) in measured {
        if current.variants.contains(variant) {
            a.used = a.used.saturating_add(count);
        } else {
            a.unused = a.unused.saturating_add(count);
            if !a.unused_variants.contains(variant) {
                a.unused_variants.push(variant.clone());
            }
        }
    }
    match &merged.model {
        Some(m) if current.same_variants(&m.variants) => a.model = Some(m.clone()),
        Some(m) => a.other_model = Some(m.clone()),
        None => {}
    }
    a
}

fn plural(n: u64, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

impl Assessment {
    /// Whether the newest saved data was recorded with other variants than `current`'s.
    pub fn variants_changed(&self, current: &Definition) -> bool {
        self.saved.as_ref().is_some_and(|s| !current.same_variants(&s.variants))
    }

    /// What a run says (after `region '<name>': `) when the region's variants changed since
    /// its saved data, or when its stored model was trained on other variants; None when
    /// neither.
    pub fn change(&self, current: &Definition) -> Option<String> {
        let now = current.variants.join(", ");
        let model = self.other_model.as_ref();
        if let Some(saved) = self.saved.as_ref().filter(|_| self.variants_changed(current)) {
            let mut line = format!(
                "its variants changed since the saved data (was {}; now {now}): {} of the variants still present {} used",
                saved.variants.join(", "),
                plural(self.used, "measurement"),
                if self.used == 1 { "is" } else { "are" }
            );
            if self.unused > 0 {
                line += &format!(
                    ", {} of variants it no longer has ({}) {} kept on disk but not used",
                    self.unused,
                    self.unused_variants.join(", "),
                    if self.unused == 1 { "is" } else { "are" }
                );
            }
            if model.is_some() {
                line += ", the saved model is not";
            }
            return Some(line);
        }
        model.map(|m| format!("its saved model was trained on other variants ({}; now {now}); it is not used", m.variants.join(", ")))
    }
}

/// A region's saved data as the `ompadapt` command shows it: the current definition (the
/// newest data's) with only what belongs to it, and what was set aside.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    /// The current definition's data: its measurements, model-chosen executions and run totals
    /// of current variants, and the stored model if it was trained on them.
    pub file: DataFile,
    /// What of the saved data belongs to the current definition, and what was set aside.
    pub assessment: Assessment,
    /// The definition before the newest, when the files read still show one that differs.
    pub earlier: Option<Definition>,
}

/// The current view of `merged` (a region's saved data, read with the newest data's features).
pub fn view(merged: &Merged) -> View {
    let mut file = merged.exported();
    let current = Definition::of(&file);
    let assessment = assess(&current, merged);
    let has = |v: &String| current.variants.contains(v);
    file.samples.retain(|s| has(&s.variant));
    file.monitored.retain(|m| has(&m.variant));
    file.runs.retain(|r| has(&r.variant));
    file.model_trained = assessment.model.clone();
    let earlier = merged.definitions.iter().rev().find(|d| **d != current).cloned();
    View { file, assessment, earlier }
}
