//! Rechecks (see [`crate::recheck`]): a label scheduled when the store loads, its gate cached
//! with each thread's decision, and the re-measurement once a timed execution passes the gate.

use super::*;
use crate::recheck::{contradicted, gate_ns};

/// A label waiting for its recheck.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Pending {
    pub(super) key: FeatureKey,
    variant: usize,
    measured_ns: f64,
    mean_ns: f64,
}

/// A recheck: a label was measured again because its trained executions ran far faster than
/// the time it was chosen on.
#[derive(Clone, Debug, PartialEq)]
pub struct RecheckEvent {
    /// Executions of the region when its vector was re-measured.
    pub at_execution: u64,
    /// The feature vector re-measured.
    pub key: FeatureKey,
    /// The label that ran faster than measured.
    pub variant: usize,
    /// The time it was chosen on (its robust measured time), ns.
    pub measured_ns: f64,
    /// Its mean over earlier runs' timed trained executions, ns.
    pub mean_ns: f64,
    /// The timed execution of this run that passed the gate, ns.
    pub ran_ns: f64,
}

impl Region {
    /// Schedules a recheck of vector `key` when variant `v` is its label and earlier runs'
    /// `timed` trained executions of it, with mean `mean_ns`, contradict the time it was chosen
    /// on (see [`crate::recheck`]). Called when the store loads, after the model is in place.
    /// Returns whether it was scheduled.
    pub fn recheck_if_contradicted(&self, key: &FeatureKey, v: usize, mean_ns: f64, timed: u64) -> bool {
        let Some(t) = self.model.load_full() else { return false };
        if !self.monitor.load(Relaxed) || !self.learns_after_training(&t) || self.settled_on_own(&t).is_some_and(|o| o != v) {
            return false;
        }
        let Some(measured_ns) = t.time.predict(key, v) else { return false };
        if !contradicted(measured_ns, mean_ns, timed, &self.drift_cfg) {
            return false;
        }
        let mut g = self.lock();
        let labelled = g.measurements.label_of(key) == Some(v);
        if !labelled || g.rechecks.iter().any(|p| p.key == *key) {
            return false;
        }
        g.rechecks.push(Pending { key: *key, variant: v, measured_ns, mean_ns });
        self.recheck_pending.store(true, Relaxed);
        true
    }

    /// The recheck gate of decision `v` for `key`, clock ticks (0: none). Cold: only while
    /// some recheck waits.
    pub(super) fn recheck_gate(&self, key: &FeatureKey, v: u32) -> u64 {
        if !self.recheck_pending.load(Relaxed) {
            return 0;
        }
        let g = self.lock();
        match g.rechecks.iter().find(|p| p.key == *key && p.variant as u32 == v) {
            Some(p) => ((gate_ns(p.measured_ns, p.mean_ns) / clock::ns_per_tick()) as u64).max(1),
            None => 0,
        }
    }

    /// A timed execution of `v` on `slot`'s vector took `ticks`, at or below its recheck gate:
    /// the process runs the label at its steady rate, and the vector is measured afresh.
    #[cold]
    #[inline(never)]
    pub(super) fn recheck_now(&self, slot: &Slot, v: usize, ticks: u64) {
        slot.recheck_ticks.store(0, Relaxed);
        let executions = self.executions();
        let mut g = self.lock();
        let Some(i) = g.rechecks.iter().position(|p| p.key == *slot.key() && p.variant == v) else { return };
        let p = g.rechecks.swap_remove(i);
        if g.rechecks.is_empty() {
            self.recheck_pending.store(false, Relaxed);
        }
        self.adopt_pending(&mut g);
        if self.mode.frozen || g.measurements.label_of(&p.key) != Some(v) {
            return; // re-measured or relabelled since it was scheduled
        }
        self.reopen_locked(&mut g, &p.key);
        let ran_ns = clock::to_ns(ticks) as f64;
        g.rechecked.push(RecheckEvent {
            at_execution: executions,
            key: p.key,
            variant: v,
            measured_ns: p.measured_ns,
            mean_ns: p.mean_ns,
            ran_ns,
        });
    }

    /// The rechecks done in this run, in order.
    pub fn recheck_events(&self) -> Vec<RecheckEvent> {
        self.lock().rechecked.clone()
    }

    /// The rechecks still waiting for their gate: (vector, label).
    pub fn pending_rechecks(&self) -> Vec<(FeatureKey, usize)> {
        self.lock().rechecks.iter().map(|p| (p.key, p.variant)).collect()
    }
}
