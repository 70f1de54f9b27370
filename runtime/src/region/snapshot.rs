//! Read-only views of a region's data (report, persistence, tests).

use std::sync::atomic::Ordering::*;

use super::{Inner, Region, Settings};
use crate::clock;
use crate::explore::{all_mask, Params};
use crate::stats::{FeatureKey, FxBuild};

impl Region {
    /// Executions that reached `end` (recorded or not).
    pub fn executions(&self) -> u64 {
        let mut g = self.lock();
        self.adopt_pending(&mut g);
        self.executions_locked(&g)
    }

    /// [`Region::executions`] for a caller that holds the lock (buffered exploring
    /// measurements not yet in the measurement table are not counted).
    pub(super) fn executions_locked(&self, g: &Inner) -> u64 {
        let mut n = self.unrecorded.load(Relaxed) + g.measurements.recorded_explore + g.overflow.values().map(|x| x.0).sum::<u64>();
        let nv = self.nvariants();
        self.shards.for_each(|s| s.for_each(|slot| n += (0..nv).map(|v| slot.count(v).load(Relaxed)).sum::<u64>()));
        n
    }

    /// Trained-execution counters per (feature vector, variant), summed over threads.
    pub fn monitored(&self) -> Vec<(FeatureKey, Vec<Monitored>)> {
        let nv = self.nvariants();
        let mut index: std::collections::HashMap<FeatureKey, usize, FxBuild> = Default::default();
        let mut out: Vec<(FeatureKey, Vec<Monitored>)> = Vec::new();
        let mut add = |k: &FeatureKey, v: usize, m: Monitored| {
            if m.count == 0 {
                return;
            }
            let i = *index.entry(*k).or_insert_with(|| {
                out.push((*k, vec![Monitored::default(); nv]));
                out.len() - 1
            });
            let o = &mut out[i].1[v];
            o.count = o.count.saturating_add(m.count);
            o.timed = o.timed.saturating_add(m.timed);
            o.sum_ns = o.sum_ns.saturating_add(m.sum_ns);
        };
        let ns = |ticks: u64| clock::to_ns(ticks);
        self.shards.for_each(|s| {
            s.for_each(|slot| {
                for v in 0..nv {
                    let m = Monitored {
                        count: slot.count(v).load(Relaxed),
                        timed: slot.timed(v).load(Relaxed),
                        sum_ns: ns(slot.ticks(v).load(Relaxed)),
                    };
                    add(slot.key(), v, m);
                }
            })
        });
        for ((k, v), &(count, timed, ticks)) in self.lock().overflow.iter() {
            add(k, *v, Monitored { count, timed, sum_ns: ns(ticks) });
        }
        out
    }

    /// A copy of the region's data.
    pub fn snapshot(&self) -> Snapshot {
        let monitored = self.monitored();
        let unrecorded = self.unrecorded.load(Relaxed);
        let mut g = self.lock();
        self.adopt_pending(&mut g);
        let nv = self.nvariants();
        let st = &g.measurements;
        let mut entries: Vec<EntryView> = (0..st.len())
            .map(|i| EntryView {
                key: st.key(i),
                decided: st.rec(i).decided(),
                alive: st.rec(i).alive,
                per_variant: (0..nv)
                    .map(|v| PairView {
                        count: st.counts(i)[v].count as u64,
                        times: st.rec(i).times_of(v),
                        estimate: st.rec(i).estimate(v).map(|e| e.0),
                        model_count: 0,
                        model_timed: 0,
                        model_sum_ns: 0,
                    })
                    .collect(),
            })
            .collect();
        let mut recorded_model = 0;
        for (k, per) in monitored {
            let i = match entries.iter().position(|e| e.key == k) {
                Some(i) => i,
                None => {
                    entries.push(EntryView { key: k, decided: None, alive: all_mask(nv), per_variant: vec![PairView::default(); nv] });
                    entries.len() - 1
                }
            };
            for (v, m) in per.into_iter().enumerate() {
                let p = &mut entries[i].per_variant[v];
                p.model_count += m.count;
                p.model_timed += m.timed;
                p.model_sum_ns += m.sum_ns;
                recorded_model += m.count;
            }
        }
        Snapshot {
            entries,
            training_samples: g.measurements.counted,
            decided: g.measurements.decided,
            recorded_explore: g.measurements.recorded_explore,
            recorded_model,
            unrecorded,
            stored_samples: g.measurements.stored_samples(),
            heap_bytes: g.measurements.heap_bytes(),
            generation: g.measurements.generation,
            params: g.measurements.params,
            settings: g.settings.clone(),
            threads: self.shards.threads(),
        }
    }
}

/// Trained executions of one (feature vector, variant) pair: all are counted, one in
/// `OMPADAPT_SAMPLE` is timed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Monitored {
    /// Executions counted.
    pub count: u64,
    /// Executions timed.
    pub timed: u64,
    /// Sum of the timed ones' times.
    pub sum_ns: u64,
}

/// One variant's data on one feature vector.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairView {
    /// Exploring executions recorded (including earlier runs').
    pub count: u64,
    /// Their retained times, ns, oldest first.
    pub times: Vec<f64>,
    /// The robust time labels use (see `explore`).
    pub estimate: Option<f64>,
    /// Executions the model chose.
    pub model_count: u64,
    /// Those of them that were timed.
    pub model_timed: u64,
    /// Sum of the timed ones' times, ns.
    pub model_sum_ns: u64,
}

impl PairView {
    /// All recorded executions.
    pub fn total(&self) -> u64 {
        self.count + self.model_count
    }

    /// Median of the exploring times.
    pub fn median(&self) -> Option<f64> {
        crate::stats::median_f64(&self.times)
    }

    /// Mean over exploring (retained) and timed model-chosen executions.
    pub fn mean(&self) -> Option<f64> {
        let n = self.times.len() as u64 + self.model_timed;
        (n > 0).then(|| (self.times.iter().sum::<f64>() + self.model_sum_ns as f64) / n as f64)
    }
}

/// One feature vector's data.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryView {
    /// The feature vector.
    pub key: FeatureKey,
    /// Label from exploration, once decided.
    pub decided: Option<usize>,
    /// Variants still candidates (successive elimination).
    pub alive: u64,
    /// Each variant's data on this vector, in variant order.
    pub per_variant: Vec<PairView>,
}

/// A snapshot of a region's data, for the report, persistence and tests.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Every feature vector measured or decided by the model.
    pub entries: Vec<EntryView>,
    /// Training samples: counted (feature vector, variant) pairs.
    pub training_samples: usize,
    /// Feature vectors decided by exploration.
    pub decided: usize,
    /// Executions recorded by exploration (this process).
    pub recorded_explore: u64,
    /// Executions the model chose (this process).
    pub recorded_model: u64,
    /// Executions that ran but were not recorded (warm-up, invalid variant).
    pub unrecorded: u64,
    /// Retained measurements (the unit of the memory-per-sample figure).
    pub stored_samples: usize,
    /// Heap bytes of the stored measurements (see `MeasurementTable::heap_bytes`).
    pub heap_bytes: usize,
    /// The measurement table's generation (bumped when its indices become invalid).
    pub generation: u32,
    /// Exploration parameters.
    pub params: Params,
    /// The settings a region can change at run time.
    pub settings: Settings,
    /// Threads that ran trained executions.
    pub threads: usize,
}

impl Snapshot {
    /// All executions that reached `end`.
    pub fn executions(&self) -> u64 {
        self.recorded_explore + self.recorded_model + self.unrecorded
    }
}
