//! A region's measurements while it explores, and the counters that decide when it trains.
//!
//! One `Store` per region, behind the region's mutex: it is touched by exploring executions
//! that can change the training counters, by batches of buffered measurements, by training
//! (labels), by drift resets and by persistence — never by a trained execution, which records
//! into per-thread shards instead (see `shard`).
//!
//! Training samples (`min_train_data`) are **distinct (feature vector, variant) pairs** with
//! enough measurements: `repeats` of them, or at least one when successive elimination ruled
//! the variant out or decided the vector. With the default `repeats = 1` this is exactly
//! Apollo's and the paper's count. Training also needs one decided feature vector.
//!
//! Memory: a **stored sample** is one retained measurement (feature vector, variant, time),
//! the row Apollo keeps per execution. It costs 8 bytes in its vector's sample list; each
//! feature vector adds a 40-byte record, its values (8 bytes per feature) in a key arena,
//! 12 bytes per variant of counters in a counter arena, and 9 bytes per index bucket.
//! [`Store::heap_bytes`] adds it all up (capacities, not lengths).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::explore::{all_mask, Counts, Fv, FvRec, Labeling, Params, UNDECIDED};
use crate::stats::{FKey, FxBuild, XorShift};

/// The index is keyed by 32 bits of [`FKey::hash64`], already mixed: no further hashing.
#[derive(Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u32 keys")
    }
    fn write_u32(&mut self, x: u32) {
        // hashbrown takes the control byte from the top bits and the bucket from the low ones
        self.0 = (x as u64) << 32 | x as u64;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The measurements of one region in this generation (since the last drift reset).
#[derive(Debug)]
pub struct Store {
    /// 32 bits of the key's hash → record index (a key whose hash bits are taken goes to
    /// `spill`, searched linearly: rare).
    index: HashMap<u32, u32, BuildHasherDefault<IdHasher>>,
    spill: Vec<u32>,
    keys: Vec<f64>,
    counts: Vec<Counts>,
    recs: Vec<FvRec>,
    /// Exploration parameters.
    pub params: Params,
    nv: usize,
    /// Training samples: counted pairs over all vectors.
    pub counted: usize,
    /// Decided feature vectors.
    pub decided: usize,
    /// Executions recorded by exploration (this process, every generation).
    pub recorded_explore: u64,
    /// Drift resets so far in this process.
    pub generation: u32,
    /// A reset happened since the data was last saved: the next save says so.
    pub reset_unsaved: bool,
    rng: XorShift,
    /// Coarse mode: the variant each feature vector runs for this whole run.
    pub pins: HashMap<FKey, usize, FxBuild>,
}

impl std::fmt::Debug for IdHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IdHasher")
    }
}

impl Store {
    /// An empty store for `nv` variants.
    pub fn new(nv: usize, params: Params, seed: u64) -> Store {
        Store {
            index: HashMap::default(),
            spill: Vec::new(),
            keys: Vec::new(),
            counts: Vec::new(),
            recs: Vec::new(),
            params,
            nv,
            counted: 0,
            decided: 0,
            recorded_explore: 0,
            generation: 0,
            reset_unsaved: false,
            rng: XorShift::new(seed),
            pins: HashMap::default(),
        }
    }

    /// Feature vectors with data.
    pub fn len(&self) -> usize {
        self.recs.len()
    }

    /// Whether no feature vector has data.
    pub fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }

    /// Number of variants.
    pub fn nv(&self) -> usize {
        self.nv
    }

    fn key_slice(&self, i: usize) -> &[f64] {
        let r = &self.recs[i];
        &self.keys[r.key_off()..r.key_off() + r.nf()]
    }

    /// The feature vector at index `i`.
    pub fn key(&self, i: usize) -> FKey {
        FKey::new(self.key_slice(i))
    }

    /// Whether the vector at index `i` is `f`.
    pub fn key_matches(&self, i: usize, f: &[f64]) -> bool {
        i < self.recs.len() && FKey::new(self.key_slice(i)).matches(f)
    }

    /// Whether the vector at index `i` is `key`.
    pub fn key_is(&self, i: usize, key: &FKey) -> bool {
        i < self.recs.len() && key.matches(self.key_slice(i))
    }

    /// The record at index `i`.
    pub fn rec(&self, i: usize) -> &FvRec {
        &self.recs[i]
    }

    /// The per-variant counters of the vector at index `i`.
    pub fn counts(&self, i: usize) -> &[Counts] {
        &self.counts[i * self.nv..(i + 1) * self.nv]
    }

    fn fv_mut(&mut self, i: usize) -> Fv<'_> {
        Fv { rec: &mut self.recs[i], counts: &mut self.counts[i * self.nv..(i + 1) * self.nv] }
    }

    fn hash32(key: &FKey) -> u32 {
        (key.hash64() >> 32) as u32
    }

    /// Index of `key`'s data, if any.
    pub fn find(&self, key: &FKey) -> Option<usize> {
        let hit = |i: u32| FKey::new(self.key_slice(i as usize)) == *key;
        match self.index.get(&Self::hash32(key)) {
            Some(&i) if hit(i) => Some(i as usize),
            Some(_) => self.spill.iter().copied().find(|&i| hit(i)).map(|i| i as usize),
            None => None,
        }
    }

    /// Index of `key`'s data, created empty if new.
    pub fn fv(&mut self, key: &FKey) -> usize {
        if let Some(i) = self.find(key) {
            return i;
        }
        let i = self.recs.len() as u32;
        let vals = key.values();
        self.recs.push(FvRec::new(self.keys.len(), vals.len(), self.nv));
        self.keys.extend_from_slice(&vals);
        self.counts.extend(std::iter::repeat_n(Counts::default(), self.nv));
        match self.index.entry(Self::hash32(key)) {
            std::collections::hash_map::Entry::Occupied(_) => self.spill.push(i),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(i);
            }
        }
        i as usize
    }

    /// The variant an exploring execution of `key` runs when chosen under the lock (a thread
    /// whose shard is full), and the vector's index.
    pub fn choose(&mut self, key: &FKey) -> (usize, usize) {
        let i = self.fv(key);
        let p = self.params;
        let k: u64 = self.counts(i).iter().map(|c| c.count as u64).sum();
        let mut rng = self.rng.clone();
        let v = self.fv_mut(i).choose(&p, k, &mut rng);
        self.rng = rng;
        (v, i)
    }

    /// Records a measurement of variant `v` on `key`.
    pub fn record(&mut self, key: &FKey, v: usize, ns: f64) {
        let i = self.fv(key);
        self.record_at(i, v, ns);
    }

    /// Records a measurement of variant `v` on the vector at index `i`.
    #[inline]
    pub fn record_at(&mut self, i: usize, v: usize, ns: f64) {
        let p = self.params;
        let (dc, newly) = self.fv_mut(i).record(v, ns, &p);
        self.apply(dc, newly);
        self.recorded_explore += 1;
    }

    /// Adds measurements loaded from files (already saved: they are not written again).
    pub fn absorb(&mut self, key: &FKey, v: usize, count: u32, times: &[f64]) {
        if v >= self.nv || count == 0 {
            return;
        }
        let i = self.fv(key);
        let p = self.params;
        let mut fv = self.fv_mut(i);
        let times = &times[times.len().saturating_sub(2 * crate::explore::KEEP - 1)..];
        for &t in times {
            fv.keep(v, t);
            fv.counts[v].count = fv.counts[v].count.saturating_add(1);
        }
        let c = &mut fv.counts[v];
        c.count = c.count.saturating_add(count.saturating_sub(times.len() as u32));
        c.saved = c.count;
        let (dc, newly) = fv.refresh(&p);
        self.apply(dc, newly);
    }

    fn apply(&mut self, dc: i64, newly: bool) {
        self.counted = (self.counted as i64 + dc).max(0) as usize;
        if newly {
            self.decided += 1;
        }
    }

    /// Changes the exploration parameters and re-derives eliminations and decisions.
    pub fn set_params(&mut self, p: Params) {
        self.params = p;
        self.counted = 0;
        self.decided = 0;
        for i in 0..self.recs.len() {
            let mut fv = self.fv_mut(i);
            fv.rec.decided = UNDECIDED;
            fv.rec.alive = all_mask(fv.counts.len());
            fv.rec.counted = 0;
            let (dc, newly) = fv.refresh(&p);
            self.counted = (self.counted as i64 + dc) as usize;
            self.decided += newly as usize;
        }
    }

    /// Whether there is enough to train on: `min_train` training samples and a decided vector.
    pub fn ready(&self, min_train: usize) -> bool {
        self.counted >= min_train && self.decided >= 1
    }

    /// The training set: every decided vector and its label.
    pub fn labels(&self) -> Vec<(FKey, usize)> {
        (0..self.len()).filter_map(|i| self.recs[i].decided().map(|l| (self.key(i), l))).collect()
    }

    /// Labels for an explicit training call: decided vectors, else every vector whose variants
    /// all have a measurement (lowest median).
    pub fn labels_for_explicit_training(&self) -> Vec<(FKey, usize)> {
        let l = self.labels();
        if !l.is_empty() {
            return l;
        }
        let all: Vec<usize> = (0..self.nv).collect();
        (0..self.len())
            .filter(|&i| self.counts(i).iter().all(|c| c.count > 0))
            .filter_map(|i| self.recs[i].label_among(&all, Labeling::Median).map(|l| (self.key(i), l)))
            .collect()
    }

    /// The label of vector `i` when every variant has a measurement (data pooled from other
    /// ranks carries no exploration state): lowest median.
    pub fn label_any(&self, i: usize) -> Option<usize> {
        let all: Vec<usize> = (0..self.nv).collect();
        self.recs[i].label_among(&all, Labeling::Median)
    }

    /// Every retained measurement: (feature vector, variant, ns).
    pub fn rows(&self) -> Vec<(FKey, usize, f64)> {
        let mut out = Vec::new();
        for i in 0..self.len() {
            let k = self.key(i);
            out.extend(self.recs[i].times.iter().map(|s| (k, s.v as usize, s.ns as f64)));
        }
        out
    }

    /// Median time per measured (feature vector, variant) pair: the time model's data.
    pub fn medians(&self) -> Vec<(FKey, usize, f64)> {
        let mut out = Vec::new();
        for i in 0..self.len() {
            let k = self.key(i);
            for v in 0..self.nv {
                if let Some(m) = self.recs[i].median(v) {
                    out.push((k, v, m));
                }
            }
        }
        out
    }

    /// For persistence: per (vector, variant) the measurements newer than the last save — their
    /// number and the retained ones among them, oldest first — marked saved.
    pub fn take_unsaved(&mut self) -> Vec<(FKey, usize, u32, Vec<f64>)> {
        let mut out = Vec::new();
        for i in 0..self.len() {
            let k = self.key(i);
            let o = i * self.nv;
            for v in 0..self.nv {
                let c = &mut self.counts[o + v];
                let new = c.count.saturating_sub(c.saved);
                if new == 0 {
                    continue;
                }
                c.saved = c.count;
                let t = self.recs[i].times_of(v);
                let keep = (new as usize).min(t.len());
                out.push((k, v, new, t[t.len() - keep..].to_vec()));
            }
        }
        out
    }

    /// Coarse mode: the variant of vector `key` with the fewest recorded runs (lowest index on
    /// ties).
    pub fn least_measured(&mut self, key: &FKey) -> usize {
        let i = self.fv(key);
        let c = self.counts(i);
        (0..c.len()).min_by_key(|&v| c[v].count).unwrap_or(0)
    }

    /// Forgets every measurement (drift: they describe costs that no longer hold).
    pub fn reset(&mut self) {
        self.index.clear();
        self.spill.clear();
        self.keys.clear();
        self.counts.clear();
        self.recs.clear();
        self.counted = 0;
        self.decided = 0;
        self.generation += 1;
        self.reset_unsaved = true;
    }

    /// Retained measurements (the "stored samples" of the memory figure).
    pub fn stored_samples(&self) -> usize {
        self.recs.iter().map(|r| r.times.len()).sum()
    }

    /// Heap bytes of the stored data: records, sample lists, key and counter arenas, index
    /// (allocated capacities; the hash index as hashbrown lays it out: a bucket and a control
    /// byte per slot, buckets a power of two at most 7/8 full).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let buckets = if self.index.is_empty() { 0 } else { (self.index.capacity() * 8 / 7).next_power_of_two() };
        self.recs.capacity() * size_of::<FvRec>()
            + self.recs.iter().map(|r| r.times.capacity() * size_of::<crate::explore::Sample>()).sum::<usize>()
            + self.keys.capacity() * 8
            + self.counts.capacity() * size_of::<Counts>()
            + self.spill.capacity() * 4
            + buckets * (size_of::<(u32, u32)>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::Strategy;

    #[test]
    fn counts_pairs_and_decisions() {
        let mut s = Store::new(2, Params { repeats: 2, ..Params::default() }, 1);
        let a = FKey::new(&[1.0]);
        let b = FKey::new(&[2.0]);
        for (k, v, t) in [(a, 0, 5.0), (a, 1, 9.0), (b, 0, 5.0)] {
            s.record(&k, v, t);
        }
        assert_eq!((s.counted, s.decided), (0, 0));
        s.record(&a, 0, 6.0);
        s.record(&a, 1, 8.0);
        assert_eq!((s.counted, s.decided), (2, 1));
        assert!(s.ready(2) && !s.ready(3));
        assert_eq!(s.labels(), vec![(a, 0)]);
        assert_eq!(s.rows().len(), 5);
        s.absorb(&b, 1, 4, &[1.0, 2.0]);
        assert_eq!(s.counts(1)[1], Counts { count: 4, saved: 4, kept: 2 });
        assert_eq!(s.counted, 3);
        assert_eq!(s.key(1), b);
        assert!(s.key_matches(1, &[2.0]) && !s.key_matches(1, &[1.0]));
        let unsaved = s.take_unsaved();
        assert_eq!(unsaved.len(), 3, "b/1 was loaded");
        assert!(s.take_unsaved().is_empty());
        s.reset();
        assert_eq!((s.counted, s.decided, s.len(), s.generation), (0, 0, 0, 1));
    }

    #[test]
    fn strategy_change_rederives() {
        let mut s = Store::new(3, Params { repeats: 3, ..Params::default() }, 1);
        let a = FKey::new(&[1.0]);
        for _ in 0..2 {
            for (v, t) in [(0, 10.0), (1, 100.0), (2, 100.0)] {
                s.record(&a, v, t);
            }
        }
        assert_eq!(s.decided, 0);
        s.set_params(Params { strategy: Strategy::Elimination, repeats: 3, ..Params::default() });
        assert_eq!((s.decided, s.counted), (1, 3));
        assert_eq!(s.labels(), vec![(a, 0)]);
    }

    #[test]
    fn hash_collisions_are_kept_apart() {
        let mut s = Store::new(2, Params::default(), 1);
        let a = FKey::new(&[1.0]);
        let b = FKey::new(&[2.0]);
        let ia = s.fv(&a);
        // force b into the spill list as if it collided with a
        s.recs.push(FvRec { alive: 3, ..FvRec::new(s.keys.len(), 1, 2) });
        s.keys.push(2.0);
        s.counts.extend([Counts::default(); 2]);
        s.spill.push(1);
        assert_eq!(s.find(&a), Some(ia));
        assert_eq!(s.find(&b), None, "b's hash is not in the index");
        s.index.insert(Store::hash32(&b), ia as u32); // b's hash points at a: must fall back to spill
        assert_eq!(s.find(&b), Some(1));
    }

    /// The memory figure: bytes per stored sample at a few shapes (2 features).
    #[test]
    fn memory_per_stored_sample() {
        for (nv, repeats, fvs, limit) in [(2usize, 1u32, 1000usize, 64.0), (4, 1, 1000, 64.0), (4, 3, 1000, 32.0)] {
            let mut s = Store::new(nv, Params { repeats, ..Params::default() }, 1);
            for f in 0..fvs {
                for _ in 0..repeats {
                    for v in 0..nv {
                        s.record(&FKey::new(&[f as f64, 8.0]), v, 1000.0);
                    }
                }
            }
            let per = s.heap_bytes() as f64 / s.stored_samples() as f64;
            assert!(per <= limit, "{nv} variants × {repeats}: {per:.1} bytes per stored sample");
        }
    }
}

#[cfg(test)]
mod strategy_tests {
    use super::*;
    use crate::explore::Strategy;

    /// Explores 12 vectors × 4 variants with `strategy` until all are decided; times from
    /// `cost` with ±3 % noise and 1 measurement in 50 preempted (×20). Returns (exploring
    /// executions, decisions).
    fn run(strategy: Strategy, repeats: u32, cost: &dyn Fn(usize, usize) -> f64) -> (usize, Vec<usize>) {
        let mut s = Store::new(4, Params { strategy, repeats, ..Params::default() }, 7);
        let mut noise = XorShift::new(99);
        let keys: Vec<FKey> = (0..12).map(|f| FKey::new(&[f as f64])).collect();
        let mut n = 0;
        while s.decided < 12 {
            for (f, k) in keys.iter().enumerate() {
                if s.find(k).and_then(|i| s.rec(i).decided()).is_some() {
                    continue;
                }
                let (v, _) = s.choose(k);
                let jitter = 1.0 + (noise.below(601) as f64 - 300.0) / 10_000.0;
                let preempt = if noise.below(50) == 0 { 20.0 } else { 1.0 };
                s.record(k, v, cost(f, v) * jitter * preempt);
                n += 1;
            }
            assert!(n < 100_000);
        }
        (n, keys.iter().map(|k| s.rec(s.find(k).unwrap()).decided().unwrap()).collect())
    }

    /// On controlled cost models with noise and preemptions, every strategy reaches
    /// round-robin's decisions (which are the true best variants), and successive elimination
    /// needs fewer exploring executions.
    #[test]
    fn strategies_reach_the_same_decisions() {
        let separated = |f: usize, v: usize| 10_000.0 * (1 + (v + 4 - f % 4) % 4) as f64;
        let threads = |f: usize, v: usize| {
            let t = [1.0, 2.0, 4.0, 8.0][v];
            2_000.0 * (1 + f) as f64 / f64::min(t, 2.0) + 3_000.0 * t
        };
        let models: [(&dyn Fn(usize, usize) -> f64, &str); 2] = [(&separated, "separated"), (&threads, "threads")];
        for (cost, name) in models {
            let truth: Vec<usize> =
                (0..12).map(|f| (0..4).min_by(|&a, &b| cost(f, a).total_cmp(&cost(f, b))).unwrap()).collect();
            for repeats in [3, 5] {
                let rr = run(Strategy::RoundRobin, repeats, &cost);
                let rnd = run(Strategy::Random, repeats, &cost);
                let se = run(Strategy::Elimination, repeats, &cost);
                assert_eq!(rr.1, truth, "{name}, {repeats} repeats: round-robin");
                assert_eq!(rnd.1, rr.1, "{name}, {repeats} repeats: random");
                assert_eq!(se.1, rr.1, "{name}, {repeats} repeats: elimination");
                assert_eq!(rr.0, 12 * 4 * repeats as usize);
                assert!(se.0 * 10 <= rr.0 * 7, "{name}, {repeats}: elimination {} vs round-robin {}", se.0, rr.0);
            }
        }
    }
}
