//! One adaptive region: exploration, recording, training, model-driven selection and drift.
//!
//! Concurrency model:
//! * nothing about "the current execution" lives here: everything an execution needs between
//!   `begin` and `end` is in its [`Ctx`] (features, variant, and its [`Start`]), so
//!   one region can run on many threads at once, nested or from tasks;
//! * `epoch` says what decides executions: even = exploring, odd = a published decision
//!   function (a model, a constant, or coarse mode's per-run pins). It changes only under the
//!   region's lock (training publishes; a drift, or a vector that starts exploring, makes
//!   every thread look its decisions up again);
//! * a **trained** execution reads `epoch`, finds its feature vector in the calling thread's
//!   shard (see `shard`), uses the decision cached there for that epoch and, at `end`, counts
//!   it in that thread's counters. One execution in `OMPADAPT_SAMPLE` per thread is timed (two
//!   clock reads), for the report and drift detection; the others read no clock. No lock, no
//!   atomic read-modify-write, no allocation, no system call (with `OMPADAPT_TRACE`, every
//!   execution also reads the clock twice and appends to its thread's buffer: see `trace`);
//! * after training, a vector the model was not trained on that recurs is explored (within
//!   the `OMPADAPT_LEARN` budget) and the model retrains with its label: its cached decision
//!   is [`EXPLORE`], and its executions take the exploring path below;
//! * an **exploring** execution chooses its variant from a copy of its vector's exploration
//!   state kept in the thread's shard (what is wanted, the label once decided; refreshed
//!   whenever the thread takes the lock, and when the region's exploration version changes)
//!   and, at `end`, buffers its measurement in the shard (handed to the measurement table in batches,
//!   before the thread's next locked measurement, or by whoever reads the data: report,
//!   training, persistence). The measurement that delivers the last of what the view wanted
//!   takes the lock (the measurement table assesses the vector: label, or more wanted). A measurement
//!   that makes a pair a training sample also takes one atomic step on the region's `slack`,
//!   and takes the lock only when that says the region may have become ready to train; under
//!   successive elimination every measurement of an undecided vector takes the lock;
//! * models are `Arc`s in an `ArcSwapOption`: replacing one (retraining) frees the old one
//!   when its last reader is done. Trained executions do not even touch the model on the fast
//!   path: the decision is in the shard;
//! * exactly one thread trains at a time: the one that wins the `training` flag.
//!
//! Submodules: `builder` (settings and construction), `select` (an execution's start),
//! `record` (its end), `availability` (variants that cannot run in this process), `training`,
//! `settings` (read-only accessors), `snapshot` (copies of the data for the report and the
//! store), `declared` (`declare adaptation`), `traced` (executions recorded for `OMPADAPT_TRACE`),
//! `own` (the program's own variant, which a region settles on when its benefit is noise),
//! `recheck` (labels that earlier runs' trained executions contradict, measured again),
//! `control` (labels kept only where faster than the own variant run after run).

use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, Ordering::*};
use std::sync::{Mutex, MutexGuard};

use arc_swap::ArcSwapOption;

use crate::clock;
use crate::config::{DriftConfig, RegionSettings};
use crate::ctx::{Ctx, Start, MAX_FEATURES};
use crate::diag;
use crate::drift;
use crate::explore::{Params, Strategy};
use crate::measurements::{AssessmentInputs, MeasurementTable};
use crate::model::ModelChoice;
use crate::shard::{bump, Shard, Shards, Slot, BUF, COLD, DONE, EXPLORE, NS_MASK, V_SHIFT};
use crate::spec::{CallArgs, RegionDescriptor};
use crate::stats::{fnv1a, hash_features, FeatureKey, XorShift};

mod availability;
mod builder;
pub mod declared;
mod entry;
mod memo;
mod own;
pub use own::OwnJudgement;
mod control;
mod recheck;
mod record;
pub use control::ControlEvent;
pub use recheck::RecheckEvent;
mod select;
mod settings;
mod settled;
mod snapshot;
mod traced;
mod training;
mod whole_run;

pub use builder::RegionBuilder;
pub use own::{measured_benefit, own_variant, Benefit};
pub use snapshot::{EntryView, Monitored, PairView, Snapshot};
pub use training::{Origin, Predictor, StoredFacts, Trained};

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
    /// The feature vector that drifted.
    pub key: FeatureKey,
    /// The variant that ran slow on it.
    pub variant: usize,
    /// The vector's label before it was re-measured (None: it had none).
    pub label_before: Option<usize>,
    /// Slow executions in the window that triggered it.
    pub slow: u32,
    /// The window's length (timed executions).
    pub window: u32,
}

#[derive(Debug)]
pub(crate) struct Inner {
    measurements: MeasurementTable,
    settings: Settings,
    /// Trained executions that did not fit in a thread's shard:
    /// ((vector, variant), (count, timed, ticks)).
    overflow: std::collections::HashMap<(FeatureKey, usize), (u64, u64, u64), crate::stats::FxBuild>,
    drifts: Vec<DriftEvent>,
    /// Labels to recheck in this run (see `recheck`).
    rechecks: Vec<recheck::Pending>,
    /// Rechecks done in this run, in order.
    rechecked: Vec<RecheckEvent>,
    /// Control verdicts given at load (see `control`).
    controls: Vec<ControlEvent>,
    /// Measured vectors the program's own variant decides in this run (see `control`), and
    /// whether this run is its trial (every execution of it is timed).
    own_decides: std::collections::HashMap<FeatureKey, bool, crate::stats::FxBuild>,
    /// Variants made unavailable in this run, in order.
    unavailable: Vec<Unavailable>,
    /// The part of [`Region::slack`] the lock's holder last published (see [`Locked`]).
    need: i64,
}

/// A variant made unavailable in this run: its host version would have read stale memory
/// (see [`Region::mark_unavailable`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unavailable {
    /// The variant that cannot run.
    pub variant: usize,
    /// The variant the execution that found it ran instead (None: not recorded).
    pub replacement: Option<usize>,
    /// Executions of the region when it happened.
    pub at_execution: u64,
    /// Why it cannot run (as the warning said).
    pub reason: String,
}

/// What the `cpu` variant of an offload copied around its host version (see
/// [`crate::host_run`]): executions, bytes of the present mappings the launches reached, bytes
/// brought in from the device, bytes moved between host and device (both ways), bytes saved and
/// restored on the host, time.
#[derive(Debug, Default)]
pub struct HostCopies {
    runs: AtomicU64,
    mapped: AtomicU64,
    brought_in: AtomicU64,
    transferred: AtomicU64,
    preserved: AtomicU64,
    ns: AtomicU64,
}

/// One execution's copies, or their totals ([`HostCopies::totals`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CopyCounts {
    /// Executions.
    pub runs: u64,
    /// Bytes of the present mappings the launch reached.
    pub mapped: u64,
    /// Bytes brought from the device into host memory.
    pub brought_in: u64,
    /// Bytes moved between host and device, both ways.
    pub transferred: u64,
    /// Host bytes saved and restored.
    pub preserved: u64,
    /// Time of the copies.
    pub ns: u64,
}

impl HostCopies {
    /// Adds one execution's copies.
    pub(crate) fn record(&self, c: CopyCounts) {
        self.runs.fetch_add(1, Relaxed);
        self.mapped.fetch_add(c.mapped, Relaxed);
        self.brought_in.fetch_add(c.brought_in, Relaxed);
        self.transferred.fetch_add(c.transferred, Relaxed);
        self.preserved.fetch_add(c.preserved, Relaxed);
        self.ns.fetch_add(c.ns, Relaxed);
    }

    /// The totals over every execution.
    pub fn totals(&self) -> CopyCounts {
        CopyCounts {
            runs: self.runs.load(Relaxed),
            mapped: self.mapped.load(Relaxed),
            brought_in: self.brought_in.load(Relaxed),
            transferred: self.transferred.load(Relaxed),
            preserved: self.preserved.load(Relaxed),
            ns: self.ns.load(Relaxed),
        }
    }
}

/// "Cannot train now" in [`Region::slack`] terms (far from both ends of an `i64`).
const NEVER: i64 = 1 << 60;

/// The region's lock. Releasing it publishes what training still needs to
/// [`Region::slack`], so every change of the measurement table's counters, the settings or the epoch
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
            (g.settings.min_train.min(NEVER as usize) as i64 - g.measurements.counted as i64).min(NEVER)
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
    pub spec: RegionDescriptor,
    /// `min_train_data` and the model parameters as passed by the first call site.
    pub args: CallArgs,
    /// Why the spec is unusable; such a region always runs variant 0 and records nothing.
    pub broken: Option<String>,
    /// Why the region runs as written in this process: its code calls functions of other
    /// translation units (`depends=`) that the program's summaries do not show unable to
    /// observe the team ([`crate::summaries`]).
    pub held: Option<String>,
    /// Coarse or frozen, fixed at creation.
    pub mode: Mode,
    /// The variant `OMPADAPT_VARIANT` pins the region to (the report says so).
    pub pinned: std::sync::OnceLock<usize>,
    /// What its team-size variants resolved to in this process (set at creation where some
    /// share of the team could equal another variant's team; saved with its data).
    pub teams: std::sync::OnceLock<crate::team::TeamRecord>,
    /// Feature positions whose values go on the grid of derived sizes (`feature_grid`).
    pub derived_sizes: u32,
    /// Whether [`Region::enter`] has work before the choice (written in a parallel region,
    /// derived sizes, associated): one load and branch on the usual path instead of three.
    entry_policy: bool,
    /// Whether the trained path's memo may start executions (no entry policy, not broken).
    memo_ok: bool,
    drift_cfg: DriftConfig,
    /// Drift checks on the trained path (off when frozen, coarse, disabled or exhausted).
    monitor: AtomicBool,
    /// Some label waits for its recheck (see `recheck`): decisions look their gate up.
    recheck_pending: AtomicBool,
    /// Some vector's own variant has its trial in this run (see `control`): decisions look
    /// their trial flag up.
    trials: AtomicBool,
    warmup: bool,
    /// Per variant: has it run in this process (its next execution is warm)?
    warmed: Box<[AtomicBool]>,
    /// Trained executions: one in `sample` is timed.
    sample: u32,
    /// Share of a run's executions that may explore new vectors after training.
    learn: f64,
    /// Exploring executions while a model decided (new vectors, drift re-measurements).
    learn_execs: AtomicU64,
    /// Whether the model decides or the region settled on its own variant, judged once per
    /// model (see `own`).
    own_rule: AtomicU64,
    /// Never train, keep cycling through the variants (a copy of the setting, lock-free).
    cycling: AtomicBool,
    epoch: AtomicU64,
    model: ArcSwapOption<Trained>,
    training: AtomicBool,
    /// Training on the data loaded at start-up waits for the exit (see
    /// [`Region::start_on_saved`]); cleared when a model is published.
    deferred: AtomicBool,
    unrecorded: AtomicU64,
    resets: AtomicU32,
    retrains: AtomicU32,
    /// Exploration version: bumped (under the lock) when shards' exploration views may be
    /// wrong in the unsafe direction (drifts, new parameters, loaded data; see `fill_view`).
    exploration_version: AtomicU64,
    /// The exploration strategy (a copy of the measurement table's, for the lock-free choice).
    strategy: std::sync::atomic::AtomicU8,
    /// Training samples still missing before the region may train, minus the pair completions
    /// buffered since (measurements flagged [`DONE`] not yet in the measurement table): when a thread
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
    /// What changed in the region's definition since its saved data (see
    /// `store::definition`), for the report.
    saved_data_note: std::sync::OnceLock<String>,
    /// What start-up did with the saved data and the stored model, for the report.
    startup_note: std::sync::OnceLock<String>,
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

    /// A region whose spec could not be used: variant 0 forever, nothing recorded.
    pub fn broken(name: String, reason: String) -> Region {
        let mut spec = RegionDescriptor::new(name, "?", vec!["variant 0".to_owned()]);
        spec.model_type = crate::spec::ModelType::DecisionTree;
        let mut r = RegionBuilder::new().warmup(false).build(spec);
        r.broken = Some(reason);
        r.memo_ok = false;
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
    fn with_assessment_inputs<R>(&self, f: impl FnOnce(&AssessmentInputs) -> R) -> R {
        let warm = |v: usize| !self.warmup || self.warmed.get(v).is_some_and(|w| w.load(Relaxed));
        let model = self.model.load_full().filter(|t| matches!(t.predictor, Predictor::Model(_)));
        let predict = |k: &FeatureKey| model.as_ref().map_or(0, |t| t.predict(k));
        let env = AssessmentInputs { warm: &warm, model: model.is_some().then_some(&predict as &dyn Fn(&FeatureKey) -> usize) };
        f(&env)
    }
}

#[cfg(test)]
mod tests;

/// Clock ticks for `ns` nanoseconds (tests that backdate a context's start).
#[cfg(test)]
pub(crate) fn tests_ticks(ns: u64) -> u64 {
    (ns as f64 / clock::ns_per_tick()).round() as u64
}
