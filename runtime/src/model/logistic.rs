//! Multinomial logistic regression (HPX smart executors, hpxML): trained with linfa-logistic on
//! scaled features (see [`super::scaling`]), compiled to a weight matrix.
//!
//! Inference computes, for each class `c`, `b[c] + Σ_j w[c][j] · z_j` with
//! `z_j = (raw_j(x) - mean_j) · inv_j` (`raw_j` = `ln` for log-scaled features), and returns the
//! class with the highest score (ties: the lower variant). The softmax is monotone, so it is
//! never computed. With `p` features and `k` classes that is `p` scalings and `k·p`
//! multiply-adds, on the stack.
//!
//! What is guaranteed: a linear model can only carve the (scaled) feature space into convex
//! cells, one per class; on one feature every class owns one interval at most. Labels that are
//! not linearly separable after scaling (e.g. `0, 1, 0` along one feature) cannot be
//! reproduced. When they are, the weak L2 penalty ([`ALPHA`]) lets the optimiser drive the
//! weights far enough that every training row is classified right in the cases tested
//! (`tests/models_exact.rs`); [`super::train`] patches any row it still gets wrong.

use linfa::prelude::*;
use linfa_logistic::MultiLogisticRegression;
use ndarray::{Array1, Array2};

use super::data::Table;
use super::scaling::Scaler;
use super::tree::fmt_number;
use crate::ctx::MAX_FEATURES;

/// L2 penalty on standardised features. linfa's default (1.0) keeps weights so small on a
/// handful of rows that neighbouring classes blur. Measured on the separable sets of
/// `tests/models_exact.rs` and the benchmark's: every penalty from 1e-4 to 1e-1 fits them all;
/// with 1e-4 L-BFGS has not converged after 200 iterations (12 ms for the 7 sets, the weights of
/// separable data keep growing), with 1e-3 it converges in under 50 (0.6 ms). 1e-3 is the
/// weakest penalty that converges.
pub const ALPHA: f64 = 1e-3;
/// L-BFGS iteration limit (convergence with [`ALPHA`] takes fewer on the tested sets).
pub const MAX_ITERATIONS: u64 = 100;
/// L-BFGS gradient tolerance.
pub const GRADIENT_TOLERANCE: f64 = 1e-6;

/// A compiled multinomial logistic regression.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Linear {
    /// Feature scaling learned at training.
    pub scaler: Scaler,
    /// Variant of each score row, ascending.
    pub classes: Box<[u32]>,
    /// `classes.len() × scaler.p` weights, row-major.
    pub w: Box<[f64]>,
    /// Intercept of each class.
    pub b: Box<[f64]>,
}

impl Linear {
    /// Predicted variant for `x`.
    #[inline]
    pub fn predict(&self, x: &[f64; MAX_FEATURES]) -> usize {
        let p = self.scaler.p;
        let mut z = [0.0; MAX_FEATURES];
        for j in 0..p {
            z[j] = self.scaler.apply(j, x[j]);
        }
        let mut best = 0;
        let mut best_score = f64::NEG_INFINITY;
        for (c, (wc, &bc)) in self.w.chunks_exact(p).zip(self.b.iter()).enumerate() {
            let mut s = bc;
            for j in 0..p {
                s += wc[j] * z[j];
            }
            if s > best_score {
                best_score = s;
                best = c;
            }
        }
        self.classes[best] as usize
    }

    /// The scaling and one score line per class.
    pub fn render(&self, feature: &dyn Fn(usize) -> String, class: &dyn Fn(usize) -> String, indent: usize) -> String {
        let pad = "  ".repeat(indent);
        let s = &self.scaler;
        let mut out = String::new();
        for j in 0..s.p {
            let raw = if s.is_log(j) { format!("ln({})", feature(j)) } else { feature(j) };
            out.push_str(&format!("{pad}z{j} = ({raw} - {}) / {}\n", fmt_number(s.mean[j]), fmt_number(s.scale[j])));
        }
        for (c, wc) in self.w.chunks_exact(s.p).enumerate() {
            let terms: Vec<String> = wc.iter().enumerate().map(|(j, w)| format!("{} z{j}", fmt_number(*w))).collect();
            out.push_str(&format!("{pad}score({}) = {} + {}\n", class(self.classes[c] as usize), fmt_number(self.b[c]), terms.join(" + ")));
        }
        out.push_str(&format!("{pad}-> the variant with the highest score\n"));
        out
    }
}

/// Trains on `t`; `use_log = false` disables log-scaling (for the tests that justify it).
/// A single class gives a model that always predicts it.
pub fn fit(t: &Table, use_log: bool) -> Result<Linear, String> {
    fit_with(t, use_log, ALPHA, MAX_ITERATIONS)
}

/// [`fit`] with an explicit L2 penalty and iteration limit.
pub fn fit_with(t: &Table, use_log: bool, alpha: f64, max_iterations: u64) -> Result<Linear, String> {
    let scaler = Scaler::fit(t, use_log);
    let (n, p) = (t.n(), t.p);
    let z = Array2::from_shape_fn((n, p), |(i, j)| scaler.apply(j, t.at(i, j)));
    if z.iter().any(|v| !v.is_finite()) {
        return Err("logistic regression needs finite features".to_owned());
    }
    let mut classes: Vec<u32> = t.y.iter().map(|&c| c as u32).collect();
    classes.sort_unstable();
    classes.dedup();
    if classes.len() == 1 {
        return Ok(Linear { scaler, classes: classes.into(), w: vec![0.0; p].into(), b: vec![0.0].into() });
    }
    let y: Array1<usize> = t.y.iter().map(|&c| c as usize).collect();
    let fitted = MultiLogisticRegression::default()
        .alpha(alpha)
        .max_iterations(max_iterations)
        .gradient_tolerance(GRADIENT_TOLERANCE)
        .fit(&Dataset::new(z, y))
        .map_err(|e| format!("logistic regression: {e}"))?;
    let params = fitted.params(); // p × k
    let intercept = fitted.intercept(); // k
    let k = fitted.classes().len();
    let mut w = Vec::with_capacity(k * p);
    for c in 0..k {
        w.extend((0..p).map(|j| params[(j, c)]));
    }
    let classes: Vec<u32> = fitted.classes().iter().map(|&c| c as u32).collect();
    if w.iter().chain(intercept.iter()).any(|v| !v.is_finite()) {
        return Err("logistic regression diverged".to_owned());
    }
    Ok(Linear { scaler, classes: classes.into(), w: w.into(), b: intercept.to_vec().into() })
}
