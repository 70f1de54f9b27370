//! Assessment: after a vector's wanted measurements arrived, what it wants next or its label
//! (the steps of `explore`'s documentation: first pass, warm data, hint, outlier, doubt).
//! Shared by every strategy; successive elimination adds its own rounds (`elimination`).

use super::record::{robust_time, UNDECIDED};
use super::view::{want_more, VectorView};
use super::{Params, Strategy};

/// Most measurements adaptive repetition asks of one pair.
pub const CAP: usize = 6;

/// Two variants whose times are known to differ by less than this fraction are equally good:
/// adaptive repetition stops measuring them.
pub const INDIFFERENT: f64 = 0.10;

/// Confidence multiplier of the doubt test (about 99 % one-sided for a normal gap).
pub const K: f64 = 2.5;

/// What an assessment needs from the region.
pub struct Judge<'a> {
    /// The region's relative timing noise (σ of the log of a measurement).
    pub sigma: f64,
    /// Whether extra measurements are still within budget: for hints and tie-breaks, and (a
    /// smaller share) for doubts.
    pub extra_ok: bool,
    /// Whether doubts (the two fastest within the noise) may still ask for more.
    pub doubt_ok: bool,
    /// The label the neighbouring vectors or the trained model suggest (measured twice before
    /// another variant wins).
    pub hint: Option<usize>,
    /// Variant `v`'s robust time on the nearest other vector where it was measured.
    pub near: &'a dyn Fn(usize) -> Option<f64>,
    /// Whether this process's next execution of variant `v` is warm.
    pub warm: &'a dyn Fn(usize) -> bool,
}

/// What an assessment changed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Change in counted pairs.
    pub counted: i64,
    /// The vector became decided.
    pub decided: bool,
    /// Extra measurements it asked for (against the budget).
    pub extras: u32,
}

impl VectorView<'_> {
    /// Assesses the vector after its wanted measurements arrived: sets what is wanted next, or
    /// the label (see the module documentation).
    pub fn assess(&mut self, p: &Params, j: &Judge) -> Outcome {
        let before = self.counted_pairs(p);
        let mut out = Outcome::default();
        if self.rec.decided == UNDECIDED {
            if p.strategy == Strategy::Elimination {
                self.eliminate(p);
            }
            match self.next_wants(p, j) {
                Ok(label) => {
                    self.rec.decided = label as u16;
                    out.decided = true;
                }
                Err(extras) => out.extras = extras,
            }
        }
        out.counted = self.counted_pairs(p) as i64 - before as i64;
        out
    }

    /// Either the label, or sets the wants and returns the extra measurements asked for.
    fn next_wants(&mut self, p: &Params, j: &Judge) -> Result<usize, u32> {
        let cands = self.candidates(p);
        if cands.is_empty() {
            return Err(0); // every variant unavailable: nothing to measure or to label
        }
        let mut buf = Vec::new();
        if self.want_first_pass(p, &cands) || self.want_warm(&cands, j, &mut buf) {
            return Err(0);
        }
        if cands.len() == 1 {
            return Ok(cands[0]);
        }
        if p.strategy == Strategy::Elimination {
            return self.elimination_label(p, &cands);
        }
        if !p.adaptive() {
            return self.rec.label_among(&cands, p.labeling).ok_or(0);
        }
        self.adaptive_label(&cands, j, &mut buf)
    }

    /// Step 1: the first pass, or the fixed number of repeats (measurements of either kind, as
    /// training samples count them): whether some are still missing (then wanted).
    fn want_first_pass(&mut self, p: &Params, cands: &[usize]) -> bool {
        let per_pair = if p.adaptive() { 1 } else { p.repeats };
        let target = if p.strategy == Strategy::Elimination { p.elimination_rounds().min(2) } else { per_pair };
        let mut missing = false;
        for &v in cands {
            let have = self.counts[v].kept as u32;
            if have < target {
                want_more(self.counts, v, target - have);
                missing = true;
            }
        }
        missing
    }

    /// Step 2: warm data where this process can get it: whether some is wanted.
    fn want_warm(&mut self, cands: &[usize], j: &Judge, buf: &mut Vec<f64>) -> bool {
        let mut warming = false;
        for &v in cands {
            if self.rec.estimate_samples(v, buf) && (j.warm)(v) {
                want_more(self.counts, v, 1);
                warming = true;
            }
        }
        warming
    }

    /// Steps 3–5, adaptive repetition: the fastest by robust time, unless a doubt asks for more.
    fn adaptive_label(&mut self, cands: &[usize], j: &Judge, buf: &mut Vec<f64>) -> Result<usize, u32> {
        let mut est: Vec<(usize, f64, usize)> = Vec::with_capacity(cands.len());
        for &v in cands {
            self.rec.estimate_samples(v, buf);
            let n = buf.len();
            est.push((v, robust_time(buf), n));
        }
        est.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        if j.extra_ok {
            if let Some(extras) = self.doubts(&est, j, buf) {
                return Err(extras);
            }
        }
        Ok(est[0].0)
    }

    /// The extra measurements a doubt about the label asks for (`est` sorted by robust time:
    /// variant, time, measurements), or None when the fastest is clear.
    fn doubts(&mut self, est: &[(usize, f64, usize)], j: &Judge, buf: &mut Vec<f64>) -> Option<u32> {
        let (b, eb, nb) = est[0];
        let (s, es, ns) = est[1];
        let sigma = j.sigma.max(1e-3);
        let bar = |n1: usize, n2: usize| K * sigma * (1.0 / n1 as f64 + 1.0 / n2 as f64).sqrt();
        let gap = if eb > 0.0 && es > 0.0 { (es / eb).ln() } else { f64::INFINITY };
        // the neighbours' (or the model's) label, measured twice before it loses: one
        // slow measurement of the true best (preempted) would otherwise decide
        if let Some(&(h, _, nh)) = j.hint.and_then(|h| est.iter().find(|e| e.0 == h && h != b)) {
            if nh < 2 {
                want_more(self.counts, h, 1);
                return Some(1);
            }
        }
        // a variant measured once, far slower than on the nearest vector, where it would
        // win: a spike (a preemption) rather than its cost, until measured again
        if let Some(&(c, _, _)) = est[1..].iter().find(|&&(c, e, n)| n == 1 && (j.near)(c).is_some_and(|t| t < eb && e > 2.0 * t)) {
            want_more(self.counts, c, 1);
            return Some(1);
        }
        // the winner's own two measurements disagree, and the other one would make it lose
        // (its estimate, their minimum, may be the odd one): a tie-breaking third
        if nb == 2 {
            self.rec.estimate_samples(b, buf);
            let (lo, hi) = (buf[0].min(buf[1]), buf[0].max(buf[1]));
            if lo > 0.0 && (hi / lo).ln() > bar(1, 1) && hi > es {
                want_more(self.counts, b, 1);
                return Some(1);
            }
        }
        // the two fastest within the noise: both again, until one is ahead or they are
        // known to be equally good
        let doubt = gap < bar(nb, ns) && gap + bar(nb, ns) > INDIFFERENT.ln_1p();
        if j.doubt_ok && doubt && (nb < CAP || ns < CAP) {
            let mut extras = 0;
            for (v, n) in [(b, nb), (s, ns)] {
                if n < CAP {
                    want_more(self.counts, v, 1);
                    extras += 1;
                }
            }
            return Some(extras);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use crate::explore::tests::{explore, judge, params, Owned};
    use crate::explore::*;

    /// wrong only if nothing notices; fixed repeats of 3 and adaptive repetition (which sees
    /// the two fastest within the noise) both keep the right label.
    #[test]
    fn repetition_survives_an_outlier() {
        let preempt = |v: usize, k: usize| if v == 0 && k == 0 { 1.25 } else { 1.0 };
        assert_eq!(explore(&[10.0, 12.0], &params(Strategy::RoundRobin, 1), preempt).0, 1, "one each: wrong");
        assert_eq!(explore(&[10.0, 12.0], &params(Strategy::RoundRobin, 3), preempt).0, 0);
        assert_eq!(explore(&[10.0, 12.0], &params(Strategy::Elimination, 3), preempt).0, 0);
        let (label, n) = explore(&[10.0, 12.0], &params(Strategy::RoundRobin, ADAPTIVE), preempt);
        assert_eq!(label, 0);
        assert!(n <= 5, "{n}");
        // clearly apart: one pass
        assert_eq!(explore(&[10.0, 30.0, 20.0], &params(Strategy::RoundRobin, ADAPTIVE), |_, _| 1.0), (0, 3));
    }

    /// The neighbours' label is measured twice before another variant wins: a single slow
    /// measurement of the true best is caught even when it looks far slower.
    #[test]
    fn a_hint_is_measured_again() {
        let p = params(Strategy::RoundRobin, ADAPTIVE);
        let mut o = Owned::new(3);
        for (v, t) in [(0, 50.0), (1, 20.0), (2, 40.0)] {
            o.fv().record(v, t, false, &p); // variant 0 preempted: really 10
        }
        let out = o.fv().assess(&p, &judge(0.03, Some(0)));
        assert_eq!((o.0.decided(), out.extras), (None, 1));
        assert_eq!(o.1.iter().map(|c| c.want).collect::<Vec<_>>(), vec![1, 0, 0]);
        let (_, due) = o.fv().record(0, 10.0, false, &p);
        assert!(due);
        o.fv().assess(&p, &judge(0.03, Some(0)));
        assert_eq!(o.0.decided(), None, "its two measurements disagree about the label: a third");
        o.fv().record(0, 10.5, false, &p);
        o.fv().assess(&p, &judge(0.03, Some(0)));
        assert_eq!(o.0.decided(), Some(0));
    }

    /// Cold-only pairs are measured warm once where this process can, before labelling.
    #[test]
    fn warm_measurements_are_wanted_where_possible() {
        let p = params(Strategy::RoundRobin, ADAPTIVE);
        let mut o = Owned::new(2);
        o.fv().record(0, 5000.0, true, &p);
        o.fv().record(1, 200.0, true, &p);
        let j = Judge { sigma: 0.03, extra_ok: true, doubt_ok: true, hint: None, near: &|_| None, warm: &|_| true };
        o.fv().assess(&p, &j);
        assert_eq!((o.0.decided(), o.1[0].want, o.1[1].want), (None, 1, 1));
        o.fv().record(0, 100.0, false, &p);
        o.fv().record(1, 200.0, false, &p);
        o.fv().assess(&p, &j);
        assert_eq!(o.0.decided(), Some(0), "warm data decide");
        // a process that cannot measure warm decides from cold data
        let mut o = Owned::new(2);
        o.fv().record(0, 5000.0, true, &p);
        o.fv().record(1, 200.0, true, &p);
        o.fv().assess(&p, &judge(0.03, None));
        assert_eq!(o.0.decided(), Some(1));
    }
}
