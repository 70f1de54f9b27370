//! A feature vector's record borrowed with its counters: which variants may run and are
//! wanted, and recording a measurement (retention, the noise deviation, re-opening after a
//! drift, which pairs count as training samples). Assessing what was recorded is `assess`.

use super::record::{all_mask, is_alive, lower_median, Counts, Sample, VectorRecord, FRESH, KEEP, NOVEL, REOPENED, UNDECIDED};
use super::{Params, Strategy};

/// A feature vector's record with its counters, borrowed from the measurement table.
pub struct VectorView<'a> {
    /// The vector's record.
    pub rec: &'a mut VectorRecord,
    /// Its counters, one per variant.
    pub counts: &'a mut [Counts],
    /// Variants unavailable in this run (`off[v]`; shorter than the variants: the rest are
    /// available): never candidates, never wanted, never the label.
    pub off: &'a [bool],
}

impl VectorView<'_> {
    pub(super) fn nv(&self) -> usize {
        self.counts.len()
    }

    /// Whether variant `v` may run in this process (see [`VectorView::off`]).
    #[inline]
    pub fn available(&self, v: usize) -> bool {
        !self.off.get(v).copied().unwrap_or(false)
    }

    pub(super) fn candidates(&self, p: &Params) -> Vec<usize> {
        let alive = if p.strategy == Strategy::Elimination { self.rec.alive } else { u64::MAX };
        (0..self.nv()).filter(|&v| is_alive(alive, v) && self.available(v)).collect()
    }

    /// Whether any measurement is wanted.
    pub fn wants_any(&self) -> bool {
        self.counts.iter().enumerate().any(|(v, c)| c.want > 0 && self.available(v))
    }

    /// Records one measurement of variant `v`. Returns, for the region's noise estimate, the
    /// deviation `|ln(ns / earlier)|` from the pair's earlier measurements of the same kind
    /// (while it has few), and whether the vector must be assessed now.
    #[inline]
    pub fn record(&mut self, v: usize, ns: f64, cold: bool, p: &Params) -> (Option<f64>, bool) {
        let deviation = self.deviation(v, ns, cold);
        if self.rec.times.capacity() == 0 {
            // most vectors end with one or two measurements per variant: size for that
            let n = self.nv() * (p.repeats.max(1) as usize).min(KEEP);
            self.rec.times.reserve_exact(n);
        }
        self.keep(v, ns, cold);
        let c = &mut self.counts[v];
        c.count = c.count.saturating_add(1);
        c.want = c.want.saturating_sub(1);
        let due = self.rec.decided == UNDECIDED && (p.strategy == Strategy::Elimination || !self.wants_any());
        (deviation, due)
    }

    /// `|ln(ns / the lower median of v's earlier measurements of the same kind)|` while the pair
    /// has 1 to 8 of them.
    fn deviation(&self, v: usize, ns: f64, cold: bool) -> Option<f64> {
        if ns.is_nan() || ns <= 0.0 || self.counts[v].kept == 0 {
            return None;
        }
        let mut warm: Vec<f64> = Vec::new();
        for s in self.rec.times.iter().filter(|s| s.v as usize == v && s.cold == cold) {
            warm.push(s.ns as f64);
            if warm.len() > 8 {
                return None;
            }
        }
        if warm.is_empty() {
            return None;
        }
        let m = lower_median(&mut warm);
        (m > 0.0).then(|| (ns / m).ln().abs())
    }

    /// Retains a measurement of `v` (see [`KEEP`]).
    #[inline]
    pub fn keep(&mut self, v: usize, ns: f64, cold: bool) {
        if self.counts[v].kept as usize >= 2 * KEEP {
            self.drop_oldest(v, KEEP);
        }
        self.counts[v].kept += 1;
        let times = &mut self.rec.times;
        if times.capacity() == 0 {
            times.reserve_exact(self.counts.len());
        }
        times.push(Sample { ns: ns as f32, v: v as u16, cold });
    }

    /// Drops the oldest `n` retained measurements of `v`.
    #[cold]
    #[inline(never)]
    pub fn drop_oldest(&mut self, v: usize, n: usize) {
        let mut drop = n;
        self.rec.times.retain(|s| {
            let old = s.v as usize == v && drop > 0;
            drop -= old as usize;
            !old
        });
        self.counts[v].kept -= (n - drop) as u16;
    }

    /// Forgets the retained measurements of every variant (drift: they describe costs that no
    /// longer hold; the files keep them) and asks for a fresh pass. Counts are kept.
    pub fn reopen(&mut self) {
        self.rec.times.clear();
        self.rec.decided = UNDECIDED;
        self.rec.alive = all_mask(self.nv());
        self.rec.flags = REOPENED | (self.rec.flags & NOVEL);
        for c in self.counts.iter_mut() {
            c.kept = 0;
            c.want = 1;
            c.flags |= FRESH;
        }
    }

    /// Pairs that count as training samples: `threshold` measurements, or at least one when
    /// the variant was eliminated or the vector is decided (the strategy needs no more). A
    /// variant unavailable in this run counts as done: no measurement of it will come.
    pub fn counted_pairs(&self, p: &Params) -> u32 {
        let done = self.rec.decided != UNDECIDED;
        let elim = p.strategy == Strategy::Elimination;
        let r = p.threshold();
        (0..self.nv())
            .filter(|&v| {
                let c = self.counts[v].count;
                !self.available(v) || c >= r || (c >= 1 && (done || (elim && !is_alive(self.rec.alive, v))))
            })
            .count() as u32
    }
}

/// Asks for at least `n` more measurements of variant `v` (at most 255 pending).
pub(super) fn want_more(counts: &mut [Counts], v: usize, n: u32) {
    counts[v].want = counts[v].want.max(n.min(u8::MAX as u32) as u8);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::tests::{params, Owned};

    #[test]
    fn keeps_the_most_recent_per_variant() {
        let p = params(Strategy::RoundRobin, 1);
        let mut o = Owned::new(2);
        for i in 0..(2 * KEEP + 10) {
            o.fv().record(0, i as f64, false, &p);
            if i % 50 == 0 {
                o.fv().record(1, 7.0, false, &p);
            }
        }
        assert_eq!(o.1[0].count as usize, 2 * KEEP + 10);
        let t = o.0.times_of(0);
        assert_eq!((t.len(), t[0], *t.last().unwrap()), (KEEP + 10, KEEP as f64, (2 * KEEP + 9) as f64));
        assert_eq!(o.1[0].kept as usize, KEEP + 10);
        assert_eq!(o.0.times_of(1).len(), 11);
        assert_eq!(std::mem::size_of::<VectorRecord>(), 40);
        assert_eq!(std::mem::size_of::<Sample>(), 8);
        assert_eq!(std::mem::size_of::<Counts>(), 12);
    }
}
