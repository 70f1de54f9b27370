//! Exploration: which variant an exploring execution of a feature vector runs, what a feature
//! vector's measurements say (its label), and when they say enough.
//!
//! Strategies (`OMPADAPT_EXPLORE`, the region's spec field `explore=`, or
//! [`crate::region::Region::set_explore`]):
//! * `roundrobin` — Apollo's: every variant in turn, per feature vector. A vector is decided
//!   once every variant has `repeats` measurements; exploration keeps cycling after that (more
//!   data, as Apollo does) until the region trains.
//! * `random` — Apollo's: a uniformly random variant per execution; decided like round-robin.
//! * `elimination` — successive elimination: alive variants are measured in turn; from the
//!   second round on, a variant whose *fastest* measurement is slower than the best variant's
//!   robust *slowest* one (its largest, ignoring one outlier once it has 3) by more than
//!   `OMPADAPT_ELIMINATION_MARGIN` is dropped. Preemption only ever makes a measurement
//!   slower, so one bad measurement can delay an elimination but not cause a wrong one. A
//!   vector is decided when one variant is left, or when the survivors have `repeats`
//!   measurements each; from then on its executions run the winner. With clearly separated
//!   variants this needs 2 measurements of each instead of `repeats`.
//!
//! Labels (`OMPADAPT_LABEL`): `median` — the variant with the lowest median time among the
//! candidates (ties: lower index); `vote` — seed 001's majority vote: the b-th measurements of
//! the candidates form batch b, each batch elects its fastest, most wins (ties: lower median).

use crate::stats::{median_f64, median_in_place, XorShift};

/// Measurements kept per (feature vector, variant) pair: the median is over the most recent
/// `KEEP` to `2·KEEP` (once a pair has `2·KEEP`, its oldest `KEEP` are dropped in one pass, so
/// recording stays O(1) amortised). The pair's count still includes dropped ones.
pub const KEEP: usize = 255;

/// An exploration strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    RoundRobin,
    Random,
    Elimination,
}

impl Strategy {
    /// Parses `roundrobin`, `random` or `elimination` (and a few spellings of each).
    pub fn parse(s: &str) -> Result<Strategy, String> {
        match s.trim().to_ascii_lowercase().replace(['-', '_'], "").as_str() {
            "roundrobin" | "rr" => Ok(Strategy::RoundRobin),
            "random" => Ok(Strategy::Random),
            "elimination" | "successiveelimination" | "se" => Ok(Strategy::Elimination),
            _ => Err(format!("unknown exploration strategy '{s}' (expected roundrobin, random or elimination)")),
        }
    }

    /// The spelling used in reports and files.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::RoundRobin => "roundrobin",
            Strategy::Random => "random",
            Strategy::Elimination => "elimination",
        }
    }
}

/// How repeated measurements become a label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Labeling {
    Median,
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
    pub strategy: Strategy,
    pub repeats: u32,
    pub labeling: Labeling,
    pub margin: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params { strategy: Strategy::RoundRobin, repeats: 1, labeling: Labeling::Median, margin: 0.05 }
    }
}

/// Counters of one (feature vector, variant) pair (this generation: since the last drift).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counts {
    /// Measurements recorded (including any no longer retained).
    pub count: u32,
    /// `count` at the last save (persistence writes only what is newer).
    pub saved: u32,
    /// Measurements retained in the vector's sample list.
    pub kept: u16,
}

/// One retained measurement: variant and time (ns; f32 keeps 24 bits, far finer than the
/// noise of any measurement, in 4 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The variant (up to `spec::MAX_VARIANTS`).
    pub v: u16,
    pub ns: f32,
}

/// "Not decided" in [`FvRec::decided`].
pub const UNDECIDED: u16 = u16::MAX;

/// Bits of [`FvRec::key`] holding the key's offset; the rest hold its length (≤ 16 values).
const KEY_OFF_BITS: u32 = 27;

/// Exploration state of one feature vector, compact (the store keeps its key and per-variant
/// counters in arenas, see `store`): 40 bytes plus its samples.
#[derive(Clone, Debug, PartialEq)]
pub struct FvRec {
    /// Offset of the key's values in the store's key arena (low 27 bits: 1 GiB of values) and
    /// their number (high bits); see [`FvRec::key_off`], [`FvRec::nf`].
    pub key: u32,
    /// The label once the measurements suffice ([`UNDECIDED`] before).
    pub decided: u16,
    /// Pairs that count as training samples (see [`Fv::counted_pairs`]).
    pub counted: u16,
    /// Bit v set: variant v is still a candidate (successive elimination).
    pub alive: u64,
    /// Retained measurements, oldest first (at most [`KEEP`] per variant).
    pub times: Vec<Sample>,
}

/// A feature vector's record with its counters, borrowed from the store.
pub struct Fv<'a> {
    pub rec: &'a mut FvRec,
    pub counts: &'a mut [Counts],
}

impl FvRec {
    /// A record with no measurement, its key's `nf` values at `key_off` in the key arena.
    pub fn new(key_off: usize, nf: usize, nv: usize) -> FvRec {
        debug_assert!(key_off < 1 << KEY_OFF_BITS && nf <= 16);
        FvRec {
            key: (nf as u32) << KEY_OFF_BITS | (key_off as u32 & ((1 << KEY_OFF_BITS) - 1)),
            decided: UNDECIDED,
            counted: 0,
            alive: all_mask(nv),
            times: Vec::new(),
        }
    }

    /// Offset of the key's values in the key arena.
    pub fn key_off(&self) -> usize {
        (self.key & ((1 << KEY_OFF_BITS) - 1)) as usize
    }

    /// Number of the key's values.
    pub fn nf(&self) -> usize {
        (self.key >> KEY_OFF_BITS) as usize
    }

    /// The decision, if any.
    pub fn decided(&self) -> Option<usize> {
        (self.decided != UNDECIDED).then_some(self.decided as usize)
    }

    /// Retained measurements of variant `v`, oldest first.
    pub fn times_of(&self, v: usize) -> Vec<f64> {
        self.times.iter().filter(|s| s.v as usize == v).map(|s| s.ns as f64).collect()
    }

    /// Median of variant `v`'s retained measurements.
    pub fn median(&self, v: usize) -> Option<f64> {
        median_f64(&self.times_of(v))
    }

    /// The label among `candidates` by `labeling`; None if a candidate has no measurement.
    pub fn label_among(&self, candidates: &[usize], labeling: Labeling) -> Option<usize> {
        // one buffer for every candidate's times (a vector is labelled once per generation,
        // during a batch hand-over: no allocation per candidate)
        let mut buf: Vec<f64> = Vec::with_capacity(self.times.len());
        let mut median = |v: usize| {
            buf.clear();
            buf.extend(self.times.iter().filter(|s| s.v as usize == v).map(|s| s.ns as f64));
            median_in_place(&mut buf)
        };
        if labeling == Labeling::Median || candidates.len() < 2 {
            // the lowest median, the first candidate on ties
            let mut best: Option<(usize, f64)> = None;
            for &v in candidates {
                let m = median(v)?;
                if !best.is_some_and(|(_, bm)| bm <= m) {
                    best = Some((v, m));
                }
            }
            return best.map(|(v, _)| v);
        }
        let medians: Vec<(usize, f64)> = candidates.iter().map(|&v| median(v).map(|m| (v, m))).collect::<Option<_>>()?;
        let lowest = |it: &mut dyn Iterator<Item = (usize, f64)>| {
            it.fold(None, |b: Option<(usize, f64)>, (v, m)| match b {
                Some((_, bm)) if bm <= m => b,
                _ => Some((v, m)),
            })
            .map(|(v, _)| v)
        };
        let series: Vec<Vec<f64>> = candidates.iter().map(|&v| self.times_of(v)).collect();
        let batches = series.iter().map(Vec::len).min().unwrap_or(0);
        let mut wins = vec![0usize; candidates.len()];
        for b in 0..batches {
            let w = (0..candidates.len()).fold(0, |w, i| if series[i][b] < series[w][b] { i } else { w });
            wins[w] += 1;
        }
        let top = *wins.iter().max()?;
        // ties between vote winners: the lower median
        lowest(&mut medians.iter().enumerate().filter(|(i, _)| wins[*i] == top).map(|(_, &vm)| vm))
    }
}

impl Fv<'_> {
    fn nv(&self) -> usize {
        self.counts.len()
    }

    /// The variant the next exploring execution of this vector runs, when the choice is made
    /// under the store's lock (`k` = executions begun for it so far).
    pub fn choose(&self, p: &Params, k: u64, rng: &mut XorShift) -> usize {
        let nv = self.nv();
        match p.strategy {
            Strategy::Random => rng.below(nv),
            Strategy::Elimination if self.rec.decided != UNDECIDED => self.rec.decided as usize,
            Strategy::RoundRobin => (k % nv.max(1) as u64) as usize,
            strategy => {
                let alive = if strategy == Strategy::Elimination { self.rec.alive } else { all_mask(nv) };
                let n = alive.count_ones().max(1) as u64;
                let mut m = alive;
                for _ in 0..(k % n) {
                    m &= m.wrapping_sub(1);
                }
                if m == 0 { 0 } else { m.trailing_zeros() as usize }
            }
        }
    }

    /// Records one measurement of variant `v` and updates eliminations and the decision.
    /// Returns the change in counted pairs and whether the vector became decided.
    #[inline]
    pub fn record(&mut self, v: usize, ns: f64, p: &Params) -> (i64, bool) {
        if self.rec.times.capacity() == 0 {
            // most vectors end with `repeats` measurements per variant: size for that at once
            let n = self.nv() * (p.repeats.max(1) as usize).min(KEEP);
            self.rec.times.reserve_exact(n);
        }
        self.keep(v, ns);
        let c = self.counts[v].count.saturating_add(1);
        self.counts[v].count = c;
        // Most measurements cannot change anything `refresh` derives; skip it for those (it
        // runs for every measurement a batch hands to the store):
        // * a decided vector: a pair counts from its first measurement on;
        // * an undecided one under round-robin or random: a pair counts, and the vector can
        //   be decided, only once the pair has `repeats` measurements (one with a single
        //   variant: its first). Elimination may drop a variant on any measurement.
        let needed = if self.rec.decided != UNDECIDED {
            c == 1
        } else {
            p.strategy == Strategy::Elimination || c >= if self.nv() == 1 { 1 } else { p.repeats.max(1) }
        };
        if needed {
            self.refresh(p)
        } else {
            (0, false)
        }
    }

    /// Retains a measurement of `v` (see [`KEEP`]).
    #[inline]
    pub fn keep(&mut self, v: usize, ns: f64) {
        if self.counts[v].kept as usize >= 2 * KEEP {
            self.drop_oldest(v);
        }
        self.counts[v].kept += 1;
        let times = &mut self.rec.times;
        if times.capacity() == 0 {
            times.reserve_exact(self.counts.len());
        }
        times.push(Sample { v: v as u16, ns: ns as f32 });
    }

    /// Drops the oldest `KEEP` retained measurements of `v`.
    #[cold]
    #[inline(never)]
    fn drop_oldest(&mut self, v: usize) {
        let mut drop = KEEP;
        self.rec.times.retain(|s| {
            let old = s.v as usize == v && drop > 0;
            drop -= old as usize;
            !old
        });
        self.counts[v].kept -= KEEP as u16;
    }

    /// Recomputes eliminations, counted pairs and the decision after the measurements changed.
    pub fn refresh(&mut self, p: &Params) -> (i64, bool) {
        let before = (self.rec.counted, self.rec.decided != UNDECIDED);
        let r = p.repeats.max(1);
        if p.strategy == Strategy::Elimination && self.rec.decided == UNDECIDED {
            self.eliminate(p, r);
        }
        let nv = self.nv();
        let alive = if p.strategy == Strategy::Elimination { self.rec.alive } else { all_mask(nv) };
        if self.rec.decided == UNDECIDED {
            // no allocation on this path (up to 64 variants): it runs for every exploring
            // measurement
            let mut n_alive = 0;
            let mut enough = true;
            for v in (0..nv).filter(|&v| is_alive(alive, v)) {
                n_alive += 1;
                enough &= self.counts[v].count >= r;
            }
            if n_alive == 1 {
                enough = (0..nv).any(|v| is_alive(alive, v) && self.counts[v].count >= 1);
            }
            if enough {
                let label = if nv <= 64 {
                    let mut survivors = [0usize; 64];
                    let mut n = 0;
                    for v in (0..nv).filter(|&v| is_alive(alive, v)) {
                        survivors[n] = v;
                        n += 1;
                    }
                    self.rec.label_among(&survivors[..n], p.labeling)
                } else {
                    // more than 64 variants: no elimination (see `Region::with_config`)
                    let all: Vec<usize> = (0..nv).collect();
                    self.rec.label_among(&all, p.labeling)
                };
                self.rec.decided = label.map_or(UNDECIDED, |v| v as u16);
            }
        }
        self.rec.counted = self.counted_pairs(r, alive);
        (self.rec.counted as i64 - before.0 as i64, !before.1 && self.rec.decided != UNDECIDED)
    }

    fn eliminate(&mut self, p: &Params, r: u32) {
        let alive: Vec<usize> = (0..self.nv()).filter(|&v| self.rec.alive >> v & 1 == 1).collect();
        // Needs two measurements of every survivor (one is never enough to rule out noise),
        // unless a single measurement is all the region asks for.
        let rounds = r.min(2);
        if alive.len() < 2 || alive.iter().any(|&v| self.counts[v].count < rounds) {
            return;
        }
        let Some(best) = self.rec.label_among(&alive, Labeling::Median) else { return };
        let bar = robust_slowest(&self.rec.times_of(best)) * (1.0 + p.margin);
        for &v in &alive {
            let fastest = self.rec.times_of(v).into_iter().fold(f64::INFINITY, f64::min);
            if v != best && fastest > bar {
                self.rec.alive &= !(1u64 << v);
            }
        }
    }

    /// Pairs that count as training samples: `repeats` measurements, or at least one when
    /// the variant was eliminated or the vector is decided (the strategy needs no more).
    fn counted_pairs(&self, r: u32, alive: u64) -> u16 {
        let done = self.rec.decided != UNDECIDED;
        (0..self.nv())
            .filter(|&v| {
                let c = self.counts[v].count;
                c >= r || (c >= 1 && (done || !is_alive(alive, v)))
            })
            .count() as u16
    }
}

/// The largest value, ignoring the single largest once there are 3 (one preempted
/// measurement must not stop eliminations).
fn robust_slowest(times: &[f64]) -> f64 {
    let mut v = times.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::INFINITY,
        1 | 2 => v[v.len() - 1],
        n => v[n - 2],
    }
}

/// Bits 0..n set.
/// Whether variant `v` is a candidate in `alive`. Successive elimination handles at most 64
/// variants; past bit 63 every variant is one (a plain `alive >> v` would wrap the shift).
#[inline]
fn is_alive(alive: u64, v: usize) -> bool {
    v >= 64 || alive >> v & 1 == 1
}

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

    fn params(strategy: Strategy, repeats: u32) -> Params {
        Params { strategy, repeats, ..Params::default() }
    }

    /// A vector's record and counters owned by the test.
    struct Owned(FvRec, Vec<Counts>);

    impl Owned {
        fn new(nv: usize) -> Owned {
            let rec = FvRec::new(0, 1, nv);
            Owned(rec, vec![Counts::default(); nv])
        }
        fn fv(&mut self) -> Fv<'_> {
            Fv { rec: &mut self.0, counts: &mut self.1 }
        }
    }

    /// Explores one vector with deterministic costs until decided; returns (label, executions).
    fn explore(costs: &[f64], p: &Params, noise: impl Fn(usize, usize) -> f64) -> (usize, usize) {
        let mut o = Owned::new(costs.len());
        let mut rng = XorShift::new(1);
        for k in 0..10_000 {
            if let Some(l) = o.0.decided() {
                return (l, k);
            }
            let v = o.fv().choose(p, k as u64, &mut rng);
            o.fv().record(v, costs[v] * noise(v, k), p);
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

    #[test]
    fn round_robin_order_and_decision() {
        let p = params(Strategy::RoundRobin, 2);
        let mut o = Owned::new(3);
        let mut rng = XorShift::new(1);
        let order: Vec<usize> = (0..7).map(|k| o.fv().choose(&p, k, &mut rng)).collect();
        assert_eq!(order, vec![0, 1, 2, 0, 1, 2, 0]);
        let (label, n) = explore(&[30.0, 10.0, 20.0], &p, |_, _| 1.0);
        assert_eq!((label, n), (1, 6));
    }

    /// One preempted measurement (100×) of the fastest variant: the median of 3 keeps the
    /// label, a single measurement does not.
    #[test]
    fn repeats_survive_an_outlier() {
        let preempt = |v: usize, k: usize| if v == 0 && k == 0 { 100.0 } else { 1.0 };
        assert_eq!(explore(&[10.0, 12.0], &params(Strategy::RoundRobin, 1), preempt).0, 1);
        assert_eq!(explore(&[10.0, 12.0], &params(Strategy::RoundRobin, 3), preempt).0, 0);
        assert_eq!(explore(&[10.0, 12.0], &params(Strategy::Elimination, 3), preempt).0, 0);
    }

    #[test]
    fn elimination_needs_fewer_executions() {
        let costs = [40.0, 10.0, 25.0, 80.0];
        let rr = explore(&costs, &params(Strategy::RoundRobin, 5), |_, _| 1.0);
        let se = explore(&costs, &params(Strategy::Elimination, 5), |_, _| 1.0);
        assert_eq!(rr.0, 1);
        assert_eq!(se.0, 1);
        assert_eq!(rr.1, 20);
        assert_eq!(se.1, 8, "two rounds of 4, then one survivor");
        // close variants (within the margin) are measured like round-robin
        let close = [10.0, 10.2];
        let se = explore(&close, &params(Strategy::Elimination, 5), |v, k| if (v + k) % 2 == 0 { 1.01 } else { 0.99 });
        assert_eq!(se.1, 10);
    }

    #[test]
    fn elimination_after_decision_exploits() {
        let p = params(Strategy::Elimination, 3);
        let mut o = Owned::new(2);
        let mut rng = XorShift::new(1);
        for k in 0..4 {
            let v = o.fv().choose(&p, k, &mut rng);
            o.fv().record(v, [5.0, 50.0][v], &p);
        }
        assert_eq!(o.0.decided(), Some(0));
        assert_eq!(o.0.counted, 2, "the eliminated pair and the winner count");
        assert!((0..5).all(|k| o.fv().choose(&p, k, &mut rng) == 0));
    }

    #[test]
    fn vote_labels() {
        let p = Params { labeling: Labeling::Vote, ..params(Strategy::RoundRobin, 3) };
        let mut o = Owned::new(2);
        // batches: (10 vs 11), (10 vs 11), (1000 vs 11): variant 0 wins 2 of 3 batches
        for (a, b) in [(10.0, 11.0), (10.0, 11.0), (1000.0, 11.0)] {
            o.fv().record(0, a, &p);
            o.fv().record(1, b, &p);
        }
        assert_eq!(o.0.decided(), Some(0));
        assert_eq!(o.0.label_among(&[0, 1], Labeling::Median), Some(0));
        // a vote tie goes to the lower median
        let mut o = Owned::new(2);
        for (a, b) in [(10.0, 11.0), (13.0, 11.0)] {
            o.fv().record(0, a, &p);
            o.fv().record(1, b, &p);
        }
        assert_eq!(o.0.label_among(&[0, 1], Labeling::Vote), Some(1));
    }

    #[test]
    fn keeps_the_most_recent_per_variant() {
        let p = params(Strategy::RoundRobin, 1);
        let mut o = Owned::new(2);
        for i in 0..(2 * KEEP + 10) {
            o.fv().record(0, i as f64, &p);
            if i % 50 == 0 {
                o.fv().record(1, 7.0, &p);
            }
        }
        assert_eq!(o.1[0].count as usize, 2 * KEEP + 10);
        let t = o.0.times_of(0);
        assert_eq!((t.len(), t[0], *t.last().unwrap()), (KEEP + 10, KEEP as f64, (2 * KEEP + 9) as f64));
        assert_eq!(o.1[0].kept as usize, KEEP + 10);
        assert_eq!(o.0.times_of(1).len(), 11);
        assert_eq!(std::mem::size_of::<FvRec>(), 40);
        assert_eq!(std::mem::size_of::<Sample>(), 8);
    }
}
