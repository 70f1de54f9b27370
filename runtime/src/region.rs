//! One adaptive region: exploration, recording, training trigger and model-driven selection.
//!
//! Concurrency model (issue 2):
//! * nothing about "the current execution" lives here; everything an execution needs between
//!   `begin` and `end` is in its [`Ctx`] (features, variant, start time and flags in `t0`);
//! * exploration state and timings are behind one `Mutex` per region (`begin` takes it only
//!   while exploring, `end` takes it to record);
//! * the trained model is published once through an `AtomicPtr` (release store / acquire load),
//!   so a trained `begin` takes no lock and allocates nothing;
//! * exactly one thread trains: the one whose `end` wins the `training` flag.

use std::collections::HashMap;
use std::os::raw::{c_int, c_void};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::clock;
use crate::ctx::{Ctx, MAX_FEATURES, T0_NO_RECORD};
use crate::diag;
use crate::model::{self, Compiled, FlatTree, ModelChoice};
use crate::spec::Spec;
use crate::stats::{FKey, FxBuild, VariantStats};

/// Bit of `Ctx::t0` marking an execution whose variant the model chose (for the report).
pub(crate) const T0_MODEL: u64 = 1 << 62;
const T0_FLAGS: u64 = T0_NO_RECORD | T0_MODEL;

/// A trained, published model and how it came to be.
#[derive(Debug)]
pub struct Trained {
    /// The compiled model.
    pub compiled: Compiled,
    /// What was asked for.
    pub choice: ModelChoice,
    /// The training set: each complete feature vector and its label (fastest median variant).
    pub labels: Vec<(FKey, usize)>,
    /// Training samples (distinct measured (feature vector, variant) pairs) when trained.
    pub training_samples: usize,
    /// Executions of the region (recorded or not) when trained.
    pub executions: u64,
    /// Wall time of fitting + compiling, ns.
    pub train_ns: u64,
    /// Set when linfa failed and the model is a constant fallback; the reason.
    pub fallback: Option<String>,
}

/// Timings of one feature vector.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The feature vector.
    pub key: FKey,
    /// Executions begun for it while exploring (the round-robin counter).
    pub begun: u64,
    /// Timings per variant.
    pub per_variant: Vec<VariantStats>,
}

impl Entry {
    fn new(key: FKey, nvariants: usize) -> Entry {
        Entry { key, begun: 0, per_variant: vec![VariantStats::default(); nvariants] }
    }

    /// Whether every variant has at least one measurement.
    pub fn complete(&self) -> bool {
        self.per_variant.iter().all(|s| s.count > 0)
    }

    /// Fastest variant by median time (ties: lower index), when every variant is measured.
    pub fn best_by_median(&self) -> Option<usize> {
        if !self.complete() {
            return None;
        }
        let mut best: Option<(usize, f64)> = None;
        for (v, s) in self.per_variant.iter().enumerate() {
            let m = s.median()?;
            if best.is_none_or(|(_, bm)| m < bm) {
                best = Some((v, m));
            }
        }
        best.map(|(v, _)| v)
    }
}

#[derive(Debug, Default)]
struct State {
    index: HashMap<FKey, usize, FxBuild>,
    entries: Vec<Entry>,
    /// Distinct (feature vector, variant) pairs with ≥ 1 measurement.
    training_samples: usize,
    /// Feature vectors with every variant measured.
    complete: usize,
    /// Recorded executions, split by who chose the variant.
    recorded_explore: u64,
    recorded_model: u64,
}

impl State {
    fn entry(&mut self, key: FKey, nvariants: usize) -> &mut Entry {
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                self.entries.push(Entry::new(key, nvariants));
                self.index.insert(key, self.entries.len() - 1);
                self.entries.len() - 1
            }
        };
        &mut self.entries[i]
    }

    /// Merges `stats` into (key, v), keeping the training-sample counters right.
    fn add(&mut self, key: FKey, v: usize, nvariants: usize, f: impl FnOnce(&mut VariantStats)) {
        let e = self.entry(key, nvariants);
        let was_new = e.per_variant[v].count == 0;
        let was_complete = e.complete();
        f(&mut e.per_variant[v]);
        let now_measured = e.per_variant[v].count > 0;
        let now_complete = e.complete();
        if was_new && now_measured {
            self.training_samples += 1;
        }
        if !was_complete && now_complete {
            self.complete += 1;
        }
    }
}

/// A snapshot of a region's data, for the report, persistence and tests.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Per feature vector timings, in first-seen order.
    pub entries: Vec<Entry>,
    /// Distinct measured (feature vector, variant) pairs.
    pub training_samples: usize,
    /// Recorded executions chosen by exploration.
    pub recorded_explore: u64,
    /// Recorded executions chosen by the model.
    pub recorded_model: u64,
    /// Executions that ran but were not recorded (warm-up, invalid variant).
    pub unrecorded: u64,
}

impl Snapshot {
    /// All executions that reached `end`.
    pub fn executions(&self) -> u64 {
        self.recorded_explore + self.recorded_model + self.unrecorded
    }
}

/// An adaptive region. Created by the [`crate::registry`], alive for the whole process.
#[derive(Debug)]
pub struct Region {
    /// The descriptor (for a malformed one: a stand-in with the region's best-effort name).
    pub spec: Spec,
    /// Training samples needed before training (see [`Region::new`]).
    pub min_train: usize,
    /// Model to train.
    pub choice: ModelChoice,
    /// `(min_train, param1, param2)` as passed by the first call site.
    pub args: (i64, i64, i64),
    /// Why the spec is unusable; such a region always runs variant 0 and records nothing.
    pub broken: Option<String>,
    warmup: bool,
    /// Per variant: has its warm-up execution been handed out in this process?
    warmed: Box<[AtomicBool]>,
    model: AtomicPtr<Trained>,
    training: AtomicBool,
    unrecorded: AtomicU64,
    state: Mutex<State>,
    /// Where the samples are saved at exit (`None`: not persisted).
    pub persist_path: Mutex<Option<PathBuf>>,
}

impl Region {
    /// A region for `spec`.
    ///
    /// `min_train < 1` (the plugin passes -1 when `min_train_data` is absent) means "as many as
    /// there are variants". Training additionally waits until at least one feature vector has
    /// every variant measured, so a region never trains on labels it cannot compute.
    pub fn new(spec: Spec, min_train: i64, p1: i64, p2: i64, warmup: bool, model_override: Option<ModelChoice>) -> Region {
        let nv = spec.variants.len();
        let choice = model_override.unwrap_or_else(|| ModelChoice::resolve(spec.model_type, p1, p2));
        Region {
            min_train: if min_train >= 1 { min_train as usize } else { nv },
            choice,
            args: (min_train, p1, p2),
            broken: None,
            warmup,
            warmed: (0..nv).map(|_| AtomicBool::new(false)).collect(),
            model: AtomicPtr::new(std::ptr::null_mut()),
            training: AtomicBool::new(false),
            unrecorded: AtomicU64::new(0),
            state: Mutex::new(State::default()),
            persist_path: Mutex::new(None),
            spec,
        }
    }

    /// A region whose spec could not be used: variant 0 forever, nothing recorded.
    pub fn broken(name: String, reason: String) -> Region {
        let spec = Spec {
            model: name,
            loc: "?".to_owned(),
            features: Vec::new(),
            variants: vec!["variant 0".to_owned()],
            values: vec![0.0],
            numeric: false,
            model_type: crate::spec::ModelType::DecisionTree,
        };
        let mut r = Region::new(spec, -1, -1, -1, false, None);
        r.broken = Some(reason);
        r
    }

    /// Number of variants.
    pub fn nvariants(&self) -> usize {
        self.spec.variants.len()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock (caught at the FFI boundary) must not disable the region.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The published model, if trained.
    pub fn trained(&self) -> Option<&Trained> {
        let p = self.model.load(Ordering::Acquire);
        // SAFETY: published models are never freed (see `publish`).
        unsafe { p.as_ref() }
    }

    /// Whether a model decides the executions.
    pub fn is_trained(&self) -> bool {
        !self.model.load(Ordering::Acquire).is_null()
    }

    /// The model's decision for `features` (None while exploring).
    pub fn decide(&self, features: &[f64]) -> Option<usize> {
        self.trained().map(|t| t.compiled.predict(&FKey::new(features).padded()))
    }

    /// Starts one execution: fills `ctx` (features, variant, value, start time).
    #[inline]
    pub fn begin(&self, features: &[f64], ctx: &mut Ctx) {
        let n = features.len().min(MAX_FEATURES);
        ctx.region = self as *const Region as *mut c_void;
        ctx.nfeatures = n as c_int;
        ctx.features[..n].copy_from_slice(&features[..n]);
        ctx.features[n..].fill(0.0);

        let mut flags = 0;
        let variant = if self.broken.is_some() {
            flags = T0_NO_RECORD;
            0
        } else if let Some(t) = self.trained() {
            flags = T0_MODEL;
            t.compiled.predict(&ctx.features)
        } else {
            // Round-robin per distinct feature vector: the k-th execution begun for a vector
            // runs variant k mod V, so every vector sees every variant in V executions.
            let nv = self.nvariants();
            let mut st = self.lock();
            let e = st.entry(FKey::new(&ctx.features[..n]), nv);
            let v = (e.begun % nv as u64) as usize;
            e.begun += 1;
            v
        };
        let variant = variant.min(self.nvariants() - 1);
        // Warm-up: the first execution of each variant of each region in this process runs but
        // is not recorded. With offloading, the first target region initialises libomptarget
        // and the device and loads the kernel image, which would make `gpu` look slow on
        // exactly the sample that labels it. Per region (not per process) because each region
        // has its own kernel and first-touch costs. OMPADAPT_WARMUP=0 disables it.
        if self.warmup && !self.warmed[variant].load(Ordering::Relaxed) && !self.warmed[variant].swap(true, Ordering::Relaxed) {
            flags |= T0_NO_RECORD;
        }
        ctx.variant = variant as c_int;
        ctx.value = self.spec.values[variant];
        ctx.t0 = clock::now() | flags;
    }

    /// Ends the execution started by `begin` on `ctx`: records its time; may train.
    #[inline]
    pub fn end(&self, ctx: &Ctx) {
        let t1 = clock::now();
        let flags = ctx.t0 & T0_FLAGS;
        let v = ctx.variant;
        if flags & T0_NO_RECORD != 0 || v < 0 || v as usize >= self.nvariants() {
            self.unrecorded.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let ns = clock::to_ns(t1.saturating_sub(ctx.t0 & !T0_FLAGS));
        let key = FKey::new(ctx.feature_slice());
        let nv = self.nvariants();
        let job = {
            let mut st = self.lock();
            st.add(key, v as usize, nv, |s| s.record(ns));
            if flags & T0_MODEL != 0 {
                st.recorded_model += 1;
            } else {
                st.recorded_explore += 1;
            }
            self.claim_training(&st)
        };
        if let Some(job) = job {
            self.train_and_publish(job);
        }
    }

    /// If the region is ready and no model exists or is being trained, claims the training
    /// flag and returns the training set.
    fn claim_training(&self, st: &State) -> Option<TrainJob> {
        if self.model.load(Ordering::Relaxed).is_null()
            && st.training_samples >= self.min_train
            && st.complete >= 1
            && !self.training.swap(true, Ordering::AcqRel)
        {
            let labels: Vec<(FKey, usize)> =
                st.entries.iter().filter_map(|e| e.best_by_median().map(|b| (e.key, b))).collect();
            if labels.is_empty() {
                // Cannot happen with recorded data (a measured pair always has a median); keep
                // exploring rather than train on nothing.
                self.training.store(false, Ordering::Release);
                return None;
            }
            let executions = st.recorded_explore + st.recorded_model + self.unrecorded.load(Ordering::Relaxed);
            Some(TrainJob { labels, training_samples: st.training_samples, executions })
        } else {
            None
        }
    }

    fn train_and_publish(&self, job: TrainJob) {
        let t0 = clock::now();
        let rows: Vec<Vec<f64>> = job.labels.iter().map(|(k, _)| k.values()).collect();
        let ys: Vec<usize> = job.labels.iter().map(|&(_, y)| y).collect();
        // A panic inside linfa must not leave the region exploring forever with the training
        // flag taken: it becomes an error, handled like one.
        let fitted = std::panic::catch_unwind(|| model::train(self.choice, &rows, &ys, model::fnv1a(&self.spec.model)))
            .unwrap_or_else(|_| Err("the tree learner panicked".to_owned()));
        let (compiled, fallback) = match fitted {
            Ok(c) => (c, None),
            Err(e) => {
                // Most frequent label (ties: lower index) as a constant model.
                let mut counts = vec![0usize; self.nvariants()];
                for &y in &ys {
                    counts[y] += 1;
                }
                let best = (0..counts.len()).fold(0, |b, i| if counts[i] > counts[b] { i } else { b });
                diag::warn(&format!(
                    "region '{}': training the model failed ({e}); always running '{}'",
                    self.spec.model, self.spec.variants[best]
                ));
                (Compiled::Tree(FlatTree::constant(best)), Some(e))
            }
        };
        let trained = Trained {
            compiled,
            choice: self.choice,
            labels: job.labels,
            training_samples: job.training_samples,
            executions: job.executions,
            train_ns: clock::to_ns(clock::now() - t0),
            fallback,
        };
        // Published models are never freed: a reader may hold the pointer at any time and there
        // is no reclamation scheme yet (one model per region in this issue; the retraining issue
        // needs epochs or hazard pointers here).
        let p = Box::into_raw(Box::new(trained));
        let old = self.model.swap(p, Ordering::AcqRel);
        debug_assert!(old.is_null());
    }

    /// Adds persisted samples (at creation, before the region is published) and trains if
    /// they suffice.
    pub fn absorb(&self, samples: Vec<(FKey, usize, VariantStats)>) {
        let nv = self.nvariants();
        let job = {
            let mut st = self.lock();
            for (key, v, s) in samples {
                if v < nv && s.count > 0 {
                    st.add(key, v, nv, |t| {
                        if t.count == 0 {
                            *t = s;
                        } else {
                            for &x in &s.recent {
                                t.record(x);
                            }
                        }
                    });
                }
            }
            self.claim_training(&st)
        };
        if let Some(job) = job {
            self.train_and_publish(job);
        }
    }

    /// A copy of the region's data.
    pub fn snapshot(&self) -> Snapshot {
        let st = self.lock();
        Snapshot {
            entries: st.entries.clone(),
            training_samples: st.training_samples,
            recorded_explore: st.recorded_explore,
            recorded_model: st.recorded_model,
            unrecorded: self.unrecorded.load(Ordering::Relaxed),
        }
    }

    /// Distinct measured (feature vector, variant) pairs.
    pub fn training_samples(&self) -> usize {
        self.lock().training_samples
    }
}

struct TrainJob {
    labels: Vec<(FKey, usize)>,
    training_samples: usize,
    executions: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec;

    fn region(variants: &str, min_train: i64, warmup: bool) -> Region {
        let s = spec::parse(&format!("ompadapt1;model=t;loc=t.c:1;features=n;variants={variants}")).unwrap().spec;
        Region::new(s, min_train, -1, -1, warmup, None)
    }

    /// Runs one execution with a synthetic time of `ns` (by backdating t0).
    fn exec(r: &Region, f: &[f64], mut ns: impl FnMut(usize) -> u64) -> usize {
        let mut c = Ctx::zeroed();
        r.begin(f, &mut c);
        let v = c.variant as usize;
        let flags = c.t0 & T0_FLAGS;
        c.t0 = clock::now().saturating_sub(ns(v)) | flags;
        r.end(&c);
        v
    }

    #[test]
    fn round_robin_per_feature_vector() {
        let r = region("a,b,c", 1000, false);
        let mut seen = Vec::new();
        for i in 0..7 {
            seen.push(exec(&r, &[1.0], |_| 10));
            if i % 2 == 0 {
                // interleaving another vector does not disturb the first one's order
                exec(&r, &[2.0], |_| 10);
            }
        }
        assert_eq!(seen, vec![0, 1, 2, 0, 1, 2, 0]);
        let mut c = Ctx::zeroed();
        r.begin(&[3.0], &mut c);
        assert_eq!((c.variant, c.value), (0, 0.0));
        r.begin(&[3.0], &mut c);
        assert_eq!((c.variant, c.value), (1, 1.0));
        assert_eq!(c.nfeatures, 1);
        assert_eq!(c.features[0], 3.0);
    }

    #[test]
    fn values_and_feature_clamp() {
        let s = spec::parse("ompadapt1;model=t;variants=t1,t8;values=1,8;numeric=1").unwrap().spec;
        let r = Region::new(s, -1, -1, -1, false, None);
        let many: Vec<f64> = (0..20).map(|i| i as f64).collect();
        let mut c = Ctx::zeroed();
        c.features = [7.0; MAX_FEATURES];
        r.begin(&many[..3], &mut c);
        assert_eq!(c.value, 1.0);
        assert_eq!(&c.features[..4], &[0.0, 1.0, 2.0, 0.0]);
        r.begin(&many[..3], &mut c);
        assert_eq!(c.value, 8.0, "second execution of that vector: second variant");
        r.begin(&many, &mut c);
        assert_eq!(c.value, 1.0, "a new (clamped) vector starts at the first variant");
        assert_eq!(c.nfeatures, MAX_FEATURES as i32);
        assert_eq!(c.features[15], 15.0);
    }

    /// Training samples are distinct measured (vector, variant) pairs; with 2 variants and
    /// min_train 4, training happens exactly when the 4th distinct pair is measured.
    #[test]
    fn training_trigger_count() {
        let r = region("a,b", 4, false);
        let cost = |v: usize| 100 + v as u64;
        exec(&r, &[1.0], cost); // (1,a)
        exec(&r, &[1.0], cost); // (1,b)  -> vector 1 complete, but only 2 samples
        assert_eq!(r.training_samples(), 2);
        exec(&r, &[1.0], cost); // (1,a) again: not a new sample
        exec(&r, &[1.0], cost);
        assert_eq!(r.training_samples(), 2);
        assert!(!r.is_trained());
        exec(&r, &[2.0], cost); // (2,a)
        assert_eq!(r.training_samples(), 3);
        assert!(!r.is_trained());
        exec(&r, &[2.0], cost); // (2,b): 4th
        assert!(r.is_trained());
        let t = r.trained().unwrap();
        assert_eq!(t.training_samples, 4);
        assert_eq!(t.executions, 6);
        assert_eq!(t.labels.len(), 2);
    }

    #[test]
    fn default_min_train_is_variant_count_and_needs_a_complete_vector() {
        let r = region("a,b,c", -1, false);
        assert_eq!(r.min_train, 3);
        // three different vectors, one variant each: 3 samples but no complete vector
        for f in [1.0, 2.0, 3.0] {
            exec(&r, &[f], |_| 5);
        }
        assert_eq!(r.training_samples(), 3);
        assert!(!r.is_trained());
        exec(&r, &[1.0], |_| 5);
        assert!(!r.is_trained());
        exec(&r, &[1.0], |_| 5);
        assert!(r.is_trained());
    }

    #[test]
    fn warmup_skips_first_execution_of_each_variant() {
        let r = region("a,b", -1, true);
        exec(&r, &[1.0], |_| 10); // a, warm-up
        exec(&r, &[1.0], |_| 10); // b, warm-up
        assert_eq!(r.training_samples(), 0);
        exec(&r, &[1.0], |_| 10); // a
        assert_eq!(r.training_samples(), 1);
        assert!(!r.is_trained());
        exec(&r, &[1.0], |_| 10); // b
        assert!(r.is_trained());
        let s = r.snapshot();
        assert_eq!((s.unrecorded, s.recorded_explore, s.executions()), (2, 2, 4));
    }

    /// Labels use the median, not the mean: one huge outlier does not flip the label.
    #[test]
    fn labels_by_median() {
        let r = region("a,b", 100, false);
        let mut i = 0u64;
        // a: 10,10,10,10,1_000_000 (median 10, mean ~200k); b: 50 each
        for _ in 0..10 {
            exec(&r, &[1.0], |v| {
                if v == 0 {
                    i += 1;
                    if i == 3 { 1_000_000 } else { 10 }
                } else {
                    50
                }
            });
        }
        let s = r.snapshot();
        let e = &s.entries[0];
        assert!(e.per_variant[0].mean().unwrap() > e.per_variant[1].mean().unwrap());
        assert_eq!(e.best_by_median(), Some(0));
        let r = region("a,b", 2, false);
        exec(&r, &[1.0], |v| [500, 20][v]);
        exec(&r, &[1.0], |v| [500, 20][v]);
        assert_eq!(r.trained().unwrap().labels, vec![(FKey::new(&[1.0]), 1)]);
        assert_eq!(r.decide(&[1.0]), Some(1));
        assert_eq!(r.decide(&[99.0]), Some(1));
    }

    #[test]
    fn trained_path_uses_model_and_keeps_recording() {
        let r = region("cpu,gpu", 4, false);
        let cost = |f: f64| move |v: usize| if (v == 0) == (f < 500.0) { 10 } else { 1000 };
        for f in [100.0, 900.0] {
            exec(&r, &[f], cost(f));
            exec(&r, &[f], cost(f));
        }
        assert!(r.is_trained());
        for _ in 0..5 {
            assert_eq!(exec(&r, &[50.0], cost(50.0)), 0);
            assert_eq!(exec(&r, &[950.0], cost(950.0)), 1);
        }
        let s = r.snapshot();
        assert_eq!(s.recorded_model, 10);
        assert_eq!(s.entries.len(), 4);
    }

    #[test]
    fn broken_region_runs_variant_zero() {
        let r = Region::broken("x".into(), "bad".into());
        for _ in 0..3 {
            let mut c = Ctx::zeroed();
            r.begin(&[1.0], &mut c);
            assert_eq!(c.variant, 0);
            r.end(&c);
        }
        assert_eq!(r.training_samples(), 0);
        assert_eq!(r.snapshot().unrecorded, 3);
    }

    /// 8 threads run the same region concurrently: every execution is accounted for.
    #[test]
    fn concurrent_executions_lose_nothing() {
        let r = Box::leak(Box::new(region("a,b,c", 30, true)));
        const THREADS: usize = 8;
        const PER: usize = 2000;
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let r = &*r;
                s.spawn(move || {
                    for i in 0..PER {
                        let f = [((t * PER + i) % 13) as f64, t as f64];
                        let mut c = Ctx::zeroed();
                        r.begin(&f, &mut c);
                        assert_eq!(c.features[1], t as f64, "context is per execution");
                        r.end(&c);
                    }
                });
            }
        });
        let s = r.snapshot();
        assert_eq!(s.executions(), (THREADS * PER) as u64);
        assert_eq!(s.unrecorded, 3, "one warm-up per variant");
        let recorded: u64 = s.entries.iter().flat_map(|e| &e.per_variant).map(|v| v.count).sum();
        assert_eq!(recorded, (THREADS * PER) as u64 - 3);
        assert!(r.is_trained());
        let pairs = s.entries.iter().flat_map(|e| &e.per_variant).filter(|v| v.count > 0).count();
        assert_eq!(s.training_samples, pairs);
    }
}
