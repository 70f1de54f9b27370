//! Control runs (see [`crate::control`]): verdicts given when the store loads, applied where a
//! trained region decides a measured vector (`select`'s `route`).

use super::*;
use crate::control::{verdict, Verdict};

/// A verdict on a vector's label against the program's own variant, given at load.
#[derive(Clone, Debug, PartialEq)]
pub struct ControlEvent {
    /// The feature vector.
    pub key: FeatureKey,
    /// Its label.
    pub label: usize,
    /// The program's own variant.
    pub own: usize,
    /// The label's mean over stored timed trained executions, ns.
    pub label_mean_ns: f64,
    /// The own variant's, where stored.
    pub own_mean_ns: Option<f64>,
    /// What runs in this run: the own variant (trial, or not clearly slower), or the label.
    pub verdict: Verdict,
}

impl Region {
    /// Judges vector `key`'s label against the program's own variant from stored trained
    /// executions, `monitored(v)` = (mean ns, timed executions) of variant `v` on `key`, and
    /// makes the own variant decide `key` in this run unless the label is clearly faster (see
    /// [`crate::control`]). Called when the store loads, after the model is in place and the
    /// rechecks are scheduled. Returns the verdict (None: not judged).
    pub fn control(&self, key: &FeatureKey, monitored: impl Fn(usize) -> Option<(f64, u64)>) -> Option<Verdict> {
        if !self.drift_cfg.control || self.mode.frozen || self.whole_run_own().is_some() {
            return None;
        }
        let t = self.model.load_full()?;
        if !self.learns_after_training(&t) || self.settled_on_own(&t).is_some() {
            return None;
        }
        let own = own::own_variant(&self.spec.variants).filter(|&o| self.available(o))?;
        let mut g = self.lock();
        let label = g.measurements.label_of(key)?;
        if label == own || g.rechecks.iter().any(|p| p.key == *key) {
            return None;
        }
        let (label_data, own_data) = (monitored(label)?, monitored(own));
        let v = verdict(label_data, own_data, t.time.predict(key, own))?;
        if v != Verdict::Label {
            g.own_decides.insert(*key, v == Verdict::Trial);
            if v == Verdict::Trial {
                self.trials.store(true, Relaxed);
            }
        }
        g.controls.push(ControlEvent {
            key: *key,
            label,
            own,
            label_mean_ns: label_data.0,
            own_mean_ns: own_data.map(|d| d.0),
            verdict: v,
        });
        Some(v)
    }

    /// Whether vector `key`'s own variant has its trial in this run (every execution timed).
    /// Cold: only while some trial runs.
    pub(super) fn on_trial(&self, key: &FeatureKey) -> bool {
        self.trials.load(Relaxed) && self.lock().own_decides.get(key).copied().unwrap_or(false)
    }

    /// The verdicts given in this run.
    pub fn control_events(&self) -> Vec<ControlEvent> {
        self.lock().controls.clone()
    }
}
