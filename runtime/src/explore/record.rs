//! A feature vector's measurements as kept (its record, counters and samples) and what they
//! estimate: a variant's robust time, the label among candidates. Everything else in
//! exploration reads these; they read nothing of it but the labeling.

use super::Labeling;

/// Measurements kept per (feature vector, variant) pair: estimates use the most recent `KEEP`
/// to `2·KEEP` (once a pair has `2·KEEP`, its oldest `KEEP` are dropped in one pass, so
/// recording stays O(1) amortised). The pair's count still includes dropped ones.
pub const KEEP: usize = 255;

/// Counters of one (feature vector, variant) pair.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counts {
    /// Measurements recorded (including any no longer retained).
    pub count: u32,
    /// `count` at the last save (persistence writes only what is newer).
    pub saved: u32,
    /// Measurements retained in the vector's sample list.
    pub kept: u16,
    /// Measurements wanted now (see the module documentation).
    pub want: u8,
    /// [`FRESH`].
    pub flags: u8,
}

/// [`Counts::flags`]: the pair's retained measurements were taken after a drift: when saved,
/// they supersede the earlier ones (which stay in the files as history).
pub const FRESH: u8 = 1;

/// One retained measurement: time (ns; f32 keeps 24 bits, far finer than the noise of any
/// measurement), variant, and whether it was the variant's first execution in its process.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The measured time, ns.
    pub ns: f32,
    /// The variant measured.
    pub v: u16,
    /// Whether it was the variant's first execution in its process.
    pub cold: bool,
}

/// "Not decided" in [`VectorRecord::decided`].
pub const UNDECIDED: u16 = u16::MAX;

/// [`VectorRecord::flags`]: re-opened after a drift (labelled again from fresh measurements).
pub const REOPENED: u8 = 1;
/// [`VectorRecord::flags`]: first explored after the region trained (within the learning budget).
pub const NOVEL: u8 = 2;

/// Exploration state of one feature vector, compact (the measurement table keeps its key and per-variant
/// counters in arenas, see `measurements`): 40 bytes plus its samples.
#[derive(Clone, Debug, PartialEq)]
pub struct VectorRecord {
    /// Offset of the key's values in the measurement table's key arena.
    pub key_off: u32,
    /// Number of the key's values (features).
    pub nf: u8,
    /// [`REOPENED`], [`NOVEL`].
    pub flags: u8,
    /// The label once the measurements suffice ([`UNDECIDED`] before).
    pub decided: u16,
    /// Bit v set: variant v is still a candidate (successive elimination; variants past 63
    /// are always candidates).
    pub alive: u64,
    /// Retained measurements, oldest first (at most `2·KEEP` per variant).
    pub times: Vec<Sample>,
}

/// Lower median (the middle value, or the lower of the two middle ones). Reorders `v`; NaN
/// for none.
pub fn lower_median(v: &mut [f64]) -> f64 {
    nth_smallest(v, (v.len().max(1) - 1) / 2)
}

/// A pair's robust time: its lower quartile (the minimum of up to 4 measurements, the
/// second smallest of 5 to 8, ...). Timing noise is mostly one-sided — preemption, interrupts
/// and cache misses only slow a run down — so the low end is the stable one: it stays right
/// with up to three quarters of the measurements slowed. Reorders `v`; NaN for none.
pub fn robust_time(v: &mut [f64]) -> f64 {
    nth_smallest(v, (v.len().max(1) - 1) / 4)
}

fn nth_smallest(v: &mut [f64], k: usize) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    *v.select_nth_unstable_by(k, f64::total_cmp).1
}

impl VectorRecord {
    /// The decision, if any.
    pub fn decided(&self) -> Option<usize> {
        (self.decided != UNDECIDED).then_some(self.decided as usize)
    }

    /// Retained measurements of variant `v`, oldest first.
    pub fn times_of(&self, v: usize) -> Vec<f64> {
        self.times.iter().filter(|s| s.v as usize == v).map(|s| s.ns as f64).collect()
    }

    /// Retained measurements of variant `v` of the given kind, oldest first.
    pub fn times_of_kind(&self, v: usize, cold: bool) -> Vec<f64> {
        self.times.iter().filter(|s| s.v as usize == v && s.cold == cold).map(|s| s.ns as f64).collect()
    }

    /// Fills `buf` with the measurements variant `v`'s estimate uses (warm if it has any, else
    /// cold); returns whether they are cold.
    pub(super) fn estimate_samples(&self, v: usize, buf: &mut Vec<f64>) -> bool {
        buf.clear();
        let mut cold = Vec::new();
        for s in self.times.iter().filter(|s| s.v as usize == v) {
            if s.cold {
                cold.push(s.ns as f64);
            } else {
                buf.push(s.ns as f64);
            }
        }
        if buf.is_empty() {
            *buf = cold;
            return true;
        }
        false
    }

    /// The robust time of variant `v` ([`robust_time`] of its warm measurements, else of its
    /// cold ones) and how many measurements it rests on.
    pub fn estimate(&self, v: usize) -> Option<(f64, usize)> {
        let mut buf = Vec::new();
        self.estimate_samples(v, &mut buf);
        let n = buf.len();
        (n > 0).then(|| (robust_time(&mut buf), n))
    }

    /// Median of variant `v`'s retained measurements (reports).
    pub fn median(&self, v: usize) -> Option<f64> {
        crate::stats::median_f64(&self.times_of(v))
    }

    /// The label among `candidates` by `labeling`; None if a candidate has no measurement.
    pub fn label_among(&self, candidates: &[usize], labeling: Labeling) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        let mut est = Vec::with_capacity(candidates.len());
        for &v in candidates {
            let (m, _) = self.estimate(v)?;
            est.push((v, m));
            if !best.is_some_and(|(_, bm)| bm <= m) {
                best = Some((v, m));
            }
        }
        if labeling == Labeling::Median || candidates.len() < 2 {
            return best.map(|(v, _)| v);
        }
        // Liao et al.'s vote: the b-th measurements of the candidates form batch b, each batch
        // elects its fastest; most wins, ties go to the lower estimate
        let series: Vec<Vec<f64>> = candidates
            .iter()
            .map(|&v| {
                let mut b = Vec::new();
                self.estimate_samples(v, &mut b);
                b
            })
            .collect();
        let batches = series.iter().map(Vec::len).min().unwrap_or(0);
        let mut wins = vec![0usize; candidates.len()];
        #[allow(clippy::needless_range_loop)] // batch b across every candidate's series
        for b in 0..batches {
            let w = (0..candidates.len()).fold(0, |w, i| if series[i][b] < series[w][b] { i } else { w });
            wins[w] += 1;
        }
        let top = *wins.iter().max()?;
        est.iter()
            .enumerate()
            .filter(|(i, _)| wins[*i] == top)
            .fold(None, |b: Option<(usize, f64)>, (_, &(v, m))| match b {
                Some((_, bm)) if bm <= m => b,
                _ => Some((v, m)),
            })
            .map(|(v, _)| v)
    }
}

/// Whether variant `v` is a candidate under `alive`.
#[inline]
pub fn is_alive(alive: u64, v: usize) -> bool {
    v >= 64 || alive >> v & 1 == 1
}

/// Bits 0..n set.
pub fn all_mask(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::tests::{judge, params, Owned};
    use crate::explore::{Params, Strategy};

    #[test]
    fn lower_medians() {
        assert!(lower_median(&mut []).is_nan());
        assert_eq!(lower_median(&mut [5.0]), 5.0);
        assert_eq!(lower_median(&mut [9.0, 1.0]), 1.0);
        assert_eq!(lower_median(&mut [9.0, 1.0, 5.0]), 5.0);
        assert_eq!(lower_median(&mut [9.0, 1.0, 5.0, 3.0]), 3.0);
        assert_eq!(robust_time(&mut [9.0, 1.0, 5.0, 3.0]), 1.0);
        assert_eq!(robust_time(&mut [9.0, 1.0, 5.0, 3.0, 7.0]), 3.0);
    }

    #[test]
    fn vote_labels() {
        let p = Params { labeling: Labeling::Vote, ..params(Strategy::RoundRobin, 3) };
        let mut o = Owned::new(2);
        // batches: (10 vs 11), (10 vs 11), (1000 vs 11): variant 0 wins 2 of 3 batches
        for (a, b) in [(10.0, 11.0), (10.0, 11.0), (1000.0, 11.0)] {
            o.fv().record(0, a, false, &p);
            o.fv().record(1, b, false, &p);
        }
        o.fv().assess(&p, &judge(0.03, None));
        assert_eq!(o.0.decided(), Some(0));
        // a vote tie goes to the lower estimate
        let mut o = Owned::new(2);
        for (a, b) in [(10.0, 11.0), (13.0, 11.0)] {
            o.fv().record(0, a, false, &p);
            o.fv().record(1, b, false, &p);
        }
        assert_eq!(o.0.label_among(&[0, 1], Labeling::Vote), Some(0));
    }
}
