//! Drift detection (Artemis), confirmed on measured pairs.
//!
//! A trained region keeps, per measured (feature vector, variant) pair, its measured time
//! (the robust estimate the label came from: [`TimeModel`]). A timed execution of such a pair
//! that takes more than `factor` × that time **and** at least `min_ns` more
//! (`OMPADAPT_DRIFT_FACTOR`, `OMPADAPT_DRIFT_MIN_NS`) is *slow*; the bar is computed once per
//! (vector, decision) and cached with the decision, so the trained path only compares two
//! integers. Each thread judges windows of `OMPADAPT_DRIFT_WINDOW` timed executions of one
//! pair; a window with more than `OMPADAPT_DRIFT_FRACTION` slow executions is a repeated,
//! significant slowdown of that pair against its own history (under no change, a measurement
//! is rarely twice its robust estimate, so a majority over a window is far beyond chance).
//! A drift is two such windows in a row: a slowdown confined to one window is a transient
//! (a process's first milliseconds, where a 2-thread team's fork can cost several times its
//! steady cost on this 2-core machine), and re-measuring inside it labels the vector from that
//! transient for good (PolyBench heat-3d: a trained run drifted at its 257th execution and
//! relabelled `threads=1` as `serial`, which every later run kept).
//! Then that vector's variants are measured afresh; the new measurements supersede the old
//! ones for it (the old ones stay in the saved files), and the model is retrained, which
//! changes it only where the labels changed. At most `OMPADAPT_DRIFT_MAX` vectors per region
//! and run are re-measured.
//!
//! A vector the model was never measured on has no time to compare with: it is never judged
//! (a new input size that is much slower than others is novelty, not drift; see `region` for
//! how such vectors are explored). What this cannot see (as in Artemis): a variant that became
//! *faster* while the model does not run it.

use std::collections::HashMap;

use crate::config::DriftConfig;
use crate::stats::{FeatureKey, FxBuild};

/// Measured time per (feature vector, variant).
#[derive(Clone, Debug, Default)]
pub struct TimeModel {
    exact: HashMap<(FeatureKey, usize), f64, FxBuild>,
}

impl TimeModel {
    /// The model of per-pair robust times.
    pub fn fit(times: &[(FeatureKey, usize, f64)], nv: usize) -> TimeModel {
        let mut m = TimeModel::default();
        for &(k, v, t) in times {
            if v < nv && t.is_finite() && t >= 0.0 {
                m.exact.insert((k, v), t);
            }
        }
        m
    }

    /// Measured time of variant `v` on `key`, ns (None: never measured).
    pub fn predict(&self, key: &FeatureKey, v: usize) -> Option<f64> {
        self.exact.get(&(*key, v)).copied()
    }

    /// Measured pairs.
    pub fn len(&self) -> usize {
        self.exact.len()
    }

    /// Whether the model knows nothing.
    pub fn is_empty(&self) -> bool {
        self.exact.is_empty()
    }
}

/// The time above which an execution measured at `measured` ns is slow.
pub fn bar_ns(measured: Option<f64>, cfg: &DriftConfig) -> u64 {
    match measured {
        Some(p) if cfg.enabled && p.is_finite() && p >= 0.0 => {
            let bar = (p * cfg.factor).max(p + cfg.min_ns);
            if bar >= u64::MAX as f64 {
                u64::MAX
            } else {
                bar.ceil() as u64
            }
        }
        _ => u64::MAX,
    }
}

/// `Slot::window_slow`'s top bit: the slot's previous full window drifted (its count of
/// slow executions is the bits below).
pub const PREVIOUS_WINDOW_DRIFTED: u32 = 1 << 31;

/// Whether a full window says the pair drifted (the drift itself is two in a row).
pub fn window_drifted(slow: u32, n: u32, cfg: &DriftConfig) -> bool {
    n > 0 && slow as f64 > cfg.fraction * n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_measured_pairs_are_predicted() {
        let k = |x: f64| FeatureKey::new(&[x]);
        let m = TimeModel::fit(&[(k(10.0), 0, 120.0), (k(100.0), 0, 300.0), (k(10.0), 1, 50.0)], 3);
        assert_eq!(m.predict(&k(100.0), 0), Some(300.0));
        assert_eq!(m.predict(&k(500.0), 0), None, "no extrapolation: an unmeasured size is not judged");
        assert_eq!(m.predict(&k(10.0), 2), None);
        assert_eq!(m.len(), 3);
    }

    #[test]
    fn bars_and_windows() {
        let c = DriftConfig::default();
        assert_eq!(bar_ns(Some(100.0), &c), 1100, "min_ns dominates for short regions");
        assert_eq!(bar_ns(Some(10_000.0), &c), 20_000);
        assert_eq!(bar_ns(None, &c), u64::MAX);
        assert_eq!(bar_ns(Some(100.0), &DriftConfig { enabled: false, ..c }), u64::MAX);
        assert!(window_drifted(9, 16, &c) && !window_drifted(8, 16, &c));
    }
}
