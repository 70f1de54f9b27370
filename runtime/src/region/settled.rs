//! Whether a trained model's decision for a vector it was not trained on needs measuring.
//!
//! After training, a recurring vector the model has no label for is explored (within the
//! `OMPADAPT_LEARN` budget) so that the model learns it. Where the trained vectors around it all
//! agree, with every other variant far slower, measuring it again only costs: a loop whose trip
//! count takes thousands of values (a triangular solver's shrinking loops) would explore slow
//! variants on each of them. Such a vector is *settled*: it lies inside the box of its nearest
//! trained vectors (interpolation, not extrapolation: a size beyond the trained ones is still
//! explored), each of them labelled with the model's decision, each with every other measured
//! variant at least [`MARGIN`] times slower.

use crate::drift::TimeModel;
use crate::stats::FeatureKey;

/// Trained vectors around a new one that must agree.
const NEIGHBOURS: usize = 4;

/// How much slower every other variant must have been on each of them.
pub const MARGIN: f64 = 2.0;

/// Distance between two vectors in log space (sizes spread over decades weigh alike).
fn distance(a: &FeatureKey, b: &FeatureKey) -> f64 {
    let n = a.len().max(b.len());
    (0..n)
        .map(|j| {
            let (x, y) = (if j < a.len() { a.get(j) } else { 0.0 }, if j < b.len() { b.get(j) } else { 0.0 });
            let d = x.abs().ln_1p().copysign(x) - y.abs().ln_1p().copysign(y);
            d * d
        })
        .sum()
}

/// Whether `label` won on `key` by [`MARGIN`] over every other measured variant of `nv`.
fn clear_winner(time: &TimeModel, key: &FeatureKey, label: usize, nv: usize) -> bool {
    let Some(best) = time.predict(key, label) else { return false };
    (0..nv).filter(|&u| u != label).filter_map(|u| time.predict(key, u)).all(|t| t >= MARGIN * best)
}

/// Whether `decision` for `key` (not among `labels`) is settled by the trained vectors around
/// it (see the module documentation).
pub fn settled(labels: &[(FeatureKey, usize)], time: &TimeModel, nv: usize, key: &FeatureKey, decision: usize) -> bool {
    if labels.len() < NEIGHBOURS {
        return false;
    }
    let mut near: Vec<(f64, &(FeatureKey, usize))> = labels.iter().map(|l| (distance(key, &l.0), l)).collect();
    let k = NEIGHBOURS.min(near.len());
    near.select_nth_unstable_by(k - 1, |a, b| a.0.total_cmp(&b.0));
    let near = &near[..k];
    let inside = (0..key.len()).all(|j| {
        let x = key.get(j);
        let (lo, hi) = near.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, (k, _))| {
            let v = if j < k.len() { k.get(j) } else { 0.0 };
            (lo.min(v), hi.max(v))
        });
        lo <= x && x <= hi
    });
    inside && near.iter().all(|(_, (k, l))| *l == decision && clear_winner(time, k, *l, nv))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(x: f64) -> FeatureKey {
        FeatureKey::new(&[x, 7.0])
    }

    /// Sizes 100..1000 step 100, variant 0 three times faster below 600, variant 1 above.
    fn trained() -> (Vec<(FeatureKey, usize)>, TimeModel) {
        let mut labels = Vec::new();
        let mut times = Vec::new();
        for n in (100..=1000).step_by(100) {
            let l = usize::from(n > 600);
            labels.push((key(n as f64), l));
            times.push((key(n as f64), l, 10.0));
            times.push((key(n as f64), 1 - l, 30.0));
        }
        (labels, TimeModel::fit(&times, 2))
    }

    #[test]
    fn inside_agreeing_neighbours_is_settled() {
        let (labels, time) = trained();
        assert!(settled(&labels, &time, 2, &key(250.0), 0));
        assert!(settled(&labels, &time, 2, &key(850.0), 1));
        // the model deciding otherwise than the neighbours: not settled
        assert!(!settled(&labels, &time, 2, &key(250.0), 1));
    }

    #[test]
    fn near_a_crossover_or_beyond_the_trained_sizes_it_is_not() {
        let (labels, time) = trained();
        // the nearest four straddle the crossover
        assert!(!settled(&labels, &time, 2, &key(650.0), 1));
        // extrapolation
        assert!(!settled(&labels, &time, 2, &key(5000.0), 1));
        assert!(!settled(&labels, &time, 2, &key(20.0), 0));
        // a narrow margin
        let mut times = Vec::new();
        for (k, l) in &labels {
            times.push((*k, *l, 10.0));
            times.push((*k, 1 - *l, 15.0));
        }
        assert!(!settled(&labels, &TimeModel::fit(&times, 2), 2, &key(250.0), 0));
        // too few trained vectors
        assert!(!settled(&labels[..3], &time, 2, &key(250.0), 0));
    }
}
