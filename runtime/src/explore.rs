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
//! * `roundrobin` — Apollo's order, restricted to wanted variants;
//! * `random` — a uniformly random wanted variant (Apollo's `Random`);
//! * `elimination` — successive elimination: alive variants are measured in turn; from the
//!   second round on, a variant whose *fastest* measurement is slower than the best variant's
//!   robust *slowest* one by more than `OMPADAPT_ELIMINATION_MARGIN` is dropped. Decided when
//!   one variant is left or the survivors have `repeats` measurements each (3 when adaptive).
//!
//! Once a vector is decided, its exploring executions run its label (they add measurements of
//! the label, which the noise estimate and drift detection use).

use crate::stats::XorShift;

/// Measurements kept per (feature vector, variant) pair: estimates use the most recent `KEEP`
/// to `2·KEEP` (once a pair has `2·KEEP`, its oldest `KEEP` are dropped in one pass, so
/// recording stays O(1) amortised). The pair's count still includes dropped ones.
pub const KEEP: usize = 255;

/// `repeats` meaning adaptive repetition (the default): one pass, more where in doubt.
pub const ADAPTIVE: u32 = 0;

/// Most measurements adaptive repetition asks of one pair.
pub const CAP: usize = 6;

/// Two variants whose times are known to differ by less than this fraction are equally good:
/// adaptive repetition stops measuring them.
pub const INDIFFERENT: f64 = 0.10;

/// Confidence multiplier of the doubt test (about 99 % one-sided for a normal gap).
pub const K: f64 = 2.5;

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

    /// Rounds successive elimination measures before it decides (adaptive: 3).
    fn elimination_rounds(&self) -> u32 {
        if self.adaptive() {
            3
        } else {
            self.repeats
        }
    }
}

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
    fn estimate_samples(&self, v: usize, buf: &mut Vec<f64>) -> bool {
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

impl VectorView<'_> {
    fn nv(&self) -> usize {
        self.counts.len()
    }

    /// Whether variant `v` may run in this process (see [`VectorView::off`]).
    #[inline]
    pub fn available(&self, v: usize) -> bool {
        !self.off.get(v).copied().unwrap_or(false)
    }

    fn candidates(&self, p: &Params) -> Vec<usize> {
        let alive = if p.strategy == Strategy::Elimination { self.rec.alive } else { u64::MAX };
        (0..self.nv()).filter(|&v| is_alive(alive, v) && self.available(v)).collect()
    }

    /// Whether any measurement is wanted.
    pub fn wants_any(&self) -> bool {
        self.counts.iter().enumerate().any(|(v, c)| c.want > 0 && self.available(v))
    }

    /// The variant the next exploring execution of this vector runs, when the choice is made
    /// under the measurement table's lock (`k` = a position that advances per execution): its label once
    /// decided, else a wanted variant (in turn, or at random), else the least measured.
    pub fn choose(&self, p: &Params, k: u64, rng: &mut XorShift) -> usize {
        if let Some(d) = self.rec.decided() {
            return d;
        }
        let wanted: Vec<usize> = (0..self.nv()).filter(|&v| self.counts[v].want > 0 && self.available(v)).collect();
        if wanted.is_empty() {
            return (0..self.nv()).filter(|&v| self.available(v)).min_by_key(|&v| self.counts[v].count).unwrap_or(0);
        }
        if p.strategy == Strategy::Random {
            wanted[rng.below(wanted.len())]
        } else {
            wanted[(k % wanted.len() as u64) as usize]
        }
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

    fn elimination_label(&mut self, p: &Params, cands: &[usize]) -> Result<usize, u32> {
        let r = p.elimination_rounds() as usize;
        let mut buf = Vec::new();
        for &v in cands {
            self.rec.estimate_samples(v, &mut buf);
            if buf.len() < r {
                self.counts[v].want = self.counts[v].want.max((r - buf.len()).min(255) as u8);
            }
        }
        if self.wants_any() {
            return Err(0);
        }
        self.rec.label_among(cands, p.labeling).ok_or(0)
    }

    fn eliminate(&mut self, p: &Params) {
        let alive: Vec<usize> = (0..self.nv().min(64)).filter(|&v| self.rec.alive >> v & 1 == 1).collect();
        if self.nv() > 64 {
            return; // elimination tracks 64 candidates
        }
        // Needs two measurements of every survivor (one is never enough to rule out noise),
        // unless a single measurement is all the region asks for.
        let rounds = p.elimination_rounds().min(2) as usize;
        let mut buf = Vec::new();
        let mut series = Vec::with_capacity(alive.len());
        for &v in &alive {
            self.rec.estimate_samples(v, &mut buf);
            if buf.len() < rounds {
                return;
            }
            series.push(buf.clone());
        }
        if alive.len() < 2 {
            return;
        }
        let Some(best) = self.rec.label_among(&alive, Labeling::Median) else { return };
        let bi = alive.iter().position(|&v| v == best).unwrap_or(0);
        let bar = robust_slowest(&series[bi]) * (1.0 + p.margin);
        for (i, &v) in alive.iter().enumerate() {
            let fastest = series[i].iter().copied().fold(f64::INFINITY, f64::min);
            if v != best && fastest > bar {
                self.rec.alive &= !(1u64 << v);
                self.counts[v].want = 0;
            }
        }
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
pub fn all_mask(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Asks for at least `n` more measurements of variant `v` (at most 255 pending).
fn want_more(counts: &mut [Counts], v: usize, n: u32) {
    counts[v].want = counts[v].want.max(n.min(u8::MAX as u32) as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(strategy: Strategy, repeats: u32) -> Params {
        Params { strategy, repeats, ..Params::default() }
    }

    /// A vector's record and counters owned by the test.
    struct Owned(VectorRecord, Vec<Counts>);

    impl Owned {
        fn new(nv: usize) -> Owned {
            let rec = VectorRecord { key_off: 0, nf: 1, flags: 0, decided: UNDECIDED, alive: all_mask(nv), times: Vec::new() };
            Owned(rec, vec![Counts { want: 1, ..Counts::default() }; nv])
        }
        fn fv(&mut self) -> VectorView<'_> {
            VectorView { rec: &mut self.0, counts: &mut self.1, off: &[] }
        }
    }

    fn judge(sigma: f64, hint: Option<usize>) -> Judge<'static> {
        Judge { sigma, extra_ok: true, doubt_ok: true, hint, near: &|_| None, warm: &|_| false }
    }

    /// Explores one vector with deterministic costs until decided; returns (label, executions).
    fn explore(costs: &[f64], p: &Params, noise: impl Fn(usize, usize) -> f64) -> (usize, usize) {
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
    fn fixed_repeats_round_robin_order_and_decision() {
        let p = params(Strategy::RoundRobin, 2);
        let (label, n) = explore(&[30.0, 10.0, 20.0], &p, |_, _| 1.0);
        assert_eq!((label, n), (1, 6));
    }

    /// One preempted measurement (100×) of the fastest variant: one measurement each gets it
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

    #[test]
    fn elimination_needs_fewer_executions() {
        let costs = [40.0, 10.0, 25.0, 80.0];
        let rr = explore(&costs, &params(Strategy::RoundRobin, 5), |_, _| 1.0);
        let se = explore(&costs, &params(Strategy::Elimination, 5), |_, _| 1.0);
        assert_eq!(rr.0, 1);
        assert_eq!(se.0, 1);
        assert_eq!(rr.1, 20);
        assert_eq!(se.1, 8, "two rounds of 4, then one survivor");
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
