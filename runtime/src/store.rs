//! A region's measurements while it explores, and the counters that decide when it trains.
//!
//! One `Store` per region, behind the region's mutex: it is touched by exploring executions
//! (choose a variant, record a time), by training (labels), by drift resets and by
//! persistence — never by a trained execution, which records into per-thread shards instead
//! (see `shard`).
//!
//! Training samples (`min_train_data`) are **distinct (feature vector, variant) pairs** with
//! enough measurements: `repeats` of them, or at least one when successive elimination ruled
//! the variant out. With the default `repeats = 1` this is exactly Apollo's and the paper's
//! count. Training also needs one decided feature vector (see `explore`).

use std::collections::HashMap;

use crate::explore::{FvData, Labeling, Params};
use crate::stats::{FKey, FxBuild, XorShift};

/// The measurements of one region in this generation (since the last drift reset).
#[derive(Debug)]
pub struct Store {
    index: HashMap<FKey, u32, FxBuild>,
    /// Per feature vector, in first-seen order.
    pub fvs: Vec<FvData>,
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

impl Store {
    /// An empty store for `nv` variants.
    pub fn new(nv: usize, params: Params, seed: u64) -> Store {
        Store {
            index: HashMap::default(),
            fvs: Vec::new(),
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

    /// Index of `key`'s data, created empty if new.
    pub fn fv(&mut self, key: &FKey) -> usize {
        if let Some(&i) = self.index.get(key) {
            return i as usize;
        }
        self.fvs.push(FvData::new(*key, self.nv));
        self.index.insert(*key, (self.fvs.len() - 1) as u32);
        self.fvs.len() - 1
    }

    /// Index of `key`'s data, if any.
    pub fn find(&self, key: &FKey) -> Option<usize> {
        self.index.get(key).map(|&i| i as usize)
    }

    /// The variant an exploring execution of `key` runs, and the vector's index.
    pub fn choose(&mut self, key: &FKey) -> (usize, usize) {
        let i = self.fv(key);
        let p = self.params;
        (self.fvs[i].choose(&p, &mut self.rng), i)
    }

    /// Records a measurement of variant `v` on `key`.
    pub fn record(&mut self, key: &FKey, v: usize, ns: f64) {
        let i = self.fv(key);
        self.record_at(i, v, ns);
    }

    /// Records a measurement of variant `v` on the vector at index `i`.
    pub fn record_at(&mut self, i: usize, v: usize, ns: f64) {
        let p = self.params;
        let (dc, newly) = self.fvs[i].record(v, ns, &p);
        self.apply(dc, newly);
        self.recorded_explore += 1;
    }

    /// Adds measurements loaded from files (already saved: they are not written again).
    pub fn absorb(&mut self, key: &FKey, v: usize, count: u32, times: &[f64]) {
        if v >= self.nv || count == 0 {
            return;
        }
        let i = self.fv(key);
        let pair = &mut self.fvs[i].pairs[v];
        let dropped = count.saturating_sub(times.len() as u32);
        for &t in times {
            pair.record(t);
        }
        pair.count = pair.count.saturating_add(dropped);
        pair.saved = pair.count;
        let p = self.params;
        let (dc, newly) = self.fvs[i].refresh(&p);
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
        for fv in &mut self.fvs {
            fv.decided = None;
            fv.alive = crate::explore::all_mask(fv.pairs.len());
            fv.counted = 0;
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
        self.fvs.iter().filter_map(|f| f.decided.map(|l| (f.key, l as usize))).collect()
    }

    /// Labels for an explicit training call: decided vectors, else every vector whose variants
    /// all have a measurement (lowest median).
    pub fn labels_for_explicit_training(&self) -> Vec<(FKey, usize)> {
        let l = self.labels();
        if !l.is_empty() {
            return l;
        }
        self.fvs
            .iter()
            .filter(|f| f.pairs.iter().all(|p| p.count > 0))
            .filter_map(|f| f.label_among(&(0..self.nv).collect::<Vec<_>>(), Labeling::Median).map(|l| (f.key, l)))
            .collect()
    }

    /// Every retained measurement: (feature vector, variant, ns).
    pub fn rows(&self) -> Vec<(FKey, usize, f64)> {
        let mut out = Vec::new();
        for f in &self.fvs {
            for (v, p) in f.pairs.iter().enumerate() {
                out.extend(p.times_in_order().into_iter().map(|t| (f.key, v, t)));
            }
        }
        out
    }

    /// Median time per measured (feature vector, variant) pair: the time model's data.
    pub fn medians(&self) -> Vec<(FKey, usize, f64)> {
        let mut out = Vec::new();
        for f in &self.fvs {
            for (v, p) in f.pairs.iter().enumerate() {
                if let Some(m) = p.median() {
                    out.push((f.key, v, m));
                }
            }
        }
        out
    }

    /// Forgets every measurement (drift: they describe costs that no longer hold).
    pub fn reset(&mut self) {
        self.index.clear();
        self.fvs.clear();
        self.counted = 0;
        self.decided = 0;
        self.generation += 1;
        self.reset_unsaved = true;
    }

    /// Retained measurements in the store (the "stored samples" of the memory figure).
    pub fn stored_samples(&self) -> usize {
        self.fvs.iter().flat_map(|f| &f.pairs).map(|p| p.times.len()).sum()
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
        assert_eq!(s.fvs[1].pairs[1].count, 4);
        assert_eq!(s.fvs[1].pairs[1].saved, 4);
        assert_eq!(s.counted, 3);
        s.reset();
        assert_eq!((s.counted, s.decided, s.fvs.len(), s.generation), (0, 0, 0, 1));
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
}
