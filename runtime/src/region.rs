//! One adaptive region: exploration, recording, training, model-driven selection and drift.
//!
//! Concurrency model:
//! * nothing about "the current execution" lives here: everything an execution needs between
//!   `begin` and `end` is in its [`Ctx`] (features, variant, start time and flags in `t0`), so
//!   one region can run on many threads at once, nested or from tasks;
//! * `epoch` says what decides executions: even = exploring, odd = a published decision
//!   function (a model, a constant, or coarse mode's per-run pins). It changes only under the
//!   region's lock (training publishes, drift resets);
//! * a **trained** execution reads `epoch`, finds its feature vector in the calling thread's
//!   shard (see `shard`), uses the decision cached there for that epoch and, at `end`, adds
//!   its time to that thread's counters and drift window: no lock, no atomic read-modify-write,
//!   no allocation, no system call (the clock is `rdtsc`);
//! * an **exploring** execution chooses its variant from a copy of its vector's exploration
//!   state kept in the thread's shard (refreshed whenever it takes the lock, and after drift
//!   resets or parameter changes) and, at `end`, buffers its measurement in the shard (handed
//!   to the store in batches, checking for training, before the thread's next locked
//!   measurement, or by whoever reads the data: report, training, persistence). A measurement
//!   that completes a pair (its `repeats`-th) also takes one atomic step on the region's
//!   `slack`, and takes the lock only when that says the region may have become ready to
//!   train; under successive elimination every measurement of an undecided vector takes the
//!   lock (any of them may eliminate). See `fill_view`;
//! * models are `Arc`s in an `ArcSwapOption`: replacing one (retraining after drift) frees the
//!   old one when its last reader is done. Trained executions do not even touch the model on
//!   the fast path: the decision is in the shard;
//! * exactly one thread trains at a time: the one that wins the `training` flag.

use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, Ordering::*};
use std::sync::{Mutex, MutexGuard};

use arc_swap::ArcSwapOption;

use crate::clock;
use crate::config::{Config, DriftConfig};
use crate::ctx::{Ctx, MAX_FEATURES, T0_NO_RECORD};
use crate::diag;
use crate::drift;
use crate::explore::{Params, Strategy};
use crate::model::ModelChoice;
use crate::shard::{bump, Shard, Shards, Slot, BUF, DONE, NS_MASK, VARIANT_SHIFT};
use crate::spec::Spec;
use crate::stats::{fnv1a, hash_features, FKey, XorShift};
use crate::store::Store;

pub mod declared;
mod settings;
mod snapshot;
mod training;

pub use snapshot::{EntryView, PairView, Snapshot};
pub use training::{Origin, Predictor, Trained};

/// Bit of `Ctx::t0` marking an execution whose variant a published decision chose.
pub(crate) const T0_MODEL: u64 = 1 << 62;
/// Bit of `Ctx::t0`: `ctx.features[STASH]` holds where `end` records (a shard slot when
/// trained, generation and index of the feature vector when exploring), so `end` need not
/// look the feature vector up again. Only when fewer than `MAX_FEATURES` features are given
/// (entries past `nfeatures` are the runtime's scratch).
const T0_STASH: u64 = 1 << 61;
pub(crate) const T0_FLAGS: u64 = T0_NO_RECORD | T0_MODEL | T0_STASH;
const STASH: usize = MAX_FEATURES - 1;

/// Settings a region can change at run time (API setters, Apollo's model_info).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Training samples needed before training.
    pub min_train: usize,
    /// Model to train.
    pub choice: ModelChoice,
    /// Never train automatically.
    pub explore_only: bool,
}

/// Fixed properties of a region's mode, decided when it is created.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mode {
    /// Seed 001's coarse-grained mode: one variant per feature vector and run.
    pub coarse: bool,
    /// Production: stored model only, no exploration, retraining or drift checks.
    pub frozen: bool,
}

/// A drift reset, for the report.
#[derive(Clone, Debug, PartialEq)]
pub struct DriftEvent {
    /// Executions of the region when it happened.
    pub at_execution: u64,
    /// Drifting executions in the window that triggered it, and the window's length.
    pub slow: u32,
    pub window: u32,
}

#[derive(Debug)]
pub(crate) struct Inner {
    store: Store,
    settings: Settings,
    /// Trained executions that did not fit in a thread's shard: ((vector, variant), (count, sum)).
    overflow: std::collections::HashMap<(FKey, usize), (u64, u64), crate::stats::FxBuild>,
    drifts: Vec<DriftEvent>,
    /// The part of [`Region::slack`] the lock's holder last published (see [`Locked`]).
    need: i64,
}

/// "Cannot train now" in [`Region::slack`] terms (far from both ends of an `i64`).
const NEVER: i64 = 1 << 60;

/// The region's lock. Releasing it publishes what training still needs to
/// [`Region::slack`], so every change of the store's counters, the settings or the epoch
/// reaches it however it was made.
pub(crate) struct Locked<'a> {
    g: MutexGuard<'a, Inner>,
    r: &'a Region,
}

impl std::ops::Deref for Locked<'_> {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.g
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Inner {
        &mut self.g
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        let r = self.r;
        let g = &mut *self.g;
        let need = if r.epoch.load(Relaxed) & 1 == 1 || g.settings.explore_only || r.mode.frozen {
            NEVER
        } else {
            (g.settings.min_train.min(NEVER as usize) as i64 - g.store.counted as i64).min(NEVER)
        };
        if need != g.need {
            r.slack.fetch_add(need - g.need, AcqRel);
            g.need = need;
        }
    }
}

/// An adaptive region. Created by the [`crate::registry`], alive for the whole process.
pub struct Region {
    /// The descriptor (for a malformed one: a stand-in with the region's best-effort name).
    pub spec: Spec,
    /// `(min_train, param1, param2)` as passed by the first call site.
    pub args: (i64, i64, i64),
    /// Why the spec is unusable; such a region always runs variant 0 and records nothing.
    pub broken: Option<String>,
    pub mode: Mode,
    drift_cfg: DriftConfig,
    /// Drift checks on the trained path (off when frozen, coarse, disabled or exhausted).
    monitor: AtomicBool,
    warmup: bool,
    /// Per variant: has its warm-up execution been handed out in this process?
    warmed: Box<[AtomicBool]>,
    epoch: AtomicU64,
    model: ArcSwapOption<Trained>,
    training: AtomicBool,
    unrecorded: AtomicU64,
    resets: AtomicU32,
    /// Exploration version: bumped (under the lock) when shards' exploration views may be
    /// wrong in the unsafe direction (drift resets, new parameters; see `fill_view`).
    xver: AtomicU64,
    /// The exploration strategy (a copy of the store's, for the lock-free choice).
    strategy: std::sync::atomic::AtomicU8,
    /// Training samples still missing before the region may train, minus the pair completions
    /// buffered since (measurements flagged [`DONE`] not yet in the store): when a thread
    /// buffers a completion that brings it to 0 or below, it takes the lock to hand the
    /// buffers over and train (see `record_explore_fast`). One atomic, changed only by
    /// read-modify-writes (completions, hand-overs, and [`Locked`] when what is missing
    /// changes), so no completion can miss the one that makes the region ready.
    slack: AtomicI64,
    shards: Shards,
    inner: Mutex<Inner>,
    /// Persistence bookkeeping (None: not persisted).
    pub persist: Mutex<Option<crate::persist::Binding>>,
    /// Data movement per variant (from the OMPT tool, when loaded).
    pub data: crate::dataflow::RegionData,
    /// Seed 001's declared feature ranges and associated regions (see `declared`).
    declared: declared::Declared,
}

impl std::fmt::Debug for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Region").field("model", &self.spec.model).field("epoch", &self.epoch.load(Relaxed)).finish()
    }
}

impl Region {
    /// A region for `spec` with the built-in defaults (no environment), `warmup` and an
    /// optional model override.
    ///
    /// `min_train < 1` (the plugin passes -1 when `min_train_data` is absent) means "as many as
    /// there are variants".
    pub fn new(spec: Spec, min_train: i64, p1: i64, p2: i64, warmup: bool, model_override: Option<ModelChoice>) -> Region {
        let mut c = Config { warmup, persist: false, ..Config::default() };
        if let Some(m) = model_override {
            c.model_override = crate::config::PerRegion::all(m);
        }
        Region::with_config(spec, min_train, p1, p2, &c, &RegionOptions::default())
    }

    /// A region for `spec` configured by `config` (and spec-level `options`).
    pub fn with_config(spec: Spec, min_train: i64, p1: i64, p2: i64, config: &Config, options: &RegionOptions) -> Region {
        clock::init();
        let nv = spec.variants.len();
        let name = spec.model.clone();
        let choice = config.model_override.get(&name).unwrap_or_else(|| ModelChoice::resolve(spec.model_type, p1, p2));
        // Without min_train_data: seed 001's suggested size (the min_sample_points product
        // times the variants), else one sample per variant.
        let min_train = config.min_train.get(&name).unwrap_or(if min_train >= 1 {
            min_train as usize
        } else {
            spec.suggested_training_size().unwrap_or(nv)
        });
        let strategy = config.explore.regions.iter().rev().find(|(m, _)| *m == name).map(|(_, s)| *s)
            .or(options.explore)
            .or(config.explore.default)
            .unwrap_or(Strategy::RoundRobin);
        // Successive elimination keeps its candidates in a 64-bit mask.
        let strategy = if strategy == Strategy::Elimination && nv > 64 {
            diag::warn_once(
                &format!("elimination:{name}"),
                &format!("region '{name}': {nv} variants, successive elimination handles at most 64; exploring round-robin"),
            );
            Strategy::RoundRobin
        } else {
            strategy
        };
        let params = Params {
            strategy,
            repeats: config.repeats.get(&name).or(options.repeats).unwrap_or(crate::config::DEFAULT_REPEATS).max(1),
            labeling: config.labeling,
            margin: config.elimination_margin,
        };
        let coarse = config.coarse.regions.iter().rev().find(|(m, _)| *m == name).map(|(_, c)| *c)
            .or(options.coarse)
            .or(config.coarse.default)
            .unwrap_or(false);
        let mode = Mode { coarse, frozen: config.frozen };
        let monitor = config.drift.enabled && !mode.frozen && !mode.coarse;
        let r = Region {
            args: (min_train as i64, p1, p2),
            broken: None,
            mode,
            drift_cfg: config.drift,
            monitor: AtomicBool::new(monitor),
            warmup: config.warmup,
            warmed: (0..nv).map(|_| AtomicBool::new(false)).collect(),
            // Coarse regions decide per run from the start (pins), never by exploring per
            // execution: their epoch starts odd.
            epoch: AtomicU64::new(coarse as u64),
            model: ArcSwapOption::empty(),
            training: AtomicBool::new(false),
            unrecorded: AtomicU64::new(0),
            resets: AtomicU32::new(0),
            xver: AtomicU64::new(0),
            strategy: std::sync::atomic::AtomicU8::new(strategy as u8),
            slack: AtomicI64::new(0),
            shards: Shards::new(nv.max(1)),
            inner: Mutex::new(Inner {
                store: Store::new(nv, params, fnv1a(&name) ^ config.seed),
                settings: Settings { min_train, choice, explore_only: config.explore_only },
                overflow: Default::default(),
                drifts: Vec::new(),
                need: 0,
            }),
            persist: Mutex::new(None),
            data: crate::dataflow::RegionData::new(nv),
            declared: declared::Declared::new(&spec),
            spec,
        };
        drop(r.lock()); // publishes what training needs to `slack`
        r
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
            feature_ranges: Vec::new(),
            min_sample_points: Vec::new(),
            assoc: None,
        };
        let mut r = Region::new(spec, -1, -1, -1, false, None);
        r.broken = Some(reason);
        r
    }

    /// Bytes moved and transfer time per execution of `variant` (averages over its measured
    /// executions), when the data-movement tool is loaded: inputs for models that weigh
    /// transfer cost.
    pub fn data_movement(&self, variant: usize) -> Option<crate::dataflow::Movement> {
        self.data.movement(variant)
    }

    /// Number of variants.
    pub fn nvariants(&self) -> usize {
        self.spec.variants.len()
    }

    pub(crate) fn lock(&self) -> Locked<'_> {
        // A panic while holding the lock (caught at the FFI boundary) must not disable the region.
        Locked { g: self.inner.lock().unwrap_or_else(|e| e.into_inner()), r: self }
    }

    // ---- the execution path -------------------------------------------------------------

    /// Starts one execution: fills `ctx` (features, variant, value, start time).
    #[inline]
    pub fn begin(&self, features: &[f64], ctx: &mut Ctx) {
        let n = features.len().min(MAX_FEATURES);
        ctx.region = self as *const Region as *mut c_void;
        ctx.nfeatures = n as c_int;
        copy_features(&mut ctx.features, &features[..n]);
        let f = &ctx.features[..n];

        let pinned = if self.declared.hooked() { self.declared_begin(f) } else { None };
        let (variant, mut flags, stash) = if self.broken.is_some() {
            (0, T0_NO_RECORD, 0)
        } else if let Some(v) = pinned {
            (v, 0, 0) // fixed by an associated region: recorded as an exploring measurement
        } else {
            let epoch = self.epoch.load(Acquire);
            match if epoch & 1 == 1 { self.cached_decision(f, epoch) } else { None } {
                Some((v, slot)) => (v, T0_MODEL, slot as u64),
                None => {
                    let (v, slot) = self.explore_begin(f);
                    (v, 0, slot as u64)
                }
            }
        };
        if stash != 0 && n < MAX_FEATURES {
            ctx.features[STASH] = f64::from_bits(stash);
            flags |= T0_STASH;
        }
        let variant = variant.min(self.nvariants() - 1);
        // Warm-up: the first execution of each variant of each region in this process runs but
        // is not recorded. With offloading, the first target region initialises libomptarget
        // and the device and loads the kernel image, which would make `gpu` look slow on
        // exactly the sample that labels it. OMPADAPT_WARMUP=0 disables it.
        if self.warmup && !self.warmed[variant].load(Relaxed) && !self.warmed[variant].swap(true, Relaxed) {
            flags |= T0_NO_RECORD;
        }
        ctx.variant = variant as c_int;
        ctx.value = self.spec.values[variant];
        ctx.t0 = clock::now() | flags;
    }

    /// The decision for `f` under `epoch` (odd), from this thread's cache when it has one,
    /// with the slot `end` records into (null if the shard is full).
    #[inline(always)]
    fn cached_decision(&self, f: &[f64], epoch: u64) -> Option<(usize, *const Slot)> {
        let shard = self.shards.local();
        let h = hash_features(f);
        if let Some(slot) = shard.find(h, f) {
            if slot.epoch.load(Relaxed) == epoch {
                return Some((slot.variant.load(Relaxed) as usize, slot));
            }
        }
        self.decide_slow(shard, h, f, epoch)
    }

    #[cold]
    #[inline(never)]
    fn decide_slow(&self, shard: &Shard, h: u64, f: &[f64], epoch: u64) -> Option<(usize, *const Slot)> {
        let key = FKey::new(f);
        let (variant, bar) = match self.model.load_full() {
            Some(t) => {
                let v = t.predict(&key).min(self.nvariants() - 1);
                let bar = if self.monitor.load(Relaxed) {
                    match drift::bar_ns(t.time.predict(&key, v), &self.drift_cfg) {
                        u64::MAX => u64::MAX,
                        ns => (ns as f64 / clock::ns_per_tick()) as u64,
                    }
                } else {
                    u64::MAX
                };
                (v, bar)
            }
            None if self.mode.coarse => (self.coarse_pin(&key), u64::MAX),
            None => return None, // reset meanwhile: explore
        };
        if shard.window_epoch.load(Relaxed) != epoch {
            // a new decision function: a new drift window
            shard.window_epoch.store(epoch, Relaxed);
            shard.window_n.store(0, Relaxed);
            shard.window_slow.store(0, Relaxed);
        }
        let slot = shard.find(h, f).or_else(|| shard.insert(h, &key));
        if let Some(s) = slot {
            s.variant.store(variant as u32, Relaxed);
            s.bar_ticks.store(bar, Relaxed);
            s.epoch.store(epoch, Relaxed);
        }
        Some((variant, slot.map_or(std::ptr::null(), |s| s as *const Slot)))
    }

    /// Coarse mode without a model: the variant `key` runs for this whole run (the one with
    /// the fewest recorded runs, lowest index on ties), fixed at its first execution.
    fn coarse_pin(&self, key: &FKey) -> usize {
        let mut g = self.lock();
        if let Some(&v) = g.store.pins.get(key) {
            return v;
        }
        let v = g.store.least_measured(key);
        g.store.pins.insert(*key, v);
        v
    }

    /// An exploring execution's variant, chosen from this thread's view of its vector, and the
    /// slot `end` records through (null: record by key under the lock).
    fn explore_begin(&self, f: &[f64]) -> (usize, *const Slot) {
        if self.mode.frozen {
            return (0, std::ptr::null()); // frozen and nothing published (not after creation)
        }
        let shard = self.shards.local();
        let h = hash_features(f);
        let Some(slot) = shard.find(h, f).or_else(|| shard.insert(h, &FKey::new(f))) else {
            return (self.explore_locked(f), std::ptr::null());
        };
        if slot.xver.load(Relaxed) != self.xver.load(Acquire) {
            self.refresh_view(slot);
        }
        let nv = self.nvariants();
        let strategy = self.strategy.load(Relaxed);
        let decided = slot.xdecided.load(Relaxed);
        let v = if strategy == Strategy::Random as u8 {
            let mut r = XorShift::from_state(shard.rng.load(Relaxed));
            let v = r.below(nv);
            shard.rng.store(r.state(), Relaxed);
            v
        } else if strategy == Strategy::Elimination as u8 && decided != u32::MAX {
            decided as usize
        } else if strategy == Strategy::RoundRobin as u8 {
            // this thread's k-th execution of the vector runs variant k mod n: exactly
            // Apollo's order when one thread explores (the position is kept below n, so no
            // division)
            let k = slot.xrr.load(Relaxed) as usize;
            let v = if k < nv { k } else { k % nv };
            slot.xrr.store(if v + 1 < nv { v as u32 + 1 } else { 0 }, Relaxed);
            v
        } else {
            // elimination: the k-th execution runs the (k mod n)-th candidate still alive
            let k = slot.xrr.load(Relaxed);
            slot.xrr.store(k.wrapping_add(1), Relaxed);
            let alive = slot.xalive.load(Relaxed);
            nth_set_bit(alive, k % alive.count_ones().max(1)).unwrap_or(0)
        };
        (v, slot)
    }

    /// Copies the store's exploration state of `slot`'s vector into the slot (under the lock).
    #[cold]
    #[inline(never)]
    fn refresh_view(&self, slot: &Slot) {
        let mut g = self.lock();
        // the view's budgets count from the store's counts: this thread's buffered
        // measurements must be in them
        self.take_pending(&mut g.store, slot.shard());
        let i = g.store.fv(slot.key());
        self.fill_view(&g.store, i, slot);
    }

    /// Copies vector `i`'s exploration state into `slot` (caller holds the lock, owns the slot
    /// and has moved its shard's buffered measurements into the store).
    ///
    /// Per variant, the view holds a budget ([`Slot::xleft`]) of measurements this thread
    /// may buffer instead of taking the lock:
    /// * a settled pair (its vector decided, or the pair has its `repeats` measurements under
    ///   round-robin or random): unlimited (`u64::MAX`);
    /// * an unsettled pair under round-robin or random: `repeats - count`. The first
    ///   `repeats - count - 1` cannot change the training counters; the last one completes
    ///   the pair (it counts, and may decide the vector): it is buffered flagged [`DONE`] and
    ///   takes one atomic step on [`Region::slack`], and only when that says the region may
    ///   now be ready does the thread take the lock, hand every buffer to the store and
    ///   train;
    /// * an undecided vector under elimination: 0, every measurement takes the lock (any of
    ///   them may eliminate).
    ///
    /// With one thread exploring a vector the budgets are exact, so training starts at
    /// exactly the execution that completes the `min_train`-th pair (or the first decided
    /// vector after that), as if every measurement took the lock, and the label sees every
    /// measurement (a buffer reaches the store in order). With several, a thread's budget does
    /// not see the others' buffered measurements: with `repeats` = 1 a pair's completion may
    /// be flagged by more than one thread (the lock is taken early, harmlessly); with more, a
    /// pair may complete in the store up to `(threads - 1) · (repeats - 1)` measurements later
    /// than its `repeats`-th, never earlier. Nothing is lost either way: every buffer reaches
    /// the store, and training is checked whenever a buffer does.
    ///
    /// Within a generation, the store's side only moves towards settled, so a stale view is
    /// safe; changes that break this (drift resets, new parameters, loaded data) bump `xver`,
    /// which invalidates every view.
    fn fill_view(&self, st: &Store, i: usize, slot: &Slot) {
        let ver = self.xver.load(Relaxed);
        let (f, counts) = (st.rec(i), st.counts(i));
        let nv = counts.len();
        let thr = if nv == 1 { 1 } else { st.params.repeats.max(1) };
        let decided = f.decided().is_some();
        let elimination = st.params.strategy == Strategy::Elimination;
        for (v, c) in counts.iter().enumerate() {
            let left = if decided || (!elimination && c.count >= thr) {
                u64::MAX
            } else if elimination {
                0 // every measurement of an undecided vector may eliminate
            } else {
                (thr - c.count) as u64
            };
            slot.xleft(v).store(left, Relaxed);
        }
        slot.xat.store((st.generation as u64) << 32 | (i as u64 + 1), Relaxed);
        slot.xalive.store(f.alive, Relaxed);
        slot.xdecided.store(f.decided().map_or(u32::MAX, |d| d as u32), Relaxed);
        slot.xver.store(ver, Relaxed);
    }

    /// Exploring choice without a shard slot (the thread's shard is full).
    #[cold]
    fn explore_locked(&self, f: &[f64]) -> usize {
        self.lock().store.choose(&FKey::new(f)).0
    }

    /// Ends the execution started by `begin` on `ctx`: records its time; may train.
    #[inline]
    pub fn end(&self, ctx: &Ctx) {
        let t1 = clock::now();
        let flags = ctx.t0 & T0_FLAGS;
        let v = ctx.variant;
        if flags & T0_NO_RECORD != 0 || v < 0 || v as usize >= self.nvariants() {
            self.unrecorded.fetch_add(1, Relaxed);
            return;
        }
        let ticks = t1.saturating_sub(ctx.t0 & !T0_FLAGS);
        // SAFETY: with T0_STASH, `begin` stored a slot of this region's shards there, and
        // shards live as long as the region.
        let slot = (flags & T0_STASH != 0)
            .then(|| unsafe { &*(ctx.features[STASH].to_bits() as *const Slot) })
            .filter(|s| s.owned_here());
        match (flags & T0_MODEL != 0, slot) {
            (true, Some(slot)) => self.record_slot(slot, v as usize, ticks),
            (true, None) => self.record_trained(ctx.feature_slice(), v as usize, ticks),
            (false, Some(slot)) => self.record_explore_fast(slot, v as usize, clock::to_ns(ticks)),
            (false, None) => self.record_explore(&FKey::new(ctx.feature_slice()), v as usize, clock::to_ns(ticks), None, None),
        }
    }

    /// Records a trained execution in this thread's slot: plain loads and stores.
    #[inline(always)]
    fn record_slot(&self, slot: &Slot, v: usize, ticks: u64) {
        bump(slot.count(v), 1);
        bump(slot.ticks(v), ticks);
        if self.monitor.load(Relaxed) {
            let shard = slot.shard();
            let n = shard.window_n.load(Relaxed) + 1;
            shard.window_n.store(n, Relaxed);
            if ticks > slot.bar_ticks.load(Relaxed) && slot.variant.load(Relaxed) as usize == v {
                shard.window_slow.store(shard.window_slow.load(Relaxed) + 1, Relaxed);
            }
            if n >= self.drift_cfg.window {
                self.end_window(shard, slot.epoch.load(Relaxed));
            }
        }
    }

    /// Records a trained execution whose slot `begin` could not stash (another thread began
    /// it, 16 features, or a full shard).
    #[cold]
    fn record_trained(&self, f: &[f64], v: usize, ticks: u64) {
        let shard = self.shards.local();
        let h = hash_features(f);
        match shard.find(h, f).or_else(|| shard.insert(h, &FKey::new(f))) {
            Some(slot) => self.record_slot(slot, v, ticks),
            None => self.record_overflow(f, v, ticks),
        }
    }

    #[cold]
    fn record_overflow(&self, f: &[f64], v: usize, ticks: u64) {
        let mut g = self.lock();
        let e = g.overflow.entry((FKey::new(f), v)).or_insert((0, 0));
        e.0 += 1;
        e.1 += ticks;
    }

    #[cold]
    #[inline(never)]
    fn end_window(&self, shard: &Shard, epoch: u64) {
        let (slow, n) = (shard.window_slow.load(Relaxed), shard.window_n.load(Relaxed));
        shard.window_n.store(0, Relaxed);
        shard.window_slow.store(0, Relaxed);
        if drift::window_drifted(slow, n, &self.drift_cfg) {
            self.drifted(epoch, slow, n);
        }
    }

    /// A window drifted under `epoch`: forget the measurements, explore again.
    fn drifted(&self, epoch: u64, slow: u32, window: u32) {
        let executions = self.executions();
        let mut g = self.lock();
        if self.epoch.load(Relaxed) != epoch || self.mode.frozen {
            return; // another thread reset or retrained already
        }
        if self.resets.load(Relaxed) >= self.drift_cfg.max_resets {
            self.monitor.store(false, Relaxed);
            diag::warn_once(
                &format!("drift-max:{}", self.spec.model),
                &format!(
                    "region '{}': execution times keep drifting after {} re-explorations; keeping the \
                     current model and no longer checking (OMPADAPT_DRIFT_MAX raises the limit)",
                    self.spec.model, self.drift_cfg.max_resets
                ),
            );
            return;
        }
        self.resets.fetch_add(1, Relaxed);
        self.epoch.store(epoch + 1, Release);
        self.model.store(None);
        self.adopt_pending(&mut g);
        g.store.reset();
        self.xver.fetch_add(1, Release);
        g.drifts.push(DriftEvent { at_execution: executions, slow, window });
    }

    /// Records an exploring measurement through this thread's slot: buffered without a lock
    /// while the view's budget lasts (see `fill_view`), else under the lock.
    #[inline(always)]
    fn record_explore_fast(&self, slot: &Slot, v: usize, ns: u64) {
        let left = slot.xleft(v).load(Relaxed);
        if left != 0 && slot.xver.load(Relaxed) == self.xver.load(Relaxed) {
            let done = left == 1; // completes the pair: settled from now on
            slot.xleft(v).store(if done { u64::MAX } else { left - 1 }, Relaxed);
            let shard = slot.shard();
            let len = shard.buf_len.load(Relaxed);
            if len - shard.buf_taken.load(Acquire) >= BUF as u64 {
                self.flush(shard);
            }
            let e = &shard.buf[len as usize % BUF];
            e.at.store(slot.xat.load(Relaxed), Relaxed);
            e.vns.store((v as u64) << VARIANT_SHIFT | if done { DONE } else { 0 } | ns.min(NS_MASK), Relaxed);
            shard.buf_len.store(len + 1, Release);
            // after the entry is visible: whoever hands it over adds back what this takes
            if done && self.slack.fetch_sub(1, AcqRel) <= 1 {
                self.completed();
            }
            return;
        }
        self.record_explore(slot.key(), v, ns, Some(slot.xat.load(Relaxed)), Some(slot));
    }

    /// A buffered pair completion may have made the region ready: hands every thread's buffer
    /// to the store and trains if it is.
    #[cold]
    #[inline(never)]
    fn completed(&self) {
        let job = {
            let mut g = self.lock();
            self.adopt_pending(&mut g);
            self.claim(&mut g)
        };
        if let Some(job) = job {
            self.train_and_publish(job);
        }
    }

    /// Hands `shard`'s buffered measurements to the store; trains if they made it ready
    /// (measurements of several threads may complete a pair there, see `fill_view`).
    #[cold]
    #[inline(never)]
    fn flush(&self, shard: &Shard) {
        let job = {
            let mut g = self.lock();
            self.take_pending(&mut g.store, shard);
            self.claim(&mut g)
        };
        if let Some(job) = job {
            self.train_and_publish(job);
        }
    }

    /// Moves every thread's buffered measurements into the store (caller holds the lock).
    pub(crate) fn adopt_pending(&self, g: &mut Inner) {
        self.shards.for_each(|s| self.take_pending(&mut g.store, s));
    }

    /// Records an exploring measurement under the lock; `at` is where begin saw the vector.
    /// `slot` (owned by the calling thread) gets its view refreshed on the way.
    fn record_explore(&self, key: &FKey, v: usize, ns: u64, at: Option<u64>, slot: Option<&Slot>) {
        let job = {
            let mut g = self.lock();
            if let Some(slot) = slot {
                // this thread's earlier measurements first: the store sees them in order,
                // and the view refreshed below counts them
                self.take_pending(&mut g.store, slot.shard());
            }
            let st = &mut g.store;
            let i = at
                .filter(|&a| (a >> 32) as u32 == st.generation)
                .map(|a| (a & 0xffff_ffff) as usize)
                .filter(|&i| i >= 1 && st.key_is(i - 1, key))
                .map(|i| i - 1)
                .unwrap_or_else(|| st.fv(key));
            st.record_at(i, v, ns as f64);
            if let Some(slot) = slot {
                self.fill_view(st, i, slot);
            }
            self.claim(&mut g)
        };
        if let Some(job) = job {
            self.train_and_publish(job);
        }
    }

    /// Moves `shard`'s buffered measurements into `st` (caller holds the region's lock). Those
    /// of an earlier generation (before a drift reset) count as executions but are dropped.
    fn take_pending(&self, st: &mut Store, shard: &Shard) {
        let len = shard.buf_len.load(Acquire);
        let mut i = shard.buf_taken.load(Relaxed);
        let mut done = 0;
        while i < len {
            let e = &shard.buf[i as usize % BUF];
            let (at, vns) = (e.at.load(Relaxed), e.vns.load(Relaxed));
            let idx = (at & 0xffff_ffff) as usize;
            let (v, ns) = ((vns >> VARIANT_SHIFT) as usize, vns & NS_MASK);
            done += (vns & DONE != 0) as i64;
            if (at >> 32) as u32 == st.generation && idx >= 1 && idx <= st.len() && v < st.nv() {
                st.record_at(idx - 1, v, ns as f64);
            } else {
                st.recorded_explore += 1;
            }
            i += 1;
        }
        shard.buf_taken.store(len, Release);
        if done != 0 {
            // the completions are in the store's counters now (the lock's release counts them)
            self.slack.fetch_add(done, AcqRel);
        }
    }

    /// Adds measurements loaded from earlier runs (already saved).
    pub fn absorb(&self, key: &FKey, v: usize, count: u32, times: &[f64]) {
        self.lock().store.absorb(key, v, count, times);
        self.xver.fetch_add(1, Release);
    }

}

/// Spec-level options (fields of the descriptor the runtime reads besides `spec`'s).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegionOptions {
    /// `explore=`.
    pub explore: Option<Strategy>,
    /// `repeats=`.
    pub repeats: Option<u32>,
    /// `coarse=`.
    pub coarse: Option<bool>,
}

/// Copies `src` (at most `MAX_FEATURES` values) to the front of `dst`. For the usual 1–4
/// features a memcpy call costs more than the copy, and LLVM turns a plain loop into one.
#[inline(always)]
fn copy_features(dst: &mut [f64; MAX_FEATURES], src: &[f64]) {
    let n = src.len();
    if n <= 4 {
        if n > 0 {
            dst[0] = src[0];
        }
        if n > 1 {
            dst[1] = src[1];
        }
        if n > 2 {
            dst[2] = src[2];
        }
        if n > 3 {
            dst[3] = src[3];
        }
    } else {
        dst[..n].copy_from_slice(src);
    }
}

/// The position of the `n`-th set bit of `m` (0-based).
fn nth_set_bit(mut m: u64, n: u32) -> Option<usize> {
    for _ in 0..n {
        m &= m.wrapping_sub(1);
    }
    (m != 0).then(|| m.trailing_zeros() as usize)
}

#[cfg(test)]
mod tests;

/// Clock ticks for `ns` nanoseconds (tests that backdate a context's start).
#[cfg(test)]
pub(crate) fn tests_ticks(ns: u64) -> u64 {
    (ns as f64 / clock::ns_per_tick()).round() as u64
}
