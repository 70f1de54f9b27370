//! Drift detection (seed 003, Artemis): after training, each execution is compared with a time
//! model; when too many of a thread's recent executions are much slower than predicted, the
//! region forgets its measurements, explores again and retrains.
//!
//! The time model is a regression over features and variant, fitted when the classifier is:
//! * for a (feature vector, variant) pair that was measured, its median time;
//! * otherwise, per variant, a least-squares linear fit of time on the features (ridge-damped,
//!   fitted on the per-pair medians), never predicting below the variant's fastest median
//!   (under-prediction would flag healthy executions; over-prediction only makes the check
//!   less sensitive);
//! * no prediction (no check) for a variant never measured.
//!
//! An execution drifts when it takes more than `factor` × predicted **and** at least `min_ns`
//! more than predicted (`OMPADAPT_DRIFT_FACTOR`, `OMPADAPT_DRIFT_MIN_NS`); the bar is computed
//! once per (vector, decision) and cached with the decision, so the trained path only compares
//! two integers. Each thread judges windows of `OMPADAPT_DRIFT_WINDOW` of its own executions;
//! a window with more than `OMPADAPT_DRIFT_FRACTION` drifting executions resets the region
//! (Artemis: more than half of the feature sets diverging by 2×). At most
//! `OMPADAPT_DRIFT_MAX` resets per region and run.
//!
//! What this cannot see (as in Artemis): a variant that became *faster* while the model does
//! not run it.

use std::collections::HashMap;

use crate::config::DriftConfig;
use crate::stats::{FKey, FxBuild};

/// Predicted execution time per (feature vector, variant).
#[derive(Clone, Debug, Default)]
pub struct TimeModel {
    exact: HashMap<(FKey, usize), f64, FxBuild>,
    /// Per variant: `[intercept, coefficient per feature]`.
    linear: Vec<Option<Vec<f64>>>,
    /// Per variant: fastest median (the floor of the linear prediction).
    floor: Vec<f64>,
}

impl TimeModel {
    /// Fits the model on per-pair median times.
    pub fn fit(medians: &[(FKey, usize, f64)], nv: usize) -> TimeModel {
        let mut m = TimeModel { linear: vec![None; nv], floor: vec![f64::INFINITY; nv], ..Default::default() };
        for &(k, v, t) in medians {
            if v < nv && t.is_finite() && t >= 0.0 {
                m.exact.insert((k, v), t);
                m.floor[v] = m.floor[v].min(t);
            }
        }
        for v in 0..nv {
            let pts: Vec<(&FKey, f64)> = medians.iter().filter(|(_, w, _)| *w == v).map(|(k, _, t)| (k, *t)).collect();
            m.linear[v] = fit_linear(&pts);
        }
        m
    }

    /// Predicted time of variant `v` on `key`, ns.
    pub fn predict(&self, key: &FKey, v: usize) -> Option<f64> {
        if let Some(&t) = self.exact.get(&(*key, v)) {
            return Some(t);
        }
        let floor = *self.floor.get(v)?;
        if !floor.is_finite() {
            return None;
        }
        let lin = self.linear.get(v)?.as_ref().map(|c| {
            c[0] + c[1..].iter().enumerate().map(|(i, b)| b * key.get(i)).sum::<f64>()
        });
        Some(lin.filter(|x| x.is_finite()).map_or(floor, |x| x.max(floor)))
    }

    /// Measured pairs the model knows exactly.
    pub fn len(&self) -> usize {
        self.exact.len()
    }

    /// Whether the model knows nothing.
    pub fn is_empty(&self) -> bool {
        self.exact.is_empty()
    }
}

/// Least squares `t ≈ c0 + Σ ci·xi` with a small ridge term (features are scaled to unit
/// range first so the damping treats them alike); None with fewer than 2 points.
fn fit_linear(pts: &[(&FKey, f64)]) -> Option<Vec<f64>> {
    if pts.len() < 2 {
        return None;
    }
    let d = pts.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let scale: Vec<f64> = (0..d)
        .map(|i| pts.iter().map(|(k, _)| k.get(i).abs()).fold(0.0, f64::max))
        .map(|s| if s > 0.0 && s.is_finite() { s } else { 1.0 })
        .collect();
    let n = d + 1;
    let mut a = vec![vec![0.0; n]; n];
    let mut b = vec![0.0; n];
    for (k, t) in pts {
        let mut x = vec![1.0];
        x.extend((0..d).map(|i| k.get(i) / scale[i]));
        if x.iter().any(|v| !v.is_finite()) {
            continue;
        }
        for i in 0..n {
            b[i] += x[i] * t;
            for j in 0..n {
                a[i][j] += x[i] * x[j];
            }
        }
    }
    let trace: f64 = (0..n).map(|i| a[i][i]).sum();
    for (i, row) in a.iter_mut().enumerate().skip(1) {
        row[i] += 1e-6 * trace.max(1.0);
    }
    let c = solve(a, b)?;
    let mut out = vec![c[0]];
    out.extend((0..d).map(|i| c[i + 1] / scale[i]));
    out.iter().all(|x| x.is_finite()).then_some(out)
}

/// Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[piv][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, piv);
        b.swap(col, piv);
        for r in col + 1..n {
            let f = a[r][col] / a[col][col];
            for c in col..n {
                a[r][c] -= f * a[col][c];
            }
            b[r] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|c| a[r][c] * x[c]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    Some(x)
}

/// The time above which an execution predicted to take `predicted` ns drifts.
pub fn bar_ns(predicted: Option<f64>, cfg: &DriftConfig) -> u64 {
    match predicted {
        Some(p) if cfg.enabled && p.is_finite() && p >= 0.0 => {
            let bar = (p * cfg.factor).max(p + cfg.min_ns);
            if bar >= u64::MAX as f64 { u64::MAX } else { bar.ceil() as u64 }
        }
        _ => u64::MAX,
    }
}

/// Whether a full window says the region drifted.
pub fn window_drifted(slow: u32, n: u32, cfg: &DriftConfig) -> bool {
    n > 0 && slow as f64 > cfg.fraction * n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predictions() {
        let k = |x: f64| FKey::new(&[x]);
        // variant 0: t = 100 + 2·N; variant 1: measured once only
        let meds = vec![(k(10.0), 0, 120.0), (k(100.0), 0, 300.0), (k(1000.0), 0, 2100.0), (k(10.0), 1, 50.0)];
        let m = TimeModel::fit(&meds, 3);
        assert_eq!(m.predict(&k(100.0), 0), Some(300.0));
        let p = m.predict(&k(500.0), 0).unwrap();
        assert!((p - 1100.0).abs() < 1.0, "{p}");
        assert_eq!(m.predict(&k(0.0), 0), Some(120.0), "never below the fastest median");
        assert_eq!(m.predict(&k(99.0), 1), Some(50.0), "one point: the floor");
        assert_eq!(m.predict(&k(10.0), 2), None);
    }

    #[test]
    fn bars_and_windows() {
        let c = DriftConfig::default();
        assert_eq!(bar_ns(Some(100.0), &c), 1100, "min_ns dominates for short regions");
        assert_eq!(bar_ns(Some(10_000.0), &c), 20_000);
        assert_eq!(bar_ns(None, &c), u64::MAX);
        assert_eq!(bar_ns(Some(100.0), &DriftConfig { enabled: false, ..c }), u64::MAX);
        assert!(window_drifted(17, 32, &c) && !window_drifted(16, 32, &c));
    }
}
