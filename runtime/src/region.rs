//! One adaptive region: exploration, recording, training, model-driven selection and drift.
//!
//! Concurrency model:
//! * nothing about "the current execution" lives here: everything an execution needs between
//!   `begin` and `end` is in its [`Ctx`] (features, variant, start time and flags in `t0`), so
//!   one region can run on many threads at once, nested or from tasks;
//! * `epoch` says what decides executions: even = exploring, odd = a published decision
//!   function (a model, a constant, or coarse mode's per-run pins). It changes only under the
//!   region's lock (training publishes; a drift, or a vector that starts exploring, makes
//!   every thread look its decisions up again);
//! * a **trained** execution reads `epoch`, finds its feature vector in the calling thread's
//!   shard (see `shard`), uses the decision cached there for that epoch and, at `end`, counts
//!   it in that thread's counters. One execution in `OMPADAPT_SAMPLE` per thread is timed (two
//!   clock reads), for the report and drift detection; the others read no clock. No lock, no
//!   atomic read-modify-write, no allocation, no system call;
//! * after training, a vector the model was not trained on that recurs is explored (within
//!   the `OMPADAPT_LEARN` budget) and the model retrains with its label: its cached decision
//!   is [`EXPLORE`], and its executions take the exploring path below;
//! * an **exploring** execution chooses its variant from a copy of its vector's exploration
//!   state kept in the thread's shard (what is wanted, the label once decided; refreshed
//!   whenever the thread takes the lock, and when the region's exploration version changes)
//!   and, at `end`, buffers its measurement in the shard (handed to the store in batches,
//!   before the thread's next locked measurement, or by whoever reads the data: report,
//!   training, persistence). The measurement that delivers the last of what the view wanted
//!   takes the lock (the store assesses the vector: label, or more wanted). A measurement
//!   that makes a pair a training sample also takes one atomic step on the region's `slack`,
//!   and takes the lock only when that says the region may have become ready to train; under
//!   successive elimination every measurement of an undecided vector takes the lock;
//! * models are `Arc`s in an `ArcSwapOption`: replacing one (retraining) frees the old one
//!   when its last reader is done. Trained executions do not even touch the model on the fast
//!   path: the decision is in the shard;
//! * exactly one thread trains at a time: the one that wins the `training` flag.

use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, Ordering::*};
use std::sync::{Mutex, MutexGuard};

use arc_swap::ArcSwapOption;

use crate::clock;
use crate::config::{DriftConfig, RegionSettings};
use crate::ctx::{Ctx, MAX_FEATURES, T0_NO_RECORD};
use crate::diag;
use crate::drift;
use crate::explore::{Params, Strategy};
use crate::model::ModelChoice;
use crate::shard::{bump, Shard, Shards, Slot, BUF, COLD, DONE, EXPLORE, NS_MASK, V_SHIFT};
use crate::spec::RegionDescriptor;
use crate::stats::{fnv1a, hash_features, FKey, XorShift};
use crate::store::{Env, Store};

pub mod declared;
mod settings;
mod snapshot;
mod training;

pub use snapshot::{EntryView, Monitored, PairView, Snapshot};
pub use training::{Origin, Predictor, Trained};

/// Bit of `Ctx::t0` marking an execution whose variant a published decision chose.
pub(crate) const T0_MODEL: u64 = 1 << 62;
/// Bit of `Ctx::t0`: `ctx.features[STASH]` holds where `end` records (a shard slot), so `end`
/// need not look the feature vector up again. Only when fewer than `MAX_FEATURES` features are
/// given (entries past `nfeatures` are the runtime's scratch).
const T0_STASH: u64 = 1 << 61;
/// Bit of `Ctx::t0`: the variant's first execution in this process (a cold measurement).
const T0_COLD: u64 = 1 << 60;
pub(crate) const T0_FLAGS: u64 = T0_NO_RECORD | T0_MODEL | T0_STASH | T0_COLD;
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
    /// Liao et al.'s coarse-grained mode: one variant per feature vector and run.
    pub coarse: bool,
    /// Production: stored model only, no exploration, retraining or drift checks.
    pub frozen: bool,
}

/// A drift: a measured pair ran slower than its measured time, repeatedly; its vector was
/// re-measured.
#[derive(Clone, Debug, PartialEq)]
pub struct DriftEvent {
    /// Executions of the region when it happened.
    pub at_execution: u64,
    /// The vector and the variant that drifted, and the vector's label before.
    pub key: FKey,
    pub variant: usize,
    pub label_before: Option<usize>,
    /// Slow executions in the window that triggered it, and the window's length.
    pub slow: u32,
    pub window: u32,
}

#[derive(Debug)]
pub(crate) struct Inner {
    store: Store,
    settings: Settings,
    /// Trained executions that did not fit in a thread's shard:
    /// ((vector, variant), (count, timed, ticks)).
    overflow: std::collections::HashMap<(FKey, usize), (u64, u64, u64), crate::stats::FxBuild>,
    drifts: Vec<DriftEvent>,
    /// Variants made unavailable in this run, in order.
    unavailable: Vec<Unavailable>,
    /// The part of [`Region::slack`] the lock's holder last published (see [`Locked`]).
    need: i64,
}

/// A variant made unavailable in this run: its host version would have read stale memory
/// (see [`Region::mark_unavailable`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unavailable {
    pub variant: usize,
    /// The variant the execution that found it ran instead (None: not recorded).
    pub replacement: Option<usize>,
    /// Executions of the region when it happened.
    pub at_execution: u64,
    pub reason: String,
}

/// What the `cpu` variant of an offload copied around its host version (see
/// [`crate::host_run`]): executions, bytes moved between host and device, bytes saved and
/// restored on the host.
#[derive(Debug, Default)]
pub struct HostCopies {
    runs: AtomicU64,
    transferred: AtomicU64,
    preserved: AtomicU64,
    ns: AtomicU64,
}

impl HostCopies {
    pub fn record(&self, transferred: u64, preserved: u64, ns: u64) {
        self.runs.fetch_add(1, Relaxed);
        self.transferred.fetch_add(transferred, Relaxed);
        self.preserved.fetch_add(preserved, Relaxed);
        self.ns.fetch_add(ns, Relaxed);
    }

    /// (executions, bytes moved, bytes preserved, nanoseconds)
    pub fn totals(&self) -> (u64, u64, u64, u64) {
        (self.runs.load(Relaxed), self.transferred.load(Relaxed), self.preserved.load(Relaxed), self.ns.load(Relaxed))
    }
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

/// How a region is made: every setting has a name and a default (the built-in defaults, or a
/// configuration's with [`RegionBuilder::from_settings`]).
///
/// ```
/// # use ompadapt_rt::{region::RegionBuilder, spec};
/// let spec = spec::parse("ompadapt1;model=mm;features=n;variants=cpu,gpu").unwrap().descriptor;
/// let r = RegionBuilder::new().min_train(4).warmup(false).build(spec);
/// assert_eq!(r.min_train(), 4);
/// ```
#[derive(Clone, Debug, Default)]
pub struct RegionBuilder {
    s: RegionSettings,
    args: (i64, i64, i64),
}

impl RegionBuilder {
    /// The built-in defaults (no environment).
    pub fn new() -> RegionBuilder {
        RegionBuilder { s: RegionSettings::default(), args: (-1, -1, -1) }
    }

    /// Resolved settings (from [`crate::config::Config::region_settings`]).
    pub fn from_settings(s: RegionSettings) -> RegionBuilder {
        RegionBuilder { s, args: (-1, -1, -1) }
    }

    /// Training samples needed (default: the number of variants).
    pub fn min_train(mut self, n: usize) -> Self {
        self.s.min_train = Some(n.max(1));
        self
    }

    /// The model to train.
    pub fn model(mut self, m: ModelChoice) -> Self {
        self.s.model = m;
        self
    }

    /// Whether the first execution of each variant is flagged cold (default on).
    pub fn warmup(mut self, on: bool) -> Self {
        self.s.warmup = on;
        self
    }

    /// Exploration strategy.
    pub fn explore(mut self, s: Strategy) -> Self {
        self.s.params.strategy = s;
        self
    }

    /// Measurements per pair ([`crate::explore::ADAPTIVE`]: adaptive).
    pub fn repeats(mut self, r: u32) -> Self {
        self.s.params.repeats = r;
        self
    }

    /// All exploration parameters.
    pub fn params(mut self, p: Params) -> Self {
        self.s.params = p;
        self
    }

    /// Coarse mode.
    pub fn coarse(mut self, on: bool) -> Self {
        self.s.coarse = on;
        self
    }

    /// Frozen (production) mode.
    pub fn frozen(mut self, on: bool) -> Self {
        self.s.frozen = on;
        self
    }

    /// Never train automatically.
    pub fn explore_only(mut self, on: bool) -> Self {
        self.s.explore_only = on;
        self
    }

    /// Drift detection settings.
    pub fn drift(mut self, d: DriftConfig) -> Self {
        self.s.drift = d;
        self
    }

    /// Share of a run's executions that may explore new vectors after training.
    pub fn learn(mut self, f: f64) -> Self {
        self.s.learn = f.clamp(0.0, 1.0);
        self
    }

    /// One trained execution in `n` is timed.
    pub fn sample(mut self, n: u32) -> Self {
        self.s.sample = n.max(1);
        self
    }

    /// Seed of the random strategy.
    pub fn seed(mut self, seed: u64) -> Self {
        self.s.seed = seed;
        self
    }

    /// The call site's `(min_train, param1, param2)` (kept to warn when call sites differ).
    pub fn call_args(mut self, args: (i64, i64, i64)) -> Self {
        self.args = args;
        self
    }

    /// The settings so far.
    pub fn settings(&self) -> &RegionSettings {
        &self.s
    }

    /// The region for `spec`.
    pub fn build(&self, spec: RegionDescriptor) -> Region {
        Region::build(spec, &self.s, self.args)
    }
}

/// An adaptive region. Created by the [`crate::registry`], alive for the whole process.
pub struct Region {
    /// The descriptor (for a malformed one: a stand-in with the region's best-effort name).
    pub spec: RegionDescriptor,
    /// `(min_train, param1, param2)` as passed by the first call site.
    pub args: (i64, i64, i64),
    /// Why the spec is unusable; such a region always runs variant 0 and records nothing.
    pub broken: Option<String>,
    pub mode: Mode,
    drift_cfg: DriftConfig,
    /// Drift checks on the trained path (off when frozen, coarse, disabled or exhausted).
    monitor: AtomicBool,
    warmup: bool,
    /// Per variant: has it run in this process (its next execution is warm)?
    warmed: Box<[AtomicBool]>,
    /// Trained executions: one in `sample` is timed.
    sample: u32,
    /// Share of a run's executions that may explore new vectors after training.
    learn: f64,
    /// Exploring executions while a model decided (new vectors, drift re-measurements).
    learn_execs: AtomicU64,
    /// Never train, keep cycling through the variants (a copy of the setting, lock-free).
    cycling: AtomicBool,
    epoch: AtomicU64,
    model: ArcSwapOption<Trained>,
    training: AtomicBool,
    unrecorded: AtomicU64,
    resets: AtomicU32,
    retrains: AtomicU32,
    /// Exploration version: bumped (under the lock) when shards' exploration views may be
    /// wrong in the unsafe direction (drifts, new parameters, loaded data; see `fill_view`).
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
    /// Measurements loaded from earlier runs (for the report).
    loaded_samples: AtomicU64,
    /// Data movement per variant (from the OMPT tool, when loaded).
    pub data: crate::dataflow::RegionData,
    /// What the host version of an offload copied.
    pub host_copies: HostCopies,
    /// Liao et al.'s declared feature ranges and associated regions (see `declared`).
    declared: declared::Declared,
    /// Per variant: unavailable for the rest of the run (see [`Region::mark_unavailable`]).
    off: Box<[AtomicBool]>,
    /// Whether any variant is unavailable: one relaxed load where a choice is made.
    any_off: AtomicBool,
}

impl std::fmt::Debug for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Region").field("model", &self.spec.model).field("epoch", &self.epoch.load(Relaxed)).finish()
    }
}

impl Region {
    /// The builder with the built-in defaults.
    pub fn builder() -> RegionBuilder {
        RegionBuilder::new()
    }

    #[allow(clippy::clone_on_copy)] // ModelChoice may grow parameters that are not Copy
    fn build(spec: RegionDescriptor, s: &RegionSettings, args: (i64, i64, i64)) -> Region {
        clock::init();
        let nv = spec.variants.len();
        let name = spec.model.clone();
        // Without min_train_data: Liao et al.'s suggested size (the min_sample_points product
        // times the variants), else one sample per variant.
        let min_train = s.min_train.unwrap_or_else(|| spec.suggested_training_size().unwrap_or(nv)).max(1);
        // Successive elimination keeps its candidates in a 64-bit mask.
        let mut params = s.params;
        if params.strategy == Strategy::Elimination && nv > 64 {
            diag::warn_once(
                &format!("elimination:{name}"),
                &format!("region '{name}': {nv} variants, successive elimination handles at most 64; exploring round-robin"),
            );
            params.strategy = Strategy::RoundRobin;
        }
        let mode = Mode { coarse: s.coarse, frozen: s.frozen };
        let monitor = s.drift.enabled && !mode.frozen && !mode.coarse;
        let r = Region {
            args,
            broken: None,
            mode,
            drift_cfg: s.drift,
            monitor: AtomicBool::new(monitor),
            warmup: s.warmup,
            warmed: (0..nv).map(|_| AtomicBool::new(false)).collect(),
            // coarse mode needs every execution's time (a run's total)
            sample: if mode.coarse { 1 } else { s.sample.max(1) },
            learn: s.learn,
            learn_execs: AtomicU64::new(0),
            cycling: AtomicBool::new(s.explore_only),
            // Coarse regions decide per run from the start (pins), never by exploring per
            // execution: their epoch starts odd.
            epoch: AtomicU64::new(mode.coarse as u64),
            model: ArcSwapOption::empty(),
            training: AtomicBool::new(false),
            unrecorded: AtomicU64::new(0),
            resets: AtomicU32::new(0),
            retrains: AtomicU32::new(0),
            xver: AtomicU64::new(0),
            strategy: std::sync::atomic::AtomicU8::new(params.strategy as u8),
            slack: AtomicI64::new(0),
            shards: Shards::new(nv.max(1)),
            inner: Mutex::new(Inner {
                store: Store::new(nv, params, fnv1a(&name) ^ s.seed),
                settings: Settings { min_train, choice: s.model.clone(), explore_only: s.explore_only },
                overflow: Default::default(),
                drifts: Vec::new(),
                unavailable: Vec::new(),
                need: 0,
            }),
            loaded_samples: AtomicU64::new(0),
            data: crate::dataflow::RegionData::new(nv),
            host_copies: HostCopies::default(),
            declared: declared::Declared::new(&spec),
            off: (0..nv).map(|_| AtomicBool::new(false)).collect(),
            any_off: AtomicBool::new(false),
            spec,
        };
        drop(r.lock()); // publishes what training needs to `slack`
        r
    }

    /// A region whose spec could not be used: variant 0 forever, nothing recorded.
    pub fn broken(name: String, reason: String) -> Region {
        let mut spec = RegionDescriptor::new(name, "?", vec!["variant 0".to_owned()]);
        spec.model_type = crate::spec::ModelType::DecisionTree;
        let mut r = RegionBuilder::new().warmup(false).build(spec);
        r.broken = Some(reason);
        r
    }

    /// Bytes moved and transfer time per execution of `variant` (averages over its measured
    /// executions), when the data-movement tool is loaded: inputs for models that weigh
    /// transfer cost.
    pub fn data_movement(&self, variant: usize) -> Option<crate::dataflow::Movement> {
        self.data.movement(variant)
    }

    /// Measurements loaded from earlier runs.
    pub fn loaded_samples(&self) -> u64 {
        self.loaded_samples.load(Relaxed)
    }

    /// Number of variants.
    pub fn nvariants(&self) -> usize {
        self.spec.variants.len()
    }

    pub(crate) fn lock(&self) -> Locked<'_> {
        // A panic while holding the lock (caught at the FFI boundary) must not disable the region.
        Locked { g: self.inner.lock().unwrap_or_else(|e| e.into_inner()), r: self }
    }

    /// What assessments of this region's vectors need from it: which variants are warm in this
    /// process, and the model's decisions once one decides.
    fn env_with<R>(&self, f: impl FnOnce(&Env) -> R) -> R {
        let warm = |v: usize| !self.warmup || self.warmed.get(v).is_some_and(|w| w.load(Relaxed));
        let model = self.model.load_full().filter(|t| matches!(t.predictor, Predictor::Model(_)));
        let predict = |k: &FKey| model.as_ref().map_or(0, |t| t.predict(k));
        let env = Env { warm: &warm, model: model.is_some().then_some(&predict as &dyn Fn(&FKey) -> usize) };
        f(&env)
    }

    // ---- unavailable variants -------------------------------------------------------------

    /// Whether variant `v` may run in this process.
    #[inline]
    pub fn available(&self, v: usize) -> bool {
        !self.any_off.load(Relaxed) || !self.off.get(v).is_some_and(|o| o.load(Relaxed))
    }

    /// The variants unavailable in this run, in the order they became so.
    pub fn unavailable(&self) -> Vec<Unavailable> {
        self.lock().unavailable.clone()
    }

    /// `v`, or what runs instead when it is unavailable: the available variant with the
    /// lowest time the model measured or predicted for the vector, else the replacement named
    /// when it became unavailable, else the first available variant (none: `v`; the launch's
    /// guard still runs the offload).
    #[inline]
    pub(crate) fn usable(&self, model: Option<(&FKey, &Trained)>, v: usize) -> usize {
        if self.available(v) {
            return v;
        }
        self.substitute(model, v)
    }

    #[cold]
    #[inline(never)]
    fn substitute(&self, model: Option<(&FKey, &Trained)>, v: usize) -> usize {
        let nv = self.nvariants();
        if let Some((key, t)) = model {
            let best = (0..nv)
                .filter(|&u| self.available(u))
                .filter_map(|u| t.time.predict(key, u).map(|ns| (u, ns)))
                .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
            if let Some((u, _)) = best {
                return u;
            }
        }
        let named = self.lock().unavailable.iter().find(|u| u.variant == v).and_then(|u| u.replacement);
        named.filter(|&u| self.available(u)).or_else(|| (0..nv).find(|&u| self.available(u))).unwrap_or(v)
    }

    /// Makes variant `v` unavailable for the rest of the run: the execution on `ctx`-side
    /// runs `replacement` instead (the caller's business), and no strategy, model or pin
    /// selects `v` again. Said once on stderr. Returns false if `v` already was unavailable
    /// (or is no variant).
    ///
    /// Why a variant becomes unavailable: the `cpu` variant runs the host version of an
    /// offload, and its launch uses data present on the device that the copies generated
    /// around it do not cover (a data environment the compiler did not see, such as a
    /// `target data` in a caller): the host memory may be stale.
    pub fn mark_unavailable(&self, v: usize, replacement: Option<usize>, reason: &str) -> bool {
        if v >= self.nvariants() || self.broken.is_some() || self.off[v].swap(true, AcqRel) {
            return false;
        }
        self.any_off.store(true, Release);
        let executions = self.executions();
        let job = {
            let mut g = self.lock();
            self.adopt_pending(&mut g);
            let replacement = replacement.filter(|&r| r < self.nvariants() && r != v);
            g.unavailable.push(Unavailable { variant: v, replacement, at_execution: executions, reason: reason.to_string() });
            let st = &mut g.store;
            self.env_with(|env| st.set_unavailable(v, env));
            // every view and cached decision is looked at again
            self.xver.fetch_add(1, Release);
            let e = self.epoch.load(Relaxed);
            if e & 1 == 1 {
                self.epoch.store(e + 2, Release);
            }
            self.claim(&mut g)
        };
        if let Some(job) = job {
            self.train_and_publish(job);
        }
        true
    }

    /// The execution on `ctx` runs variant `v` instead of the one `begin` chose (a guard
    /// found the chosen one unavailable): `end` records it under `v`; it is cold if `v` has
    /// not run in this process yet.
    pub(crate) fn switch_execution(&self, ctx: &mut Ctx, v: usize) {
        let v = v.min(self.nvariants() - 1);
        let mut flags = ctx.t0 & T0_FLAGS & !T0_COLD;
        if self.warmup && !self.warmed[v].load(Relaxed) && !self.warmed[v].swap(true, Relaxed) {
            flags |= T0_COLD;
        }
        ctx.t0 = (ctx.t0 & !T0_FLAGS) | flags;
        ctx.variant = v as c_int;
        ctx.value = self.spec.values[v];
    }

    // ---- the execution path -------------------------------------------------------------

    /// Starts one execution: fills `ctx` (features, variant, value, start time).
    #[inline]
    pub fn begin(&self, features: &[f64], ctx: &mut Ctx) {
        let n = features.len().min(MAX_FEATURES);
        copy_features(&mut ctx.features, &features[..n]);
        self.begin_filled(n, ctx);
    }

    /// [`Region::begin`] with the `n` features already in `ctx.features` (Apollo's ABI collects
    /// them there, one call at a time).
    #[inline]
    pub(crate) fn begin_filled(&self, n: usize, ctx: &mut Ctx) {
        let n = n.min(MAX_FEATURES);
        ctx.region = self as *const Region as *mut c_void;
        ctx.nfeatures = n as c_int;
        if self.broken.is_some() {
            ctx.variant = 0;
            ctx.value = self.spec.values[0];
            ctx.t0 = T0_NO_RECORD;
            return;
        }
        let f = &ctx.features[..n];
        if self.declared.hooked() {
            if let Some(v) = self.declared_begin(f) {
                // fixed by an associated region for this run: recorded as an exploring measurement
                let v = self.usable(None, v.min(self.nvariants() - 1));
                let cold = self.warmup && !self.warmed[v].load(Relaxed) && !self.warmed[v].swap(true, Relaxed);
                ctx.variant = v as c_int;
                ctx.value = self.spec.values[v];
                ctx.t0 = clock::now() | if cold { T0_COLD } else { 0 };
                return;
            }
        }
        let epoch = self.epoch.load(Acquire);
        let shard = self.shards.local();
        let h = hash_features(f);
        let mut found = shard.find(h, f);
        if epoch & 1 == 1 {
            let cached = match found {
                Some(slot) if slot.epoch.load(Relaxed) == epoch => Some((slot.variant.load(Relaxed), slot as *const Slot)),
                _ => self.decide_slow(shard, h, f, epoch),
            };
            if let Some((v, slot)) = cached {
                if v != EXPLORE {
                    self.begin_trained(shard, v as usize, slot, n, ctx);
                    return;
                }
                found = unsafe { slot.as_ref() };
            }
        }
        self.begin_exploring(shard, h, found, n, ctx);
    }

    /// A trained execution: the cached decision; one in `sample` is timed.
    #[inline(always)]
    fn begin_trained(&self, shard: &Shard, v: usize, slot: *const Slot, n: usize, ctx: &mut Ctx) {
        let v = v.min(self.nvariants() - 1);
        let mut flags = T0_MODEL;
        if !slot.is_null() && n < MAX_FEATURES {
            ctx.features[STASH] = f64::from_bits(slot as u64);
            flags |= T0_STASH;
        }
        ctx.variant = v as c_int;
        ctx.value = self.spec.values[v];
        let left = shard.sample_left.load(Relaxed);
        if left != 0 {
            shard.sample_left.store(left - 1, Relaxed);
            ctx.t0 = flags; // start time 0: not timed
            return;
        }
        shard.sample_left.store(self.sample - 1, Relaxed);
        bump(&shard.turns, 1);
        // the first execution of a variant in this process is cold: counted, not timed
        let cold = self.warmup && !self.warmed[v].load(Relaxed) && !self.warmed[v].swap(true, Relaxed);
        ctx.t0 = if cold { flags } else { clock::now() | flags };
    }

    /// An exploring execution: a variant the vector's view wants (or its label).
    fn begin_exploring(&self, shard: &Shard, h: u64, found: Option<&Slot>, n: usize, ctx: &mut Ctx) {
        let (v, slot) = self.explore_begin(shard, h, found, &ctx.features[..n]);
        // a view taken before a variant became unavailable may still name it
        let v = self.usable(None, v);
        let mut flags = 0;
        if !slot.is_null() && n < MAX_FEATURES {
            ctx.features[STASH] = f64::from_bits(slot as u64);
            flags |= T0_STASH;
        }
        let v = v.min(self.nvariants() - 1);
        if self.warmup && !self.warmed[v].load(Relaxed) && !self.warmed[v].swap(true, Relaxed) {
            // The variant's first execution in this process: recorded as a cold measurement
            // (the first offload initialises the device; see `explore`).
            flags |= T0_COLD;
        }
        if self.epoch.load(Relaxed) & 1 == 1 {
            self.learn_execs.fetch_add(1, Relaxed);
        }
        ctx.variant = v as c_int;
        ctx.value = self.spec.values[v];
        ctx.t0 = clock::now() | flags;
    }

    /// The decision for `f` under `epoch` (odd) when this thread has none cached, with the
    /// slot `end` records into (null if the shard is full). [`EXPLORE`]: the vector explores.
    #[cold]
    #[inline(never)]
    fn decide_slow(&self, shard: &Shard, h: u64, f: &[f64], epoch: u64) -> Option<(u32, *const Slot)> {
        let key = FKey::new(f);
        let slot = shard.find(h, f).or_else(|| shard.insert(h, &key));
        let mut cache = true;
        let (variant, bar) = match self.model.load_full() {
            Some(t) => {
                let v = if self.learns_after_training(&t) {
                    let (v, c) = self.route(&key, &t, slot);
                    cache = c;
                    v
                } else {
                    t.predict(&key) as u32
                };
                let v = if v == EXPLORE { v } else { self.usable(Some((&key, &t)), v as usize) as u32 };
                let bar = match v {
                    EXPLORE => u64::MAX,
                    v if self.monitor.load(Relaxed) => match drift::bar_ns(t.time.predict(&key, v as usize), &self.drift_cfg) {
                        u64::MAX => u64::MAX,
                        ns => (ns as f64 / clock::ns_per_tick()) as u64,
                    },
                    _ => u64::MAX,
                };
                (v, bar)
            }
            None if self.mode.coarse => (self.coarse_pin(&key) as u32, u64::MAX),
            None => return None, // not trained (any more): explore
        };
        if let Some(s) = slot {
            s.variant.store(if variant == EXPLORE { EXPLORE } else { variant.min(self.nvariants() as u32 - 1) }, Relaxed);
            s.bar_ticks.store(bar, Relaxed);
            s.win_n.store(0, Relaxed);
            s.win_slow.store(0, Relaxed);
            // epochs are odd: 0 makes the next execution decide again
            s.epoch.store(if cache { epoch } else { 0 }, Relaxed);
        }
        Some((variant, slot.map_or(std::ptr::null(), |s| s as *const Slot)))
    }

    /// Whether a trained region still learns: explores new vectors and re-measures drifting
    /// ones (not frozen, not a fixed variant, not coarse, training allowed).
    fn learns_after_training(&self, t: &Trained) -> bool {
        !self.mode.frozen && !self.mode.coarse && !matches!(t.origin, Origin::Fixed | Origin::Frozen) && !self.cycling.load(Relaxed)
    }

    /// A trained region's decision for `key` (under the lock): the label of a decided vector,
    /// [`EXPLORE`] for one being explored (new, or re-measured after a drift) or that starts
    /// exploring now (it recurs and the budget allows), else the model's prediction. The second
    /// value says whether the decision may be cached for the epoch: not for a vector seen for
    /// the first time (its next execution asks again: it may recur).
    fn route(&self, key: &FKey, t: &Trained, slot: Option<&Slot>) -> (u32, bool) {
        let mut g = self.lock();
        if let Some(i) = g.store.find(key) {
            let r = g.store.rec(i);
            if let Some(l) = r.decided() {
                return (l as u32, true);
            }
            // being explored: a vector first explored after training goes on while the budget
            // lasts; one the first exploration or a drift opened is finished
            let novel = r.flags & crate::explore::NOVEL != 0;
            return (if !novel || self.learning_allowed(&mut g) { EXPLORE } else { t.predict(key) as u32 }, true);
        }
        let nv = self.nvariants();
        let recurs = slot.is_some_and(|s| (0..nv).any(|v| s.count(v).load(Relaxed) > 0)) || g.store.seen.contains(key);
        if !recurs {
            return (t.predict(key) as u32, slot.is_none() || self.learn <= 0.0);
        }
        if self.learning_allowed(&mut g) {
            let i = g.store.fv(key);
            g.store.mark_novel(i);
            // its exploration starts with what the model predicts: nothing is lost where the
            // model is right
            if let Some(s) = slot {
                s.xrr.store(t.predict(key) as u32, Relaxed);
            }
            return (EXPLORE, true);
        }
        (t.predict(key) as u32, true)
    }

    /// Whether exploring executions after training are within budget: `learn` × this run's
    /// executions, plus one pass over the variants. The run's trained executions are
    /// estimated from the threads' sampling turns (one read per thread).
    fn learning_allowed(&self, g: &mut Inner) -> bool {
        if self.learn <= 0.0 {
            return false;
        }
        let mut n = self.unrecorded.load(Relaxed) + g.store.recorded_explore;
        self.shards.for_each(|s| n += s.turns.load(Relaxed) * self.sample as u64);
        let budget = (self.learn * n as f64) as u64 + self.nvariants() as u64;
        self.learn_execs.load(Relaxed) < budget
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
    fn explore_begin(&self, shard: &Shard, h: u64, found: Option<&Slot>, f: &[f64]) -> (usize, *const Slot) {
        if self.mode.frozen {
            return (0, std::ptr::null()); // frozen and nothing published (not after creation)
        }
        let Some(slot) = found.or_else(|| shard.insert(h, &FKey::new(f))) else {
            return (self.explore_locked(f), std::ptr::null());
        };
        if slot.xver.load(Relaxed) != self.xver.load(Acquire) {
            self.refresh_view(slot);
        }
        let nv = self.nvariants();
        let strategy = self.strategy.load(Relaxed);
        if self.cycling.load(Relaxed) {
            // data collection (explore-only, Apollo's RoundRobin and Random): every variant
            // in turn, whatever the labels
            return (self.next_of(shard, slot, strategy, |v| self.available(v)), slot);
        }
        let decided = slot.xdecided.load(Relaxed);
        if decided != u32::MAX {
            return (decided as usize, slot);
        }
        if slot.xwant.load(Relaxed) == 0 {
            // this thread delivered what its view wanted, and others have not settled the
            // vector yet: look again
            self.refresh_view(slot);
            let decided = slot.xdecided.load(Relaxed);
            if decided != u32::MAX {
                return (decided as usize, slot);
            }
            if slot.xwant.load(Relaxed) == 0 {
                return (self.explore_locked(f), slot);
            }
        }
        let v = self.next_of(shard, slot, strategy, |v| slot.xleft(v).load(Relaxed) > 0 && self.available(v));
        (v.min(nv - 1), slot)
    }

    /// The next variant `ok` accepts: in turn from this thread's position, or at random.
    #[inline]
    fn next_of(&self, shard: &Shard, slot: &Slot, strategy: u8, ok: impl Fn(usize) -> bool) -> usize {
        let nv = self.nvariants();
        if strategy == Strategy::Random as u8 {
            let n = (0..nv).filter(|&v| ok(v)).count().max(1);
            let mut r = XorShift::from_state(shard.rng.load(Relaxed));
            let k = r.below(n);
            shard.rng.store(r.state(), Relaxed);
            return (0..nv).filter(|&v| ok(v)).nth(k).unwrap_or(0);
        }
        let start = slot.xrr.load(Relaxed) as usize % nv;
        for i in 0..nv {
            let v = if start + i < nv { start + i } else { start + i - nv };
            if ok(v) {
                slot.xrr.store(if v + 1 < nv { v as u32 + 1 } else { 0 }, Relaxed);
                return v;
            }
        }
        start
    }

    /// Copies the store's exploration state of `slot`'s vector into the slot (under the lock).
    #[cold]
    #[inline(never)]
    fn refresh_view(&self, slot: &Slot) {
        let mut g = self.lock();
        // the view counts from the store's counts: this thread's buffered measurements must
        // be in them
        self.take_pending(&mut g.store, slot.shard());
        let i = g.store.fv(slot.key());
        self.fill_view(&g.store, i, slot);
    }

    /// Copies vector `i`'s exploration state into `slot` (caller holds the lock, owns the slot
    /// and has moved its shard's buffered measurements into the store).
    ///
    /// Per variant the view holds the measurements wanted ([`Slot::xleft`]) and the pair's
    /// count ([`Slot::xcnt`]). An exploring execution runs a wanted variant (or the label
    /// once decided) and buffers its measurement without the lock, except:
    /// * the measurement that delivers the last of what the view wanted, while the vector is
    ///   undecided: it takes the lock, and the store assesses the vector (label, or more
    ///   wanted);
    /// * under successive elimination, every measurement of an undecided vector (any of them
    ///   may eliminate).
    ///
    /// A measurement that brings the pair's count to the training threshold is flagged
    /// [`DONE`] and takes one atomic step on [`Region::slack`]; only when that says the region
    /// may now be ready does the thread take the lock, hand every buffer to the store and
    /// train. With one thread exploring a vector this is exact: training starts at exactly the
    /// execution that completes the `min_train`-th pair (or the first decided vector after
    /// that). With several, threads may measure the same wanted pair (extra data), and a
    /// completion may be flagged twice (the lock is taken early, harmlessly) or not at all
    /// (training is also checked whenever a buffer reaches the store). Nothing is lost either
    /// way: every buffer reaches the store.
    ///
    /// Changes that make a view wrong (drifts, new parameters, loaded data) bump `xver`, which
    /// invalidates every view.
    fn fill_view(&self, st: &Store, i: usize, slot: &Slot) {
        let ver = self.xver.load(Relaxed);
        let (f, counts) = (st.rec(i), st.counts(i));
        let mut wants = 0u32;
        for (v, c) in counts.iter().enumerate() {
            slot.xleft(v).store(c.want as u64, Relaxed);
            slot.xcnt(v).store(c.count as u64, Relaxed);
            wants += c.want as u32;
        }
        slot.xwant.store(wants, Relaxed);
        slot.xthr.store(if f.decided().is_some() { 1 } else { st.params.threshold() }, Relaxed);
        slot.xat.store((st.generation as u64) << 32 | (i as u64 + 1), Relaxed);
        slot.xalive.store(f.alive, Relaxed);
        slot.xdecided.store(f.decided().map_or(u32::MAX, |d| d as u32), Relaxed);
        slot.xver.store(ver, Relaxed);
    }

    /// Exploring choice under the lock (the thread's shard is full, or its view wants nothing).
    #[cold]
    fn explore_locked(&self, f: &[f64]) -> usize {
        self.lock().store.choose(&FKey::new(f)).0
    }

    /// Ends the execution started by `begin` on `ctx`: records it; may train.
    #[inline]
    pub fn end(&self, ctx: &Ctx) {
        let flags = ctx.t0 & T0_FLAGS;
        let v = ctx.variant;
        if flags & T0_NO_RECORD != 0 || v < 0 || v as usize >= self.nvariants() {
            self.unrecorded.fetch_add(1, Relaxed);
            return;
        }
        let t0 = ctx.t0 & !T0_FLAGS;
        // SAFETY: with T0_STASH, `begin` stored a slot of this region's shards there, and
        // shards live as long as the region.
        let slot = (flags & T0_STASH != 0).then(|| unsafe { &*(ctx.features[STASH].to_bits() as *const Slot) }).filter(|s| s.owned_here());
        if flags & T0_MODEL != 0 {
            match slot {
                Some(slot) => self.record_slot(slot, v as usize, t0),
                None => self.record_trained(ctx.feature_slice(), v as usize, t0),
            }
            return;
        }
        let ns = clock::to_ns(clock::now().saturating_sub(t0));
        let cold = flags & T0_COLD != 0;
        match slot {
            Some(slot) => self.record_explore_fast(slot, v as usize, ns, cold),
            None => self.record_explore(&FKey::new(ctx.feature_slice()), v as usize, ns, cold, None, None),
        }
    }

    /// Records a trained execution in this thread's slot: plain loads and stores; the clock is
    /// read only for a timed one (`t0` ≠ 0).
    #[inline(always)]
    fn record_slot(&self, slot: &Slot, v: usize, t0: u64) {
        bump(slot.count(v), 1);
        if t0 != 0 {
            self.record_timed(slot, v, clock::now().saturating_sub(t0));
        }
    }

    #[inline(never)]
    fn record_timed(&self, slot: &Slot, v: usize, ticks: u64) {
        bump(slot.timed(v), 1);
        bump(slot.ticks(v), ticks);
        let bar = slot.bar_ticks.load(Relaxed);
        if bar != u64::MAX && self.monitor.load(Relaxed) && slot.variant.load(Relaxed) as usize == v {
            let n = slot.win_n.load(Relaxed) + 1;
            slot.win_n.store(n, Relaxed);
            if ticks > bar {
                slot.win_slow.store(slot.win_slow.load(Relaxed) + 1, Relaxed);
            }
            if n >= self.drift_cfg.window {
                self.end_window(slot, v);
            }
        }
    }

    /// Records a trained execution whose slot `begin` could not stash (another thread began
    /// it, 16 features, or a full shard).
    #[cold]
    fn record_trained(&self, f: &[f64], v: usize, t0: u64) {
        let shard = self.shards.local();
        let h = hash_features(f);
        match shard.find(h, f).or_else(|| shard.insert(h, &FKey::new(f))) {
            Some(slot) => self.record_slot(slot, v, t0),
            None => {
                let ticks = if t0 != 0 { clock::now().saturating_sub(t0) } else { 0 };
                let mut g = self.lock();
                let e = g.overflow.entry((FKey::new(f), v)).or_insert((0, 0, 0));
                e.0 = e.0.saturating_add(1);
                if t0 != 0 {
                    e.1 = e.1.saturating_add(1);
                    e.2 = e.2.saturating_add(ticks);
                }
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn end_window(&self, slot: &Slot, v: usize) {
        let (slow, n) = (slot.win_slow.load(Relaxed), slot.win_n.load(Relaxed));
        slot.win_n.store(0, Relaxed);
        slot.win_slow.store(0, Relaxed);
        if drift::window_drifted(slow, n, &self.drift_cfg) {
            self.drifted(slot.key(), v, slow, n, slot.epoch.load(Relaxed));
        }
    }

    /// Measures vector `features` afresh: its retained measurements are set aside (they stay
    /// in the saved files), every variant is measured again and the vector labelled again; a
    /// trained model keeps deciding every other vector and retrains once the new label is
    /// known. Returns the vector's label before (None: not measured yet, or undecided).
    pub fn remeasure(&self, features: &[f64]) -> Option<usize> {
        let mut g = self.lock();
        self.adopt_pending(&mut g);
        self.reopen_locked(&mut g, &FKey::new(features))
    }

    fn reopen_locked(&self, g: &mut Inner, key: &FKey) -> Option<usize> {
        g.store.find(key)?;
        let before = g.store.reopen(key);
        self.xver.fetch_add(1, Release);
        let e = self.epoch.load(Relaxed);
        if e & 1 == 1 && self.model.load().is_some() {
            // every thread looks its decisions up again: this vector now explores
            self.epoch.store(e + 2, Release);
        }
        before
    }

    /// A measured pair ran slower than its measured time in most of a window under `epoch`:
    /// its vector is measured afresh (see [`Region::remeasure`]).
    fn drifted(&self, key: &FKey, v: usize, slow: u32, window: u32, epoch: u64) {
        let executions = self.executions();
        let mut g = self.lock();
        if self.epoch.load(Relaxed) != epoch || self.mode.frozen {
            return; // another thread acted already, or the model changed
        }
        if self.resets.load(Relaxed) >= self.drift_cfg.max_resets {
            self.monitor.store(false, Relaxed);
            diag::warn_once(
                &format!("drift-max:{}", self.spec.model),
                &format!(
                    "region '{}': execution times keep drifting after {} re-measured feature vectors; keeping \
                     the current model and no longer checking (OMPADAPT_DRIFT_MAX raises the limit)",
                    self.spec.model, self.drift_cfg.max_resets
                ),
            );
            return;
        }
        self.adopt_pending(&mut g);
        if g.store.find(key).is_none() {
            return;
        }
        self.resets.fetch_add(1, Relaxed);
        let label_before = self.reopen_locked(&mut g, key);
        g.drifts.push(DriftEvent { at_execution: executions, key: *key, variant: v, label_before, slow, window });
    }

    /// Records an exploring measurement through this thread's slot: buffered without a lock
    /// unless it is due for assessment (see `fill_view`).
    #[inline(always)]
    fn record_explore_fast(&self, slot: &Slot, v: usize, ns: u64, cold: bool) {
        if slot.xver.load(Relaxed) != self.xver.load(Relaxed) {
            return self.record_explore(slot.key(), v, ns, cold, Some(slot.xat.load(Relaxed)), Some(slot));
        }
        let left = slot.xleft(v).load(Relaxed);
        let undecided = slot.xdecided.load(Relaxed) == u32::MAX;
        if left > 0 {
            slot.xleft(v).store(left - 1, Relaxed);
            let w = slot.xwant.load(Relaxed).saturating_sub(1);
            slot.xwant.store(w, Relaxed);
            if w == 0 && undecided && !self.cycling.load(Relaxed) {
                return self.record_explore(slot.key(), v, ns, cold, Some(slot.xat.load(Relaxed)), Some(slot));
            }
        }
        if undecided && self.strategy.load(Relaxed) == Strategy::Elimination as u8 {
            return self.record_explore(slot.key(), v, ns, cold, Some(slot.xat.load(Relaxed)), Some(slot));
        }
        let c = slot.xcnt(v).load(Relaxed) + 1;
        slot.xcnt(v).store(c, Relaxed);
        let done = c == slot.xthr.load(Relaxed) as u64;
        let shard = slot.shard();
        let len = shard.buf_len.load(Relaxed);
        if len - shard.buf_taken.load(Acquire) >= BUF as u64 {
            self.flush(shard);
        }
        let e = &shard.buf[len as usize % BUF];
        e.at.store(slot.xat.load(Relaxed), Relaxed);
        let flags = if done { DONE } else { 0 } | if cold { COLD } else { 0 };
        e.vns.store((v as u64) << V_SHIFT | flags | ns.min(NS_MASK), Relaxed);
        shard.buf_len.store(len + 1, Release);
        // after the entry is visible: whoever hands it over adds back what this takes
        if done && self.slack.fetch_sub(1, AcqRel) <= 1 {
            self.completed();
        }
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
    #[cold]
    #[inline(never)]
    fn record_explore(&self, key: &FKey, v: usize, ns: u64, cold: bool, at: Option<u64>, slot: Option<&Slot>) {
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
            self.env_with(|env| st.record_at(i, v, ns as f64, cold, env));
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
    /// of an earlier generation count as executions but are dropped.
    fn take_pending(&self, st: &mut Store, shard: &Shard) {
        let len = shard.buf_len.load(Acquire);
        let mut i = shard.buf_taken.load(Relaxed);
        if i == len {
            return;
        }
        let mut done = 0;
        self.env_with(|env| {
            while i < len {
                let e = &shard.buf[i as usize % BUF];
                let (at, vns) = (e.at.load(Relaxed), e.vns.load(Relaxed));
                let idx = (at & 0xffff_ffff) as usize;
                let (v, ns) = ((vns >> V_SHIFT) as usize, vns & NS_MASK);
                done += (vns & DONE != 0) as i64;
                if (at >> 32) as u32 == st.generation && idx >= 1 && idx <= st.len() && v < st.nv() {
                    st.record_at(idx - 1, v, ns as f64, vns & COLD != 0, env);
                } else {
                    st.recorded_explore += 1;
                }
                i += 1;
            }
        });
        shard.buf_taken.store(len, Release);
        if done != 0 {
            // the completions are in the store's counters now (the lock's release counts them)
            self.slack.fetch_add(done, AcqRel);
        }
    }

    /// Adds measurements loaded from earlier runs (already saved); [`Region::settle`] once all
    /// are in.
    pub fn absorb(&self, key: &FKey, v: usize, count: u64, warm: &[f64], cold: &[f64], fresh: bool) {
        self.lock().store.absorb(key, v, count, warm, cold, fresh);
        self.loaded_samples.fetch_add(count, Relaxed);
    }

    /// Notes a vector the model decided in an earlier run (it recurs).
    pub fn note_seen(&self, key: &FKey) {
        self.lock().store.seen.insert(*key);
    }

    /// Assesses every vector after loading: labels, and what is still wanted.
    pub fn settle(&self) {
        let mut g = self.lock();
        self.env_with(|env| g.store.settle(env));
        self.xver.fetch_add(1, Release);
    }
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

#[cfg(test)]
mod tests;

/// Clock ticks for `ns` nanoseconds (tests that backdate a context's start).
#[cfg(test)]
pub(crate) fn tests_ticks(ns: u64) -> u64 {
    (ns as f64 / clock::ns_per_tick()).round() as u64
}
