//! How a region is made: [`RegionBuilder`]'s settings, and the region they build.

use super::*;

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
    args: CallArgs,
}

impl RegionBuilder {
    /// The built-in defaults (no environment).
    pub fn new() -> RegionBuilder {
        RegionBuilder { s: RegionSettings::default(), args: CallArgs::NONE }
    }

    /// Resolved settings (from [`crate::config::Config::region_settings`]).
    pub fn from_settings(s: RegionSettings) -> RegionBuilder {
        RegionBuilder { s, args: CallArgs::NONE }
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
    pub fn call_args(mut self, args: CallArgs) -> Self {
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

/// The minimum training size and the exploration parameters of a region of `spec`.
fn training_params(spec: &RegionDescriptor, s: &RegionSettings) -> (usize, Params) {
    let nv = spec.variants.len();
    // Without min_train_data: Liao et al.'s suggested size (the min_sample_points product
    // times the variants), else one sample per variant.
    let min_train = s.min_train.unwrap_or_else(|| spec.suggested_training_size().unwrap_or(nv)).max(1);
    // Successive elimination keeps its candidates in a 64-bit mask.
    let mut params = s.params;
    if params.strategy == Strategy::Elimination && nv > 64 {
        let name = &spec.model;
        diag::warn_once(
            &format!("elimination:{name}"),
            &format!("region '{name}': {nv} variants, successive elimination handles at most 64; exploring round-robin"),
        );
        params.strategy = Strategy::RoundRobin;
    }
    (min_train, params)
}

impl Region {
    #[allow(clippy::clone_on_copy)] // ModelChoice may grow parameters that are not Copy
    pub(super) fn build(spec: RegionDescriptor, s: &RegionSettings, args: CallArgs) -> Region {
        clock::init();
        let nv = spec.variants.len();
        let name = spec.model.clone();
        let (min_train, params) = training_params(&spec, s);
        let mode = Mode { coarse: s.coarse, frozen: s.frozen };
        let monitor = s.drift.enabled && !mode.frozen && !mode.coarse;
        let mut r = Region {
            args,
            entry_policy: false,
            held: None,
            memo_ok: false,
            broken: None,
            mode,
            derived_sizes: crate::feature_grid::derived_positions(&spec.features),
            drift_cfg: s.drift,
            monitor: AtomicBool::new(monitor),
            recheck_pending: AtomicBool::new(false),
            trials: AtomicBool::new(false),
            pinned: std::sync::OnceLock::new(),
            teams: std::sync::OnceLock::new(),
            warmup: s.warmup,
            warmed: (0..nv).map(|_| AtomicBool::new(false)).collect(),
            // coarse mode needs every execution's time (a run's total)
            sample: if mode.coarse { 1 } else { s.sample.max(1) },
            learn: s.learn,
            learn_execs: AtomicU64::new(0),
            own_rule: AtomicU64::new(own::UNJUDGED),
            cycling: AtomicBool::new(s.explore_only),
            // Coarse regions decide per run from the start (pins), never by exploring per
            // execution: their epoch starts odd.
            epoch: AtomicU64::new(mode.coarse as u64),
            model: ArcSwapOption::empty(),
            training: AtomicBool::new(false),
            deferred: AtomicBool::new(false),
            unrecorded: AtomicU64::new(0),
            resets: AtomicU32::new(0),
            retrains: AtomicU32::new(0),
            exploration_version: AtomicU64::new(0),
            strategy: std::sync::atomic::AtomicU8::new(params.strategy as u8),
            slack: AtomicI64::new(0),
            shards: Shards::new(nv.max(1)),
            inner: Mutex::new(Inner {
                measurements: MeasurementTable::new(nv, params, fnv1a(&name) ^ s.seed),
                settings: Settings { min_train, choice: s.model.clone(), explore_only: s.explore_only },
                overflow: Default::default(),
                drifts: Vec::new(),
                rechecks: Vec::new(),
                rechecked: Vec::new(),
                controls: Vec::new(),
                own_decides: Default::default(),
                unavailable: Vec::new(),
                need: 0,
            }),
            loaded_samples: AtomicU64::new(0),
            data: crate::dataflow::RegionData::new(nv),
            host_copies: HostCopies::default(),
            declared: declared::Declared::new(&spec),
            off: (0..nv).map(|_| AtomicBool::new(false)).collect(),
            any_off: AtomicBool::new(false),
            saved_data_note: std::sync::OnceLock::new(),
            startup_note: std::sync::OnceLock::new(),
            spec,
        };
        // A region whose code calls other units waits for their summaries; every host region of
        // zero-source-change mode also learns whether some unit's parallel code uses thread-local
        // data (its unit's own is the compiler's business), which keeps every team as it is.
        if !r.spec.depends.is_empty() || r.spec.as_written_in_parallel {
            r.held = crate::summaries::resolve(&r.spec.depends).err();
        }
        r.entry_policy = r.held.is_some() || r.spec.as_written_in_parallel || r.derived_sizes != 0 || r.is_associated();
        r.memo_ok = !r.entry_policy;
        drop(r.lock()); // publishes what training needs to `slack`
        r
    }
}
