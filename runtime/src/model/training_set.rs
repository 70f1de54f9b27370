//! Training data with times: per feature vector, the measured time of every variant.
//!
//! A classifier only needs each vector's fastest variant; a cost model needs the times
//! themselves, and a regret-aware learner needs to know how much a wrong choice loses. [`TrainingSet`]
//! keeps all of it: `n` feature vectors × `p` features, `n × k` times (NaN: that variant was not
//! measured on that vector, e.g. eliminated early), and each vector's label (the variant measured
//! fastest, or the exploration's decision when it decided without measuring everything).

use super::data::Table;
use crate::ctx::MAX_FEATURES;
use crate::spec::MAX_VARIANTS;

/// Regret charged for choosing a variant that was never measured on a vector (eliminated
/// variants were confidently slower; how much is unknown): at least this, or the vector's
/// largest measured regret if that is larger.
pub const UNMEASURED_REGRET: f64 = 1.0;

/// Smallest classifier weight ([`TrainingSet::regret_weights`]).
pub const MIN_WEIGHT: f64 = 0.01;
/// Largest classifier weight ([`TrainingSet::regret_weights`]).
pub const MAX_WEIGHT: f64 = 2.0;

/// Feature vectors with per-variant times and labels.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingSet {
    /// Columns (at least 1, at most [`MAX_FEATURES`]); shorter rows are zero-padded.
    pub p: usize,
    /// Variants.
    pub k: usize,
    /// `n × p` features, row-major.
    pub x: Vec<f64>,
    /// `n × k` times (any unit; NaN = not measured), row-major.
    pub t: Vec<f64>,
    /// Label of each vector (its best variant).
    pub y: Vec<u16>,
}

impl TrainingSet {
    /// Builds the table from feature rows and per-variant times (`times[i][v]`, NaN or a
    /// negative/infinite value = not measured). A vector with no measured variant is dropped;
    /// labels are the fastest measured variant (ties: the lower index).
    pub fn new(rows: &[Vec<f64>], times: &[Vec<f64>], k: usize) -> Result<TrainingSet, String> {
        TrainingSet::with_labels(rows, times, k, None)
    }

    /// [`TrainingSet::new`] with explicit labels (the exploration's decisions); a label must be a
    /// variant `< k`.
    pub fn with_labels(rows: &[Vec<f64>], times: &[Vec<f64>], k: usize, labels: Option<&[usize]>) -> Result<TrainingSet, String> {
        if rows.len() != times.len() || labels.is_some_and(|l| l.len() != rows.len()) {
            return Err(format!("{} feature rows for {} time rows", rows.len(), times.len()));
        }
        if k == 0 || k > MAX_VARIANTS {
            return Err(format!("{k} variants (expected 1 to {MAX_VARIANTS})"));
        }
        let p = rows.iter().map(Vec::len).max().unwrap_or(0).clamp(1, MAX_FEATURES);
        let mut c = TrainingSet { p, k, x: Vec::new(), t: Vec::new(), y: Vec::new() };
        for (i, (r, ts)) in rows.iter().zip(times).enumerate() {
            let row_t: Vec<f64> = (0..k).map(|v| ts.get(v).copied().filter(|t| t.is_finite() && *t >= 0.0).unwrap_or(f64::NAN)).collect();
            let best = argmin(&row_t);
            let label = match labels {
                Some(l) if l[i] < k => Some(l[i]),
                Some(l) => return Err(format!("label {} is not one of {k} variants", l[i])),
                None => best,
            };
            let Some(label) = label else { continue };
            c.x.extend((0..p).map(|j| r.get(j).copied().unwrap_or(0.0)));
            c.t.extend(row_t);
            c.y.push(label as u16);
        }
        if c.y.is_empty() {
            return Err("no feature vector has a measured variant".to_owned());
        }
        Ok(c)
    }

    /// From per-pair times `(features, variant, time)`, one row per distinct feature vector
    /// (pairs given twice: the later one wins; give medians).
    pub fn from_pairs(pairs: &[(Vec<f64>, usize, f64)], k: usize) -> Result<TrainingSet, String> {
        let mut rows: Vec<Vec<f64>> = Vec::new();
        let mut times: Vec<Vec<f64>> = Vec::new();
        let mut index = std::collections::HashMap::new();
        for (f, v, t) in pairs {
            if *v >= k {
                continue;
            }
            let key = crate::stats::FeatureKey::new(f);
            let i = *index.entry(key).or_insert_with(|| {
                rows.push(key.values());
                times.push(vec![f64::NAN; k]);
                rows.len() - 1
            });
            times[i][*v] = *t;
        }
        TrainingSet::new(&rows, &times, k)
    }

    /// Number of feature vectors.
    pub fn n(&self) -> usize {
        self.y.len()
    }

    /// Features of vector `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.x[i * self.p..(i + 1) * self.p]
    }

    /// Times of vector `i`.
    pub fn times(&self, i: usize) -> &[f64] {
        &self.t[i * self.k..(i + 1) * self.k]
    }

    /// Vector `i` zero-padded to [`MAX_FEATURES`] (the inference input).
    pub fn padded(&self, i: usize) -> [f64; MAX_FEATURES] {
        let mut out = [0.0; MAX_FEATURES];
        out[..self.p].copy_from_slice(self.row(i));
        out
    }

    /// Whether every variant was measured on vector `i`.
    pub fn complete(&self, i: usize) -> bool {
        self.times(i).iter().all(|t| !t.is_nan())
    }

    /// Fraction of vector `i`'s best time lost by running `v` there: `t_v / t_best - 1` (0 for
    /// the label itself; for a variant never measured there, [`UNMEASURED_REGRET`] or the largest
    /// measured regret, whichever is larger).
    pub fn regret(&self, i: usize, v: usize) -> f64 {
        let ts = self.times(i);
        let y = self.y[i] as usize;
        if v == y {
            return 0.0;
        }
        let best = ts[y];
        let r = |t: f64| {
            if best > 0.0 {
                (t / best - 1.0).max(0.0)
            } else if t > 0.0 {
                UNMEASURED_REGRET
            } else {
                0.0
            }
        };
        if ts[v].is_nan() || best.is_nan() {
            ts.iter().filter(|t| !t.is_nan()).map(|&t| r(t)).fold(UNMEASURED_REGRET, f64::max)
        } else {
            r(ts[v])
        }
    }

    /// Per vector, what a wrong choice loses there: the mean regret of the variants other than
    /// its label, clamped to [`MIN_WEIGHT`, `MAX_WEIGHT`] (a near-tie still counts a little; one
    /// catastrophic variant does not outweigh many vectors). Weights for classifiers.
    ///
    /// Measured on the controlled shapes of the `ompadapt-evaluate` crate's `synthetic` module
    /// (Adaptive-50, 5 seeds): about neutral against unit weights for CART trees and forests
    /// (within ±1 point); a fully cost-sensitive tree (splits and leaves by summed regret) was
    /// measured clearly worse (depth 4 on crossover-nk: 74 % vs 83 % within 5 %) and is not used.
    pub fn regret_weights(&self) -> Vec<f64> {
        (0..self.n())
            .map(|i| {
                let others: Vec<f64> = (0..self.k).filter(|&v| v != self.y[i] as usize).map(|v| self.regret(i, v)).collect();
                if others.is_empty() {
                    return 1.0;
                }
                (others.iter().sum::<f64>() / others.len() as f64).clamp(MIN_WEIGHT, MAX_WEIGHT)
            })
            .collect()
    }

    /// The rows `idx` (in that order).
    pub fn subset(&self, idx: &[usize]) -> TrainingSet {
        let mut c = TrainingSet { p: self.p, k: self.k, x: Vec::new(), t: Vec::new(), y: Vec::new() };
        for &i in idx {
            c.x.extend_from_slice(self.row(i));
            c.t.extend_from_slice(self.times(i));
            c.y.push(self.y[i]);
        }
        c
    }

    /// The best single variant: the least total time over the vectors with every variant
    /// measured (ties: the lower index), else (no complete vector) the most frequent label.
    pub fn best_single_variant(&self) -> usize {
        let complete: Vec<usize> = (0..self.n()).filter(|&i| self.complete(i)).collect();
        if complete.is_empty() {
            let mut counts = vec![0usize; self.k];
            for &y in &self.y {
                counts[y as usize] += 1;
            }
            return (0..self.k).fold(0, |b, v| if counts[v] > counts[b] { v } else { b });
        }
        let total = |v: usize| complete.iter().map(|&i| self.times(i)[v]).sum::<f64>();
        (0..self.k).fold(0, |b, v| if total(v) < total(b) { v } else { b })
    }

    /// Whether every feature has one value over all vectors (nothing tells them apart).
    pub fn features_constant(&self) -> bool {
        (1..self.n()).all(|i| self.row(i) == self.row(0))
    }

    /// The labels as a classifier's table.
    pub fn table(&self) -> Table {
        Table { p: self.p, x: self.x.clone(), y: self.y.clone(), k: self.y.iter().map(|&y| y as usize + 1).max().unwrap_or(1) }
    }
}

/// Index of the smallest non-NaN value (ties: the lower index).
pub fn argmin(ts: &[f64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (v, &t) in ts.iter().enumerate() {
        if !t.is_nan() && best.is_none_or(|b| t < ts[b]) {
            best = Some(v);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_regret_and_missing_times() {
        let nan = f64::NAN;
        let rows = vec![vec![1.0], vec![2.0, 5.0], vec![3.0]];
        let times = vec![vec![10.0, 12.0, 30.0], vec![nan, 4.0, nan], vec![nan, nan, nan]];
        let c = TrainingSet::new(&rows, &times, 3).unwrap();
        assert_eq!((c.n(), c.p, c.k), (2, 2, 3), "the vector without times is dropped");
        assert_eq!(c.y, vec![0, 1]);
        assert!(c.complete(0) && !c.complete(1));
        assert!((c.regret(0, 1) - 0.2).abs() < 1e-12 && (c.regret(0, 2) - 2.0).abs() < 1e-12);
        assert_eq!(c.regret(1, 1), 0.0);
        assert_eq!(c.regret(1, 0), UNMEASURED_REGRET);
        assert_eq!(c.row(1), &[2.0, 5.0]);
        assert_eq!(c.subset(&[1]).y, vec![1]);
        let l = TrainingSet::with_labels(&rows[..1], &times[..1], 3, Some(&[1])).unwrap();
        assert_eq!(l.y, vec![1]);
        assert!(TrainingSet::with_labels(&rows[..1], &times[..1], 3, Some(&[3])).is_err());
        let w = c.regret_weights();
        assert!((w[0] - 1.1).abs() < 1e-12 && w[1] == UNMEASURED_REGRET, "{w:?}");
        let pairs = vec![(vec![1.0], 0, 5.0), (vec![1.0], 1, 3.0), (vec![2.0], 1, 1.0)];
        let c = TrainingSet::from_pairs(&pairs, 2).unwrap();
        assert_eq!((c.n(), c.y.clone()), (2, vec![1, 1]));
    }
}
