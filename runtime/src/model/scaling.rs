//! Feature scaling for linear models: optional log of size-like features, then standardisation,
//! both learned from the training rows.
//!
//! Trees split on thresholds and need no scaling. A linear model scores `w·x + b`, so a feature
//! spanning 1e2 .. 1e7 (a problem size) has its small values squeezed together: after
//! standardisation 1e2, 1e3 and 1e4 are all about -0.5, and the classes they label cannot be told
//! apart by any weight an optimiser reaches (`tests/models_learners.rs` shows it). A feature is
//! therefore taken as `ln(x)` when every training value is positive and the largest is at least
//! [`LOG_RATIO`] times the smallest (two decades); then every feature is standardised to mean 0
//! and standard deviation 1 (a constant feature keeps scale 1).
//!
//! At inference, log features are clamped to the smallest positive double before the logarithm
//! (a value ≤ 0 then lands far below the training range instead of producing NaN).

use super::data::Table;
use crate::ctx::MAX_FEATURES;

/// Largest/smallest ratio from which a positive feature is log-scaled.
pub const LOG_RATIO: f64 = 100.0;

/// A fitted scaling.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Scaler {
    /// Columns.
    pub p: usize,
    /// Bit `j`: feature `j` is log-scaled.
    pub log: u16,
    /// Mean of each (possibly logged) column.
    pub mean: [f64; MAX_FEATURES],
    /// Standard deviation of each (possibly logged) column (1 when constant).
    pub scale: [f64; MAX_FEATURES],
    /// `1 / scale` (training and inference both multiply by it, so they round alike).
    pub inv: [f64; MAX_FEATURES],
}

const _: () = assert!(MAX_FEATURES <= 16, "Scaler::log is a u16 bit set");

/// `ln(x)` for a log-scaled feature: `x` clamped to the smallest positive double first.
#[inline]
pub fn log_feature(x: f64) -> f64 {
    // f64::max returns the non-NaN operand, so NaN also maps to the smallest positive double.
    x.max(f64::MIN_POSITIVE).ln()
}

impl Scaler {
    /// Learns the scaling of `t`'s columns; `use_log = false` disables log-scaling.
    pub fn fit(t: &Table, use_log: bool) -> Scaler {
        let n = t.n() as f64;
        let mut s = Scaler { p: t.p, log: 0, mean: [0.0; MAX_FEATURES], scale: [1.0; MAX_FEATURES], inv: [1.0; MAX_FEATURES] };
        for j in 0..t.p {
            let col = (0..t.n()).map(|i| t.at(i, j));
            let (lo, hi) = col.clone().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
            if use_log && lo > 0.0 && hi.is_finite() && hi >= LOG_RATIO * lo {
                s.log |= 1 << j;
            }
            let f = |v: f64| if s.log & (1 << j) != 0 { log_feature(v) } else { v };
            let mean = col.clone().map(f).sum::<f64>() / n;
            let var = col.map(|v| (f(v) - mean) * (f(v) - mean)).sum::<f64>() / n;
            s.mean[j] = mean;
            s.scale[j] = if var.sqrt() > 1e-300 && var.is_finite() { var.sqrt() } else { 1.0 };
            s.inv[j] = 1.0 / s.scale[j];
        }
        s
    }

    /// Whether feature `j` is log-scaled.
    pub fn is_log(&self, j: usize) -> bool {
        self.log & (1 << j) != 0
    }

    /// The feature before standardisation: `x`, or `ln(x)` for a log-scaled feature.
    #[inline]
    pub fn raw(&self, j: usize, x: f64) -> f64 {
        if self.is_log(j) {
            log_feature(x)
        } else {
            x
        }
    }

    /// The scaled feature: `(raw(x) - mean) * inv`.
    #[inline]
    pub fn apply(&self, j: usize, x: f64) -> f64 {
        (self.raw(j, x) - self.mean[j]) * self.inv[j]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_only_for_wide_positive_columns() {
        let rows = vec![vec![1e2, 1.0, -1.0, 5.0], vec![1e7, 50.0, 100.0, 5.0], vec![1e4, 99.0, 1.0, 5.0]];
        let t = Table::new(&rows, &[0, 1, 0]).unwrap();
        let s = Scaler::fit(&t, true);
        assert!(s.is_log(0), "five decades");
        assert!(!s.is_log(1), "ratio 99 < 100");
        assert!(!s.is_log(2), "not positive");
        assert!(!s.is_log(3));
        assert_eq!(s.scale[3], 1.0, "constant column");
        // standardised: mean 0, variance 1
        for j in 0..3 {
            let z: Vec<f64> = (0..3).map(|i| s.apply(j, t.at(i, j))).collect();
            let m = z.iter().sum::<f64>() / 3.0;
            let v = z.iter().map(|x| x * x).sum::<f64>() / 3.0;
            assert!(m.abs() < 1e-9 && (v - 1.0).abs() < 1e-9, "{j}: {z:?}");
        }
        assert!(!Scaler::fit(&t, false).is_log(0));
        assert!(s.apply(0, 0.0).is_finite() && s.apply(0, -5.0).is_finite() && s.apply(0, f64::NAN).is_finite());
    }
}
