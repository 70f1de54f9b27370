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

use crate::stats::{median_f64, FKey, XorShift};

/// Most measurements kept per (feature vector, variant) pair: the median is over these. Older
/// ones are dropped (the pair's count still includes them).
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

/// Measurements of one variant on one feature vector (this generation: since the last drift).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pair {
    /// Measurements recorded (including any dropped from `times`).
    pub count: u32,
    /// Executions begun while exploring (in flight or done): balances concurrent explorers.
    pub begun: u32,
    /// `count` at the last save (persistence writes only what is newer).
    pub saved: u32,
    /// The most recent measurements, ns, oldest first until full, then a ring (see [`Pair::times_in_order`]).
    pub times: Vec<f32>,
}

impl Pair {
    /// Adds one measurement.
    pub fn record(&mut self, ns: f64) {
        let x = ns as f32;
        if self.times.len() < KEEP {
            self.times.push(x);
        } else {
            let at = self.count as usize % KEEP;
            self.times[at] = x;
        }
        self.count = self.count.saturating_add(1);
    }

    /// The retained measurements, oldest first.
    pub fn times_in_order(&self) -> Vec<f64> {
        let n = self.times.len();
        let start = if n < KEEP { 0 } else { self.count as usize % KEEP };
        (0..n).map(|i| self.times[(start + i) % n] as f64).collect()
    }

    /// Median of the retained measurements.
    pub fn median(&self) -> Option<f64> {
        let v: Vec<f64> = self.times.iter().map(|&x| x as f64).collect();
        median_f64(&v)
    }

    /// Mean of the retained measurements.
    pub fn mean(&self) -> Option<f64> {
        (!self.times.is_empty()).then(|| self.times.iter().map(|&x| x as f64).sum::<f64>() / self.times.len() as f64)
    }

    fn fastest(&self) -> f64 {
        self.times.iter().fold(f64::INFINITY, |m, &x| m.min(x as f64))
    }

    /// The largest measurement, ignoring the single largest once there are 3 (one preempted
    /// measurement must not stop eliminations).
    fn robust_slowest(&self) -> f64 {
        let mut v: Vec<f32> = self.times.clone();
        v.sort_by(f32::total_cmp);
        match v.len() {
            0 => f64::INFINITY,
            1 | 2 => v[v.len() - 1] as f64,
            n => v[n - 2] as f64,
        }
    }
}

/// Exploration state and measurements of one feature vector.
#[derive(Clone, Debug, PartialEq)]
pub struct FvData {
    pub key: FKey,
    /// Executions begun for it while exploring.
    pub begun: u64,
    /// Bit v set: variant v is still a candidate (successive elimination).
    pub alive: u64,
    /// Per variant.
    pub pairs: Vec<Pair>,
    /// Pairs that count as training samples (see [`FvData::counted`]).
    pub counted: u32,
    /// The label, once the measurements suffice.
    pub decided: Option<u8>,
}

impl FvData {
    /// No measurements yet.
    pub fn new(key: FKey, nvariants: usize) -> FvData {
        FvData {
            key,
            begun: 0,
            alive: all_mask(nvariants),
            pairs: vec![Pair::default(); nvariants],
            counted: 0,
            decided: None,
        }
    }

    fn nv(&self) -> usize {
        self.pairs.len()
    }

    /// The variant the next exploring execution of this vector runs.
    pub fn choose(&mut self, p: &Params, rng: &mut XorShift) -> usize {
        let nv = self.nv();
        let v = match p.strategy {
            Strategy::Random => rng.below(nv),
            Strategy::Elimination if self.decided.is_some() => self.decided.unwrap_or(0) as usize,
            // The least-begun (alive) variant, lowest index on ties: for round-robin that is
            // exactly `k mod V` for the k-th execution, and concurrent explorers spread out.
            strategy => {
                let alive = if strategy == Strategy::Elimination { self.alive } else { all_mask(nv) };
                (0..nv).filter(|&v| alive >> v & 1 == 1).min_by_key(|&v| self.pairs[v].begun).unwrap_or(0)
            }
        };
        self.begun += 1;
        self.pairs[v].begun = self.pairs[v].begun.saturating_add(1);
        v
    }

    /// Records one measurement of variant `v` and updates eliminations and the decision.
    /// Returns the change in counted pairs and whether the vector became decided.
    pub fn record(&mut self, v: usize, ns: f64, p: &Params) -> (i64, bool) {
        self.pairs[v].record(ns);
        self.refresh(p)
    }

    /// Recomputes eliminations, counted pairs and the decision after the measurements changed.
    pub fn refresh(&mut self, p: &Params) -> (i64, bool) {
        let before = (self.counted, self.decided.is_some());
        let r = p.repeats.max(1);
        if p.strategy == Strategy::Elimination && self.decided.is_none() {
            self.eliminate(p, r);
        }
        let alive = if p.strategy == Strategy::Elimination { self.alive } else { all_mask(self.nv()) };
        if self.decided.is_none() {
            // no allocation on this path: it runs for every exploring measurement
            let mut n_alive = 0;
            let mut enough = true;
            for v in (0..self.nv()).filter(|&v| alive >> v & 1 == 1) {
                n_alive += 1;
                enough &= self.pairs[v].count >= r;
            }
            if n_alive == 1 {
                enough = (0..self.nv()).any(|v| alive >> v & 1 == 1 && self.pairs[v].count >= 1);
            }
            if enough {
                let survivors: Vec<usize> = (0..self.nv()).filter(|&v| alive >> v & 1 == 1).collect();
                self.decided = self.label_among(&survivors, p.labeling).map(|v| v as u8);
            }
        }
        self.counted = self.counted_pairs(r, alive);
        (self.counted as i64 - before.0 as i64, !before.1 && self.decided.is_some())
    }

    fn eliminate(&mut self, p: &Params, r: u32) {
        let alive: Vec<usize> = (0..self.nv()).filter(|&v| self.alive >> v & 1 == 1).collect();
        // Needs two measurements of every survivor (one is never enough to rule out noise),
        // unless a single measurement is all the region asks for.
        let rounds = r.min(2);
        if alive.len() < 2 || alive.iter().any(|&v| self.pairs[v].count < rounds) {
            return;
        }
        let Some(best) = self.label_among(&alive, Labeling::Median) else { return };
        let bar = self.pairs[best].robust_slowest() * (1.0 + p.margin);
        for &v in &alive {
            if v != best && self.pairs[v].fastest() > bar {
                self.alive &= !(1u64 << v);
            }
        }
    }

    /// Pairs that count as training samples: `repeats` measurements, or at least one when
    /// the variant was eliminated or the vector is decided (the strategy needs no more).
    fn counted_pairs(&self, r: u32, alive: u64) -> u32 {
        let done = self.decided.is_some();
        (0..self.nv())
            .filter(|&v| {
                let c = self.pairs[v].count;
                c >= r || (c >= 1 && (done || alive >> v & 1 == 0))
            })
            .count() as u32
    }

    /// The label among `candidates` by `labeling`; None if a candidate has no measurement.
    pub fn label_among(&self, candidates: &[usize], labeling: Labeling) -> Option<usize> {
        let medians: Vec<(usize, f64)> =
            candidates.iter().map(|&v| self.pairs[v].median().map(|m| (v, m))).collect::<Option<_>>()?;
        let by_median = medians.iter().fold(None, |b: Option<(usize, f64)>, &(v, m)| match b {
            Some((_, bm)) if bm <= m => b,
            _ => Some((v, m)),
        })?;
        if labeling == Labeling::Median || candidates.len() < 2 {
            return Some(by_median.0);
        }
        let series: Vec<Vec<f64>> = candidates.iter().map(|&v| self.pairs[v].times_in_order()).collect();
        let batches = series.iter().map(Vec::len).min().unwrap_or(0);
        let mut wins = vec![0usize; candidates.len()];
        for b in 0..batches {
            let w = (0..candidates.len()).fold(0, |w, i| if series[i][b] < series[w][b] { i } else { w });
            wins[w] += 1;
        }
        let top = *wins.iter().max()?;
        // ties between vote winners: the lower median
        medians
            .iter()
            .enumerate()
            .filter(|(i, _)| wins[*i] == top)
            .fold(None, |b: Option<(usize, f64)>, (_, &(v, m))| match b {
                Some((_, bm)) if bm <= m => b,
                _ => Some((v, m)),
            })
            .map(|(v, _)| v)
    }

    /// The label of a vector whose every variant has a measurement (data pooled from other
    /// ranks or runs that carry no exploration state): lowest median.
    pub fn label_any(&self) -> Option<usize> {
        let all: Vec<usize> = (0..self.nv()).collect();
        self.label_among(&all, Labeling::Median)
    }
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

    fn params(strategy: Strategy, repeats: u32) -> Params {
        Params { strategy, repeats, ..Params::default() }
    }

    /// Explores one vector with deterministic costs until decided; returns (label, executions).
    fn explore(costs: &[f64], p: &Params, noise: impl Fn(usize, usize) -> f64) -> (usize, usize) {
        let mut fv = FvData::new(FKey::new(&[1.0]), costs.len());
        let mut rng = XorShift::new(1);
        for k in 0..10_000 {
            if let Some(l) = fv.decided {
                return (l as usize, k);
            }
            let v = fv.choose(p, &mut rng);
            fv.record(v, costs[v] * noise(v, k), p);
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
        let mut fv = FvData::new(FKey::new(&[1.0]), 3);
        let mut rng = XorShift::new(1);
        let order: Vec<usize> = (0..7).map(|_| fv.choose(&p, &mut rng)).collect();
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
        let mut fv = FvData::new(FKey::new(&[1.0]), 2);
        let mut rng = XorShift::new(1);
        for _ in 0..4 {
            let v = fv.choose(&p, &mut rng);
            fv.record(v, [5.0, 50.0][v], &p);
        }
        assert_eq!(fv.decided, Some(0));
        assert_eq!(fv.counted, 2, "the eliminated pair and the winner count");
        assert!((0..5).all(|_| fv.choose(&p, &mut rng) == 0));
    }

    #[test]
    fn vote_labels() {
        let p = Params { labeling: Labeling::Vote, ..params(Strategy::RoundRobin, 3) };
        let mut fv = FvData::new(FKey::new(&[1.0]), 2);
        // batches: (10 vs 11), (10 vs 11), (1000 vs 11): variant 0 wins 2 of 3 batches
        for (a, b) in [(10.0, 11.0), (10.0, 11.0), (1000.0, 11.0)] {
            fv.record(0, a, &p);
            fv.record(1, b, &p);
        }
        assert_eq!(fv.decided, Some(0));
        assert_eq!(fv.label_among(&[0, 1], Labeling::Median), Some(0));
        // a vote tie goes to the lower median
        let mut fv = FvData::new(FKey::new(&[1.0]), 2);
        for (a, b) in [(10.0, 11.0), (13.0, 11.0)] {
            fv.record(0, a, &p);
            fv.record(1, b, &p);
        }
        assert_eq!(fv.label_among(&[0, 1], Labeling::Vote), Some(1));
    }

    #[test]
    fn ring_keeps_recent() {
        let mut p = Pair::default();
        for i in 0..(KEEP + 10) {
            p.record(i as f64);
        }
        assert_eq!(p.count as usize, KEEP + 10);
        let t = p.times_in_order();
        assert_eq!((t.len(), t[0], t[KEEP - 1]), (KEEP, 10.0, (KEEP + 9) as f64));
    }
}
