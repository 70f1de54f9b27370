//! Exploration: which variants of a feature vector still need measuring, what a feature
//! vector's measurements say (its label), and when they say enough.
//!
//! Every feature vector has, per variant, a number of measurements *wanted now*
//! ([`Counts::want`]); an exploring execution runs a variant that is wanted (in turn, or at
//! random), and a vector is assessed again whenever what was wanted has arrived. Because the
//! wants are derived from the measurements (which persist), a new process continues where the
//! last one stopped: a program that runs its region once per process measures one missing
//! pair per run instead of restarting at the first variant.
//!
//! Assessment ([`VectorView::assess`]) with adaptive repetition (the default, `repeats` =
//! [`ADAPTIVE`]):
//! 1. *first pass*: every candidate variant once;
//! 2. *warm data*: the first execution of a variant in a process is *cold* (the first offload
//!    initialises the device, code and data are not in the caches). It is recorded, flagged.
//!    A pair's estimate uses its warm measurements when it has any, else its cold ones. A
//!    vector whose pairs are cold-only wants one warm measurement of each pair this process
//!    can now measure warm (the variant already ran here), before it is labelled. A program
//!    that runs the region once per process never gets warm data: its labels come from cold
//!    measurements, which is what its executions cost;
//! 3. *hint*: when the label disagrees with what the neighbouring feature vectors (or the
//!    trained model) say, the variant they name is measured once more: a single slow
//!    measurement of the true best (preempted) would otherwise decide;
//!    Likewise a variant measured once that loses only by that measurement, far slower than
//!    on the nearest vector where it was measured (where it would win): measured again;
//! 4. *outlier*: a winner whose own two measurements disagree by more than the doubt bar (and
//!    the slower one would make it lose) gets a tie-breaking third;
//! 5. *doubt*: the two fastest estimates (lower quartiles, robust to one-sided slowdowns such as
//!    preemption) are compared in log space against the region's measured noise: while their
//!    gap is within `K · σ · √(1/n₁ + 1/n₂)`, both get another measurement (up to [`CAP`] each,
//!    and stopping when the gap is known to be below [`INDIFFERENT`], where either is fine);
//! 6. then the lowest estimate is the label.
//!
//! Steps 3–5 draw on a region-wide budget of extra measurements (half a pass over the pairs;
//! doubts, the most frequent and least decisive, only a third of a pass: see `measurements`). With
//! fixed repeats (`OMPADAPT_REPEATS=N`) every candidate gets N measurements and the label is
//! the lowest median (or the vote, Liao et al.).
//!
//! Strategies (`OMPADAPT_EXPLORE`, the region's spec field `explore=`, or
//! [`crate::region::Region::set_explore`]) choose among the wanted variants:
//! * `roundrobin` — Apollo's order, restricted to wanted variants, the least measured first (a
//!   process that runs the region once still measures each wanted variant in turn across runs);
//! * `random` — a uniformly random wanted variant (Apollo's `Random`);
//! * `elimination` — successive elimination: alive variants are measured in turn; from the
//!   second round on, a variant whose *fastest* measurement is slower than the best variant's
//!   robust *slowest* one by more than `OMPADAPT_ELIMINATION_MARGIN` is dropped. Decided when
//!   one variant is left or the survivors have `repeats` measurements each (3 when adaptive).
//!
//! Once a vector is decided, its exploring executions run its label (they add measurements of
//! the label, which the noise estimate and drift detection use).
//!
//! One file per part, as Apollo keeps one file per policy: `record` (a vector's measurements
//! and estimates), `view` (recording them), `assess` (the steps above, shared by every
//! strategy), and one file per strategy: `roundrobin`, `random`, `elimination`. This file holds
//! the types every part shares (the strategy, the labeling, [`Params`]) and the dispatch: which
//! strategy's choice an exploring execution runs ([`VectorView::choose`]). The strategies are
//! an enum matched here rather than a trait: there are three, the region stores one as a
//! `Copy` setting, and each strategy's code is a handful of functions its file keeps.

mod assess;
mod elimination;
mod random;
mod record;
mod roundrobin;
mod view;

pub use assess::{Judge, Outcome, CAP, INDIFFERENT, K};
pub use record::{all_mask, is_alive, lower_median, robust_time, Counts, Sample, VectorRecord, FRESH, KEEP, NOVEL, REOPENED, UNDECIDED};
pub use view::VectorView;

use crate::stats::XorShift;

/// `repeats` meaning adaptive repetition (the default): one pass, more where in doubt.
pub const ADAPTIVE: u32 = 0;

/// An exploration strategy: the contract crate's type, which the descriptor's `explore=` names.
pub use ompadapt_abi::descriptor::Explore as Strategy;

/// How repeated measurements become a label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Labeling {
    /// The variant with the fastest median time.
    Median,
    /// The fastest variant of each batch of measurements, majority over batches.
    Vote,
}

impl Labeling {
    /// Parses `median` or `vote`.
    pub fn parse(s: &str) -> Result<Labeling, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "median" => Ok(Labeling::Median),
            "vote" | "majority" => Ok(Labeling::Vote),
            _ => Err(format!("unknown labeling '{s}' (expected median or vote)")),
        }
    }
}

/// What exploration needs to know about the region (copied out of its settings).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Which wanted variant an exploring execution runs.
    pub strategy: Strategy,
    /// Measurements per pair, or [`ADAPTIVE`].
    pub repeats: u32,
    /// How repeated measurements become a label.
    pub labeling: Labeling,
    /// Successive elimination's margin: the fraction by which a variant's fastest measurement
    /// must exceed the best variant's robust slowest one to be dropped.
    pub margin: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params { strategy: Strategy::RoundRobin, repeats: ADAPTIVE, labeling: Labeling::Median, margin: 0.05 }
    }
}

impl Params {
    /// Whether repetition is adaptive.
    pub fn adaptive(&self) -> bool {
        self.repeats == ADAPTIVE
    }

    /// Measurements after which a pair counts as a training sample (adaptive: its first).
    pub fn threshold(&self) -> u32 {
        self.repeats.max(1)
    }
}

impl VectorView<'_> {
    /// The variant the next exploring execution of this vector runs, when the choice is made
    /// under the measurement table's lock (`k` = a position that advances per execution): its label once
    /// decided, else a wanted variant (the least measured in turn, or at random), else the least
    /// measured.
    pub fn choose(&self, p: &Params, k: u64, rng: &mut XorShift) -> usize {
        if let Some(d) = self.rec.decided() {
            return d;
        }
        let wanted: Vec<usize> = (0..self.nv()).filter(|&v| self.counts[v].want > 0 && self.available(v)).collect();
        if wanted.is_empty() {
            return (0..self.nv()).filter(|&v| self.available(v)).min_by_key(|&v| self.counts[v].count).unwrap_or(0);
        }
        match p.strategy {
            Strategy::Random => random::pick(&wanted, rng),
            // elimination measures its surviving variants in turn
            Strategy::RoundRobin | Strategy::Elimination => roundrobin::pick(&wanted, |v| self.counts[v].count, k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn params(strategy: Strategy, repeats: u32) -> Params {
        Params { strategy, repeats, ..Params::default() }
    }

    /// A vector's record and counters owned by the test.
    pub(super) struct Owned(pub VectorRecord, pub Vec<Counts>);

    impl Owned {
        pub(super) fn new(nv: usize) -> Owned {
            let rec = VectorRecord { key_off: 0, nf: 1, flags: 0, decided: UNDECIDED, alive: all_mask(nv), times: Vec::new() };
            Owned(rec, vec![Counts { want: 1, ..Counts::default() }; nv])
        }
        pub(super) fn fv(&mut self) -> VectorView<'_> {
            VectorView { rec: &mut self.0, counts: &mut self.1, off: &[] }
        }
    }

    pub(super) fn judge(sigma: f64, hint: Option<usize>) -> Judge<'static> {
        Judge { sigma, extra_ok: true, doubt_ok: true, hint, near: &|_| None, warm: &|_| false }
    }

    /// Explores one vector with deterministic costs until decided; returns (label, executions).
    pub(super) fn explore(costs: &[f64], p: &Params, noise: impl Fn(usize, usize) -> f64) -> (usize, usize) {
        let mut o = Owned::new(costs.len());
        let mut rng = XorShift::new(1);
        let j = judge(0.03, None);
        for k in 0..10_000 {
            if let Some(l) = o.0.decided() {
                return (l, k);
            }
            let v = o.fv().choose(p, k as u64, &mut rng);
            let (_, due) = o.fv().record(v, costs[v] * noise(v, k), false, p);
            if due {
                o.fv().assess(p, &j);
            }
        }
        panic!("never decided");
    }

    #[test]
    fn parse_names() {
        assert_eq!(Strategy::parse("Round-Robin"), Ok(Strategy::RoundRobin));
        assert_eq!(Strategy::parse("elimination"), Ok(Strategy::Elimination));
        assert!(Strategy::parse("greedy").is_err());
        assert_eq!(Labeling::parse("vote"), Ok(Labeling::Vote));
    }
}
