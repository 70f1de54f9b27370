//! A region's saved data judged against its current definition ([`super::definition`]'s
//! rules): what is used, what is set aside, whether the stored model applies — for a run
//! ([`assess`]) and for the `ompadapt` command ([`view`]). Apart from `definition` so that the
//! merging of files (which needs a definition's identity) and the judging of merged data
//! (which needs the merge) do not depend on each other.

use super::definition::Definition;
use super::format::{DataFile, ModelRecord};
use super::merge::Merged;

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
