//! Control runs (see [`crate::control`]): verdicts given when the store loads, applied where a
//! trained region decides a measured vector (`select`'s `route`).

use super::*;
use crate::control::{pooled, pooled_verdict, verdict, Verdict};

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
    /// Judged with the region's other short labels (see [`crate::control::pooled_verdict`]).
    pub pooled: bool,
}

/// A short label waiting for its region's pooled verdict (see [`Region::judge_pool`]).
#[derive(Clone, Debug)]
pub(crate) struct Pooled {
    key: FeatureKey,
    label: usize,
    own: usize,
    label_data: (f64, u64),
    own_data: Option<(f64, u64)>,
}

impl Region {
    /// Judges vector `key`'s label against the program's own variant from stored trained
    /// executions, `monitored(v)` = (mean ns, timed executions) of variant `v` on `key`, and
    /// makes the own variant decide `key` in this run unless the label is clearly faster (see
    /// [`crate::control`]). Called when the store loads, after the model is in place and the
    /// rechecks are scheduled. Returns the verdict (None: not judged).
    pub fn control(&self, key: &FeatureKey, monitored: impl Fn(usize) -> Option<(f64, u64)>) -> Option<Verdict> {
        if !self.drift_cfg.control || self.mode.frozen {
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
        let own_measured = t.time.predict(key, own);
        if pooled(label_data, own_measured) {
            g.pool.push(Pooled { key: *key, label, own, label_data, own_data });
            return None;
        }
        let v = verdict(label_data, own_data, own_measured)?;
        self.apply_verdict(&mut g, Pooled { key: *key, label, own, label_data, own_data }, v, false);
        Some(v)
    }

    /// Judges the short labels [`Region::control`] set aside, together (see
    /// [`crate::control::pooled_verdict`]); called once every vector was seen. Returns the
    /// verdict (None: no short label).
    pub fn judge_pool(&self) -> Option<Verdict> {
        let mut g = self.lock();
        let pool = std::mem::take(&mut g.pool);
        let v = pooled_verdict(&pool.iter().map(|p| (p.label_data, p.own_data)).collect::<Vec<_>>())?;
        for p in pool {
            self.apply_verdict(&mut g, p, v, true);
        }
        Some(v)
    }

    /// Makes verdict `v` on `p`'s label hold in this run, and records it.
    fn apply_verdict(&self, g: &mut Inner, p: Pooled, v: Verdict, pooled: bool) {
        if v != Verdict::Label {
            g.own_decides.insert(p.key, v == Verdict::Trial);
            if v == Verdict::Trial {
                self.trials.store(true, Relaxed);
            }
        }
        g.controls.push(ControlEvent {
            key: p.key,
            label: p.label,
            own: p.own,
            label_mean_ns: p.label_data.0,
            own_mean_ns: p.own_data.map(|d| d.0),
            verdict: v,
            pooled,
        });
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
