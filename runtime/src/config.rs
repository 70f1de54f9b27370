//! Runtime configuration, read once from the environment. Every variable starts with
//! `OMPADAPT_`; [`VARIABLES`] lists them with their defaults and meanings, and
//! docs/environment.md shows that list as its table (runtime/tests/environment_table.rs checks
//! that the two agree and that the list names every variable the runtime reads).
//!
//! Precedence, for every per-region setting: a per-region value in the environment
//! (`mm:5`) > what the directive or descriptor says > the environment's value for all
//! regions > the built-in default ([`Config::region_settings`]). A directive without
//! `model_type` (descriptor `model_type=auto`) says nothing about the model.
//!
//! Booleans accept `1/0`, `true/false`, `yes/no`, `on/off`. A value that cannot be used keeps
//! the default and prints one warning line naming the variable.
//!
//! Every variable is read through [`crate::env::var`]: in secure-execution mode (setuid,
//! setgid, file capabilities) none is, the report and the trace are off, and nothing is loaded or saved unless
//! the program names its store with `ompadapt_set_dir` ([`set_program_dir`]).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::clock;
use crate::diag;
use crate::explore::{Labeling, Params, Strategy, ADAPTIVE};
use crate::model::ModelChoice;

/// One environment variable of a program built with the plugin: what docs/environment.md's
/// table shows in one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variable {
    /// The variable's name (`OMPADAPT_...`).
    pub name: &'static str,
    /// What applies when it is not set, as the table writes it: a value in backticks, or words.
    pub default: &'static str,
    /// What it does (Markdown, one table cell; `|` is written unescaped here).
    pub meaning: &'static str,
}

/// Every variable the runtime reads, and `OMPADAPT_RUNTIME`, which the code the plugin
/// generates reads; in the order docs/environment.md lists them.
pub const VARIABLES: &[Variable] = &[
    Variable {
        name: "OMPADAPT_REPORT",
        default: "`0`",
        meaning: "`1`: at exit, a per-region report on stderr (executions, training samples, timings per feature \
                  vector and variant, the model, the decisions, drift events). `json:<file>`: the same as a JSON \
                  document written (atomically) to `<file>`.",
    },
    Variable {
        name: "OMPADAPT_TRACE",
        default: "unset",
        meaning: "`<file>`: record every region execution (region, variant, features, start and duration, \
                  exploring or decided, thread) and write them at exit, after the report, as Chrome trace-event \
                  JSON to `<file>` (atomically; `%p` in the name: the process id), which Perfetto, \
                  chrome://tracing and `ompadapt trace` read ([timeline.md](timeline.md)).",
    },
    Variable {
        name: "OMPADAPT_TRACE_MAX",
        default: "`1000000`",
        meaning: "Events the trace keeps at most; later executions are counted as dropped (the file and one line \
                  on stderr say how many).",
    },
    Variable {
        name: "OMPADAPT_DIR",
        default: "`./.ompadapt`",
        meaning: "Where learned data goes: `<dir>/<program>-<identity hash>/<region>/` (see `OMPADAPT_PROGRAM`). A \
                  program that names its store with `ompadapt_set_dir` uses that instead.",
    },
    Variable { name: "OMPADAPT_PERSIST", default: "`1`", meaning: "`0`: neither load nor save." },
    Variable {
        name: "OMPADAPT_WARMUP",
        default: "`1`",
        meaning: "The first execution of each variant in a process is recorded as a *cold* measurement, kept \
                  apart: labels use warm measurements where the process can take them and cold ones otherwise (a \
                  program that runs its region once per process learns from those). `0`: every measurement counts \
                  as warm.",
    },
    Variable {
        name: "OMPADAPT_MODEL",
        default: "unset",
        meaning: "Model of every region, or per region: `auto` (the default when the directive names no \
                  `model_type`: chosen by cross-validated regret), \
                  `cost[,additive|linear|loglinear|logquadratic[,piecewise depth]]`, `dtree[,depth]`, \
                  `rfc[,trees[,depth]]`, `logistic`; per region with `;`: `dtree,3;mm:rfc,10,2` (region `mm` gets \
                  a forest, the others a depth-3 tree).",
    },
    Variable {
        name: "OMPADAPT_EXPLORE",
        default: "`roundrobin`",
        meaning: "Exploration strategy: `roundrobin` (Apollo's), `random` (Apollo's), `elimination` (successive \
                  elimination per feature vector: stops measuring variants that are clearly slower). Per region \
                  like `OMPADAPT_MODEL`: `random;mm:elimination`.",
    },
    Variable {
        name: "OMPADAPT_REPEATS",
        default: "`auto`",
        meaning: "`auto`: adaptive repetition — one measurement per (feature vector, variant) pair, more where the \
                  label is in doubt (the two fastest within the measured noise, a winner whose measurements \
                  disagree, a label the neighbouring vectors contradict), within half a pass of extra \
                  measurements; a pair counts as a training sample from its first measurement (Apollo's and the \
                  paper's count). `N`: every pair measured N times before it counts; labels take the median (or \
                  vote) over them. Per region: `3;mm:5`.",
    },
    Variable {
        name: "OMPADAPT_LABEL",
        default: "`median`",
        meaning: "How repeated measurements make a label: `median` (the fastest robust time: each variant's \
                  lower quartile, which one-sided noise such as preemption does not move) or `vote` (fastest \
                  variant in each batch of measurements, majority over batches; Liao et al.).",
    },
    Variable {
        name: "OMPADAPT_MIN_TRAIN",
        default: "unset",
        meaning: "Training samples needed (`min_train_data`): a value for all regions applies where the directive \
                  gives none; a per-region value (`20;mm:8`) overrides the directive.",
    },
    Variable {
        name: "OMPADAPT_ELIMINATION_MARGIN",
        default: "`0.05`",
        meaning: "Successive elimination drops variant u when even its fastest measurement is this fraction slower \
                  than the best variant's (robust) slowest one.",
    },
    Variable { name: "OMPADAPT_SEED", default: "`0`", meaning: "Seed of the `random` strategy (mixed with the region name)." },
    Variable {
        name: "OMPADAPT_COARSE",
        default: "`0`",
        meaning: "`1`: Liao et al.'s coarse-grained mode: one variant per feature vector for a whole program run, \
                  learned across runs from the region's total time (needs persistence). Per region: `0;mm:1`.",
    },
    Variable {
        name: "OMPADAPT_EXPLORE_ONLY",
        default: "`0`",
        meaning: "`1`: never train automatically, keep exploring (data-collection runs).",
    },
    Variable {
        name: "OMPADAPT_VARIANT",
        default: "unset",
        meaning: "Always run this variant (by name), never explore or train: the static comparators of an \
                  evaluation (Static CPU, Static GPU). Per region: `gpu;heat:cpu`. A variant name the region does \
                  not have is reported once and the region learns as usual; a region name no region of the run has \
                  (`sxpy:gpu` for `saxpy`) is reported at exit with the closest name (`did you mean 'saxpy'?`), and a \
                  process with the runtime loaded that ran no adaptive region says at exit that the pin pinned \
                  nothing. A pinned region's report says `mode: pinned to 'gpu' (OMPADAPT_VARIANT)`.",
    },
    Variable {
        name: "OMPADAPT_FROZEN",
        default: "`0`",
        meaning: "`1`: production: use the stored model as it is; never explore, retrain or check for drift (a \
                  region without a stored model of its current variants runs its first variant, and one line says \
                  why).",
    },
    Variable {
        name: "OMPADAPT_LEARN",
        default: "`0.5`",
        meaning: "After training, feature vectors the model was not trained on that recur (seen before in this run \
                  or an earlier one) are explored and the model retrains, while such exploring executions stay \
                  below this fraction of the run's executions plus one pass over the variants; `0`: the model \
                  decides them.",
    },
    Variable {
        name: "OMPADAPT_SAMPLE",
        default: "`16`",
        meaning: "After training, one execution in this many is timed (per thread), for drift detection and the \
                  report; the others only count. `1`: time every execution. Coarse mode times every execution.",
    },
    Variable { name: "OMPADAPT_DRIFT", default: "`1`", meaning: "`0`: no drift detection after training." },
    Variable {
        name: "OMPADAPT_DRIFT_FACTOR",
        default: "`2.0`",
        meaning: "A timed execution of a measured (feature vector, variant) pair drifts when it takes more than \
                  this many times the pair's measured time (Artemis uses 2×)…",
    },
    Variable {
        name: "OMPADAPT_DRIFT_MIN_NS",
        default: "`1000`",
        meaning: "…and at least this many ns more (regions of a few hundred ns jitter by 2× on their own).",
    },
    Variable {
        name: "OMPADAPT_DRIFT_WINDOW",
        default: "`16`",
        meaning: "Timed executions of one pair (per thread) over which drift is judged. Vectors the model was \
                  never measured on are not judged.",
    },
    Variable {
        name: "OMPADAPT_DRIFT_FRACTION",
        default: "`0.5`",
        meaning: "Two windows in a row with more than this fraction of drifting executions re-measure that feature \
                  vector's variants (a slowdown confined to one window is a transient, such as a process's start); \
                  the new measurements supersede the old ones for that vector, and the model retrains only if its \
                  label changed.",
    },
    Variable {
        name: "OMPADAPT_DRIFT_MAX",
        default: "`8`",
        meaning: "Re-measured vectors per region and run; past it the region keeps its model and stops checking (a \
                  region whose times never settle).",
    },
    Variable {
        name: "OMPADAPT_RECHECK",
        default: "`1`",
        meaning: "`0`: no rechecks. A label whose trained executions in earlier runs ran, on average over 8 or \
                  more timed ones, 1.5 times faster than the time it was chosen on (and `OMPADAPT_DRIFT_MIN_NS` \
                  faster) was measured in a transient (a process's first executions): the run measures that \
                  vector's variants again once one of its timed executions shows the steady rate. Once per pair: \
                  pairs measured afresh already are not rechecked.",
    },
    Variable {
        name: "OMPADAPT_CONTROL",
        default: "`1`",
        meaning: "`0`: no control runs. A measured vector whose label is not the program's own variant (`gpu`, \
                  `threads=1`) and has 8 or more timed trained executions stored, 100 µs or longer on average, runs the own variant for one \
                  whole run (its trial: stock's behaviour); from then on the own variant runs unless the label's \
                  stored mean is more than 2 % faster than the own variant's.",
    },
    Variable {
        name: "OMPADAPT_WHOLE_RUN",
        default: "`1`",
        meaning: "`0`: no whole-run trials. Once every region of a run is trained, the runs of one command \
                  line (and OpenMP settings) alternate between the trained labels and the program's own variant \
                  in every region (stock's behaviour): two labelled runs, then both sides until each has three \
                  runs that explored nothing. The labels stay only if the median of their last five runs is more \
                  than 2 % faster than the own runs'; else the own variant runs. After nine runs of one side, one \
                  run of the other re-tests the verdict. Off in frozen runs and with `OMPADAPT_VARIANT`.",
    },
    Variable {
        name: "OMPADAPT_COMPACT_AFTER",
        default: "`16`",
        meaning: "Per-process data files of a region that trigger merging them into one (under a file lock).",
    },
    Variable {
        name: "OMPADAPT_PROGRAM",
        default: "the executable's path",
        meaning: "The program's identity in the store: its data goes to `<dir>/<name>-<hash>/`, where `<hash>` \
                  hashes this value (default: the executable's canonical path, so two programs called `main` never \
                  share data and a rebuilt program keeps what it learned). Set it to share a store between copies \
                  of one program at different paths.",
    },
    Variable {
        name: "OMPADAPT_CLOCK",
        default: "`auto`",
        meaning: "`monotonic`: time with CLOCK_MONOTONIC even where the invariant TSC is available.",
    },
    Variable {
        name: "OMPADAPT_RUNTIME",
        default: "unset",
        meaning: "Read by the code the plugin generates, not by the runtime library: the path of the runtime \
                  library to load (ignored in secure-execution mode).",
    },
];

/// A setting with a process-wide default and per-region values (`value;region:value;...`).
#[derive(Clone, Debug, PartialEq)]
pub struct PerRegion<T> {
    /// The value for regions not listed (None: the built-in default).
    pub default: Option<T>,
    /// `(region, value)` pairs.
    pub regions: Vec<(String, T)>,
}

impl<T> Default for PerRegion<T> {
    fn default() -> Self {
        PerRegion { default: None, regions: Vec::new() }
    }
}

impl<T: Clone> PerRegion<T> {
    /// A process-wide value.
    pub fn all(v: T) -> Self {
        PerRegion { default: Some(v), regions: Vec::new() }
    }

    /// The value for region `model`.
    pub fn get(&self, model: &str) -> Option<T> {
        self.for_region(model).or_else(|| self.default.clone())
    }

    /// The value given for region `model` by name (not the value for all regions); for a
    /// template instantiation's region (`f<float>@a.cpp:9`), also the value given for its
    /// template (`f@a.cpp:9`), which applies to every instantiation.
    pub fn for_region(&self, model: &str) -> Option<T> {
        let by = |name: &str| self.regions.iter().rev().find(|(m, _)| m == name).map(|(_, v)| v.clone());
        by(model).or_else(|| ompadapt_abi::descriptor::template_of(model).and_then(|t| by(&t)))
    }

    /// Precedence: this region's own value > `directive` > the value for all regions.
    pub fn resolve(&self, model: &str, directive: Option<T>) -> Option<T> {
        self.for_region(model).or(directive).or_else(|| self.default.clone())
    }

    /// Parses `value;region:value;...` with `parse` for each value.
    pub fn parse(text: &str, parse: impl Fn(&str) -> Result<T, String>) -> Result<Self, String> {
        let mut out = PerRegion::default();
        for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            // `region:value`; a value never contains ':', a region name may (the names of
            // zero-source-change mode are `function@file:line`, C++ ones `ns::f@file:line`).
            match item.rsplit_once(':') {
                Some((region, value)) if !region.trim().is_empty() => {
                    out.regions.push((region.trim().to_owned(), parse(value.trim())?));
                }
                _ => out.default = Some(parse(item)?),
            }
        }
        Ok(out)
    }
}

/// Where the exit report goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Report {
    /// No report.
    Off,
    /// Text on stderr.
    Stderr,
    /// JSON document in a file.
    Json(PathBuf),
}

/// Drift detection settings (see `drift`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DriftConfig {
    /// Whether trained executions are checked for drift (`OMPADAPT_DRIFT`).
    pub enabled: bool,
    /// An execution is slow above this multiple of its pair's measured time (and `min_ns`
    /// above it) (`OMPADAPT_DRIFT_FACTOR`).
    pub factor: f64,
    /// A slow execution is also at least this many ns above the measured time
    /// (`OMPADAPT_DRIFT_MIN_NS`).
    pub min_ns: f64,
    /// Timed executions of one pair (per thread) judged together (`OMPADAPT_DRIFT_WINDOW`).
    pub window: u32,
    /// A window drifts when more than this fraction of it is slow (`OMPADAPT_DRIFT_FRACTION`).
    pub fraction: f64,
    /// Re-measured vectors per region and run before checking stops (`OMPADAPT_DRIFT_MAX`).
    pub max_resets: u32,
    /// Whether labels their trained executions contradict are measured again (`OMPADAPT_RECHECK`,
    /// see `recheck`).
    pub recheck: bool,
    /// Whether labels other than the program's own variant are checked against it in control
    /// runs (`OMPADAPT_CONTROL`, see `control`).
    pub control: bool,
    /// Whether trained labels are checked against whole runs of the program's own variant
    /// (`OMPADAPT_WHOLE_RUN`, see `whole_run`).
    pub whole_run: bool,
}

impl Default for DriftConfig {
    fn default() -> Self {
        DriftConfig {
            enabled: true,
            factor: 2.0,
            min_ns: 1000.0,
            window: 16,
            fraction: 0.5,
            max_resets: 8,
            recheck: true,
            control: true,
            whole_run: true,
        }
    }
}

/// What a region's directive (its descriptor and call site) asks for; `None`: nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Directive {
    /// `min_train_data`.
    pub min_train: Option<usize>,
    /// `model_type` and its parameters, when given (see the module documentation).
    pub model: Option<ModelChoice>,
    /// Descriptor field `explore=`.
    pub explore: Option<Strategy>,
    /// Descriptor field `repeats=`.
    pub repeats: Option<u32>,
    /// Descriptor field `coarse=`.
    pub coarse: Option<bool>,
}

/// Everything a region is created with, resolved (see [`Config::region_settings`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RegionSettings {
    /// Training samples needed (`None`: as many as the region has variants).
    pub min_train: Option<usize>,
    /// The model to train (the directive's, the environment's, or [`default_model`]).
    pub model: ModelChoice,
    /// Exploration strategy, repetition, labeling and elimination margin.
    pub params: Params,
    /// Coarse-grained mode: one variant per feature vector for a whole run.
    pub coarse: bool,
    /// Use the stored model as it is: never explore, retrain or check for drift.
    pub frozen: bool,
    /// Never train automatically; keep exploring.
    pub explore_only: bool,
    /// Keep each variant's first execution in the process apart as a cold measurement.
    pub warmup: bool,
    /// Drift detection after training.
    pub drift: DriftConfig,
    /// Share of a run's executions that may explore unseen feature vectors after training.
    pub learn: f64,
    /// One trained execution in this many is timed.
    pub sample: u32,
    /// Seed of the `random` strategy (mixed with the region name).
    pub seed: u64,
}

impl Default for RegionSettings {
    /// The built-in defaults (no environment).
    fn default() -> Self {
        RegionSettings {
            min_train: None,
            model: default_model(),
            params: Params::default(),
            coarse: false,
            frozen: false,
            explore_only: false,
            warmup: true,
            drift: DriftConfig::default(),
            learn: DEFAULT_LEARN,
            sample: DEFAULT_SAMPLE,
            seed: 0,
        }
    }
}

/// The model of a region whose directive names none: chosen by cross-validated regret.
pub fn default_model() -> ModelChoice {
    ModelChoice::resolve(crate::spec::ModelType::Auto, [-1, -1])
}

/// What a directive's model type says: nothing when it is `auto`, what the plugin writes for a
/// directive without `model_type`.
pub fn directive_model(kind: crate::spec::ModelType, params: [i64; 2]) -> Option<ModelChoice> {
    (kind != crate::spec::ModelType::Auto).then(|| ModelChoice::resolve(kind, params))
}

/// Default of `OMPADAPT_LEARN`.
pub const DEFAULT_LEARN: f64 = 0.5;
/// Default of `OMPADAPT_SAMPLE`.
pub const DEFAULT_SAMPLE: u32 = 16;

/// The runtime configuration. See the module documentation for the variables.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// `OMPADAPT_REPORT`: where the exit report goes.
    pub report: Report,
    /// `OMPADAPT_PERSIST`: whether learned data is loaded and saved.
    pub persist: bool,
    /// `OMPADAPT_DIR` (or the program's `ompadapt_set_dir`): the store's root directory.
    pub dir: PathBuf,
    /// `OMPADAPT_WARMUP`: keep each variant's first execution in a process apart as cold.
    pub warmup: bool,
    /// `OMPADAPT_MODEL`: the model, for all regions or per region.
    pub model_override: PerRegion<ModelChoice>,
    /// `OMPADAPT_EXPLORE`: the exploration strategy.
    pub explore: PerRegion<Strategy>,
    /// `OMPADAPT_REPEATS`: measurements per pair ([`ADAPTIVE`]: adaptive).
    pub repeats: PerRegion<u32>,
    /// `OMPADAPT_LABEL`: how repeated measurements make a label.
    pub labeling: Labeling,
    /// `OMPADAPT_MIN_TRAIN`: training samples needed.
    pub min_train: PerRegion<usize>,
    /// `OMPADAPT_ELIMINATION_MARGIN`: how much slower (a fraction) a variant must be to be
    /// eliminated.
    pub elimination_margin: f64,
    /// `OMPADAPT_SEED`: seed of the `random` strategy.
    pub seed: u64,
    /// `OMPADAPT_COARSE`: coarse-grained mode.
    pub coarse: PerRegion<bool>,
    /// `OMPADAPT_VARIANT`: a variant (by name) some regions always run.
    pub variant: PerRegion<String>,
    /// `OMPADAPT_EXPLORE_ONLY`: never train automatically.
    pub explore_only: bool,
    /// `OMPADAPT_FROZEN`: use the stored model as it is.
    pub frozen: bool,
    /// `OMPADAPT_DRIFT*`: drift detection.
    pub drift: DriftConfig,
    /// `OMPADAPT_COMPACT_AFTER`: per-process data files of a region that trigger merging them.
    pub compact_after: usize,
    /// `OMPADAPT_CLOCK`: the timer to use.
    pub clock: clock::Preference,
    /// `OMPADAPT_LEARN`: share of executions that may explore unseen vectors after training.
    pub learn: f64,
    /// `OMPADAPT_SAMPLE`: one trained execution in this many is timed.
    pub sample: u32,
    /// `OMPADAPT_TRACE`: where the timeline of region executions goes (None: not recorded).
    pub trace: Option<PathBuf>,
    /// `OMPADAPT_TRACE_MAX`: events the timeline keeps at most.
    pub trace_max: u64,
    /// Name of the program (the executable's file name), for reports and store paths.
    pub program: String,
    /// What identifies the program in the store (`OMPADAPT_PROGRAM`, else the executable's
    /// canonical path; see [`crate::store`]).
    pub program_id: String,
}

/// Default of `OMPADAPT_REPEATS`: adaptive.
pub const DEFAULT_REPEATS: u32 = ADAPTIVE;

impl Default for Config {
    fn default() -> Self {
        Config {
            report: Report::Off,
            persist: true,
            dir: PathBuf::from(".ompadapt"),
            warmup: true,
            model_override: PerRegion::default(),
            explore: PerRegion::default(),
            repeats: PerRegion::default(),
            labeling: Labeling::Median,
            min_train: PerRegion::default(),
            elimination_margin: 0.05,
            seed: 0,
            coarse: PerRegion::default(),
            variant: PerRegion::default(),
            explore_only: false,
            frozen: false,
            drift: DriftConfig::default(),
            compact_after: 16,
            clock: clock::Preference::Auto,
            learn: DEFAULT_LEARN,
            sample: DEFAULT_SAMPLE,
            trace: None,
            trace_max: crate::trace::DEFAULT_MAX,
            program: program_name(),
            program_id: program_path(),
        }
    }
}

impl Config {
    /// Reads the configuration from the process environment; in secure-execution mode the
    /// built-in defaults with neither report nor persistence ([`Config::in_memory`]).
    pub fn from_env() -> Config {
        if crate::env::secure_execution() {
            return Config::in_memory();
        }
        Self::from_lookup(crate::env::var)
    }

    /// The defaults, learning in memory only: no report, nothing loaded or saved.
    pub fn in_memory() -> Config {
        Config { report: Report::Off, persist: false, ..Config::default() }
    }

    /// Applies the store directory the program named (`ompadapt_set_dir`): it replaces
    /// `OMPADAPT_DIR`, and in secure-execution mode it is what turns persistence on.
    pub fn with_program_dir(mut self, dir: &Path, secure: bool) -> Config {
        self.dir = dir.to_path_buf();
        if secure {
            self.persist = true;
        }
        self
    }

    /// Reads the configuration through `get` (the environment, or a map in tests).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Config {
        let r = Reader { get: &get };
        let mut c = Config::default();
        if let Some(report) = r.report() {
            c.report = report;
        }
        r.switches(&mut c);
        r.per_region_settings(&mut c);
        r.choices(&mut c);
        r.numbers(&mut c);
        if let Some(d) = r.text("OMPADAPT_DIR") {
            c.dir = PathBuf::from(d);
        }
        if let Some(p) = r.text("OMPADAPT_PROGRAM") {
            c.program_id = p.trim().to_owned();
        }
        c.trace = r.text("OMPADAPT_TRACE").map(|t| PathBuf::from(t.trim()));
        c
    }

    /// The settings of region `name`, whose directive asks for `d`. For each: this region's
    /// value in the environment > the directive > the environment's value for all regions >
    /// the built-in default.
    #[allow(clippy::clone_on_copy)] // ModelChoice may grow parameters that are not Copy
    pub fn region_settings(&self, name: &str, d: &Directive) -> RegionSettings {
        let model = self.model_override.resolve(name, d.model.clone()).unwrap_or_else(default_model);
        let params = Params {
            strategy: self.explore.resolve(name, d.explore).unwrap_or(Strategy::RoundRobin),
            repeats: self.repeats.resolve(name, d.repeats).unwrap_or(DEFAULT_REPEATS),
            labeling: self.labeling,
            margin: self.elimination_margin,
        };
        RegionSettings {
            min_train: self.min_train.resolve(name, d.min_train),
            model,
            params,
            coarse: self.coarse.resolve(name, d.coarse).unwrap_or(false),
            frozen: self.frozen,
            explore_only: self.explore_only,
            warmup: self.warmup,
            drift: self.drift,
            learn: self.learn,
            sample: self.sample,
            seed: self.seed,
        }
    }

    /// The exploration strategy of region `model`.
    pub fn strategy_for(&self, model: &str) -> Strategy {
        self.explore.get(model).unwrap_or(Strategy::RoundRobin)
    }

    /// `OMPADAPT_REPEATS` for region `model` ([`ADAPTIVE`]: adaptive).
    pub fn repeats_for(&self, model: &str) -> u32 {
        self.repeats.get(model).unwrap_or(DEFAULT_REPEATS)
    }
}

/// The store directory the program named, and whether the configuration was already read.
struct ProgramDir {
    read: bool,
    dir: Option<PathBuf>,
}

static PROGRAM_DIR: Mutex<ProgramDir> = Mutex::new(ProgramDir { read: false, dir: None });

/// `ompadapt_set_dir`: the program names the directory its learned data is loaded from and
/// saved to. Only before the runtime's first use (the first adaptive region, Apollo region or
/// ompadapt call): regions load their data when they are created. In secure-execution mode the
/// path must be absolute (a relative one would follow the invoking user's working directory).
pub fn set_program_dir(dir: &Path) -> Result<(), String> {
    let mut p = PROGRAM_DIR.lock().unwrap_or_else(|e| e.into_inner());
    if p.read {
        return Err("called after the runtime started (the first adaptive region or ompadapt call); \
                    call it first in main: the store stays where it was"
            .into());
    }
    if dir.as_os_str().is_empty() {
        return Err("empty directory name".into());
    }
    if crate::env::secure_execution() && !dir.is_absolute() {
        return Err(format!(
            "'{}' is relative, and in secure-execution mode (setuid, setgid or file capabilities) \
             the store must be an absolute path; nothing will be saved",
            dir.display()
        ));
    }
    p.dir = Some(dir.to_path_buf());
    Ok(())
}

/// The process configuration, read from the environment on first use (with the program's
/// store directory, if it named one). In secure-execution mode it says once on stderr which
/// variables it ignored.
pub fn config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(|| {
        let mut p = PROGRAM_DIR.lock().unwrap_or_else(|e| e.into_inner());
        p.read = true;
        let secure = crate::env::secure_execution();
        let mut c = Config::from_env();
        if let Some(d) = &p.dir {
            c = c.with_program_dir(d, secure);
        }
        crate::env::announce_ignored(p.dir.as_deref());
        c
    })
}

/// Reads `OMPADAPT_` variables through a lookup; a value that cannot be used keeps the default
/// and prints one line naming the variable.
struct Reader<'a> {
    get: &'a dyn Fn(&str) -> Option<String>,
}

impl Reader<'_> {
    /// The variable's value, unless unset or blank.
    fn text(&self, name: &str) -> Option<String> {
        (self.get)(name).filter(|v| !v.trim().is_empty())
    }

    fn bad(&self, name: &str, v: &str, e: &str) {
        diag::warn(&format!("{name}='{v}' ignored: {e}"));
    }

    fn bool(&self, name: &str, default: bool) -> bool {
        bool_var(&|n: &str| self.text(n), name, default)
    }

    /// `OMPADAPT_REPORT`: `0`, `1` or `json:<file>`.
    fn report(&self) -> Option<Report> {
        let v = self.text("OMPADAPT_REPORT")?;
        Some(match v.trim().strip_prefix("json:") {
            Some(f) if !f.trim().is_empty() => Report::Json(PathBuf::from(f.trim())),
            _ => match parse_bool(&v) {
                Ok(true) => Report::Stderr,
                Ok(false) => Report::Off,
                Err(_) => {
                    self.bad("OMPADAPT_REPORT", &v, "expected 0, 1 or json:<file>");
                    Report::Off
                }
            },
        })
    }

    fn switches(&self, c: &mut Config) {
        c.persist = self.bool("OMPADAPT_PERSIST", c.persist);
        c.warmup = self.bool("OMPADAPT_WARMUP", c.warmup);
        c.explore_only = self.bool("OMPADAPT_EXPLORE_ONLY", c.explore_only);
        c.frozen = self.bool("OMPADAPT_FROZEN", c.frozen);
        c.drift.enabled = self.bool("OMPADAPT_DRIFT", c.drift.enabled);
        c.drift.recheck = self.bool("OMPADAPT_RECHECK", c.drift.recheck);
        c.drift.control = self.bool("OMPADAPT_CONTROL", c.drift.control);
        c.drift.whole_run = self.bool("OMPADAPT_WHOLE_RUN", c.drift.whole_run);
    }

    /// A per-region value (`all;region:value`), when set and valid.
    fn per_region<T: Clone>(&self, name: &str, parse: impl Fn(&str) -> Result<T, String>) -> Option<PerRegion<T>> {
        let v = self.text(name)?;
        match PerRegion::parse(&v, parse) {
            Ok(p) => Some(p),
            Err(e) => {
                self.bad(name, &v, &e);
                None
            }
        }
    }

    fn per_region_settings(&self, c: &mut Config) {
        if let Some(p) = self.per_region("OMPADAPT_MODEL", ModelChoice::parse_override) {
            c.model_override = p;
        }
        if let Some(p) = self.per_region("OMPADAPT_EXPLORE", Strategy::parse) {
            c.explore = p;
        }
        if let Some(p) = self.per_region("OMPADAPT_REPEATS", parse_repeats) {
            c.repeats = p;
        }
        if let Some(p) = self.per_region("OMPADAPT_MIN_TRAIN", |s| parse_num::<usize>(s).and_then(|n| positive(n as f64).map(|_| n))) {
            c.min_train = p;
        }
        if let Some(p) = self.per_region("OMPADAPT_COARSE", parse_bool) {
            c.coarse = p;
        }
        let variant = |s: &str| if s.is_empty() { Err("empty variant name".to_owned()) } else { Ok(s.to_owned()) };
        if let Some(p) = self.per_region("OMPADAPT_VARIANT", variant) {
            c.variant = p;
        }
    }

    fn choices(&self, c: &mut Config) {
        if let Some(v) = self.text("OMPADAPT_LABEL") {
            match Labeling::parse(&v) {
                Ok(l) => c.labeling = l,
                Err(e) => self.bad("OMPADAPT_LABEL", &v, &e),
            }
        }
        if let Some(v) = self.text("OMPADAPT_CLOCK") {
            match v.trim() {
                "auto" | "tsc" => c.clock = clock::Preference::Auto,
                "monotonic" => c.clock = clock::Preference::Monotonic,
                _ => self.bad("OMPADAPT_CLOCK", &v, "expected auto or monotonic"),
            }
        }
    }

    fn real(&self, name: &str, slot: &mut f64, check: fn(f64) -> Result<f64, String>) {
        if let Some(v) = self.text(name) {
            match parse_num::<f64>(&v).and_then(check) {
                Ok(x) => *slot = x,
                Err(e) => self.bad(name, &v, &e),
            }
        }
    }

    fn integer<T: TryFrom<u64> + Into<u64> + Copy>(&self, name: &str, slot: &mut T, min: u64, max: u64) {
        if let Some(v) = self.text(name) {
            match parse_num::<u64>(&v) {
                Ok(x) if (min..=max).contains(&x) => *slot = T::try_from(x).unwrap_or(*slot),
                Ok(_) => self.bad(name, &v, &format!("must be between {min} and {max}")),
                Err(e) => self.bad(name, &v, &format!("{e} (an integer)")),
            }
        }
    }

    fn numbers(&self, c: &mut Config) {
        self.real("OMPADAPT_ELIMINATION_MARGIN", &mut c.elimination_margin, non_negative);
        self.real("OMPADAPT_DRIFT_FACTOR", &mut c.drift.factor, |x| if x > 1.0 { Ok(x) } else { Err("must be > 1".into()) });
        self.real("OMPADAPT_DRIFT_MIN_NS", &mut c.drift.min_ns, non_negative);
        self.real("OMPADAPT_DRIFT_FRACTION", &mut c.drift.fraction, |x| {
            if (0.0..1.0).contains(&x) {
                Ok(x)
            } else {
                Err("must be in [0, 1)".into())
            }
        });
        self.real("OMPADAPT_LEARN", &mut c.learn, |x| if (0.0..=1.0).contains(&x) { Ok(x) } else { Err("must be in [0, 1]".into()) });
        self.integer("OMPADAPT_DRIFT_WINDOW", &mut c.drift.window, 1, 1 << 20);
        self.integer("OMPADAPT_DRIFT_MAX", &mut c.drift.max_resets, 0, 1 << 20);
        let mut compact = c.compact_after as u64;
        self.integer("OMPADAPT_COMPACT_AFTER", &mut compact, 1, 1 << 20);
        c.compact_after = compact as usize;
        self.integer("OMPADAPT_SAMPLE", &mut c.sample, 1, 1 << 20);
        self.integer("OMPADAPT_SEED", &mut c.seed, 0, u64::MAX);
        self.integer("OMPADAPT_TRACE_MAX", &mut c.trace_max, 0, 1 << 32);
    }
}

fn parse_bool(v: &str) -> Result<bool, String> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err("not a boolean (use 1 or 0)".into()),
    }
}

/// `auto` or a number of repeats (1–255).
fn parse_repeats(s: &str) -> Result<u32, String> {
    if s.trim().eq_ignore_ascii_case("auto") {
        return Ok(ADAPTIVE);
    }
    match parse_num::<u32>(s) {
        Ok(n) if n >= 1 => Ok(n.min(255)),
        _ => Err("expected auto or a positive integer".into()),
    }
}

fn parse_num<T: std::str::FromStr>(v: &str) -> Result<T, String> {
    v.trim().parse::<T>().map_err(|_| "not a number".to_owned())
}

fn positive(x: f64) -> Result<f64, String> {
    if x > 0.0 && x.is_finite() {
        Ok(x)
    } else {
        Err("must be positive".into())
    }
}

fn non_negative(x: f64) -> Result<f64, String> {
    if x >= 0.0 && x.is_finite() {
        Ok(x)
    } else {
        Err("must be ≥ 0".into())
    }
}

fn bool_var(var: &impl Fn(&str) -> Option<String>, name: &str, default: bool) -> bool {
    let Some(v) = var(name) else { return default };
    parse_bool(&v).unwrap_or_else(|e| {
        diag::warn(&format!("{name}='{v}' ignored: {e}; using {}", default as u8));
        default
    })
}

/// The executable's canonical path (`/proc/self/exe`), or `argv[0]`, or the program name.
pub fn program_path() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok().or(Some(p)))
        .map(|p| p.to_string_lossy().into_owned())
        .or_else(|| std::env::args_os().next().map(|a| a.to_string_lossy().into_owned()))
        .filter(|p| !p.is_empty())
        .unwrap_or_else(program_name)
}

/// The executable's file name (`/proc/self/exe`), or `argv[0]`'s, or `unknown-program`.
pub fn program_name() -> String {
    let from_path = |p: PathBuf| p.file_name().map(|n| n.to_string_lossy().into_owned());
    std::env::current_exe()
        .ok()
        .and_then(from_path)
        .or_else(|| std::env::args_os().next().map(PathBuf::from).and_then(from_path))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "unknown-program".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn cfg(vars: &[(&str, &str)]) -> Config {
        let m: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(|k| m.get(k).cloned())
    }

    /// Zero-source-change mode names regions `function@file:line` (C++: `ns::f@file:line`):
    /// a per-region value splits at the last ':'.
    #[test]
    fn per_region_values_for_generated_names() {
        let p = PerRegion::parse("gpu;step@/a/b.c:24:cpu;ns::Field::smooth@x.cpp:48:cpu", |s| Ok::<_, String>(s.to_owned())).unwrap();
        assert_eq!(p.default.as_deref(), Some("gpu"));
        assert_eq!(p.for_region("step@/a/b.c:24").as_deref(), Some("cpu"));
        assert_eq!(p.for_region("ns::Field::smooth@x.cpp:48").as_deref(), Some("cpu"));
        assert_eq!(p.for_region("step@/a/b.c:25"), None);
        // a template's pin applies to each instantiation; an instantiation's own comes first
        let p = PerRegion::parse("sum@a.cpp:9:serial;sum<double>@a.cpp:9:threads=1", |s| Ok::<_, String>(s.to_owned())).unwrap();
        assert_eq!(p.for_region("sum<float>@a.cpp:9").as_deref(), Some("serial"));
        assert_eq!(p.for_region("sum<double>@a.cpp:9").as_deref(), Some("threads=1"));
    }

    #[test]
    fn defaults() {
        let c = cfg(&[]);
        assert!(c.report == Report::Off && c.persist && c.warmup && !c.frozen && !c.explore_only);
        assert_eq!((c.trace.as_deref(), c.trace_max), (None, crate::trace::DEFAULT_MAX));
        assert_eq!(c.dir, PathBuf::from(".ompadapt"));
        assert_eq!(c.model_override.get("x"), None);
        assert_eq!(c.strategy_for("x"), Strategy::RoundRobin);
        assert_eq!(c.repeats_for("x"), DEFAULT_REPEATS);
        assert_eq!(c.drift, DriftConfig::default());
        assert!(!c.program.is_empty());
    }

    #[test]
    fn values() {
        let c = cfg(&[
            ("OMPADAPT_REPORT", "json:/tmp/r.json"),
            ("OMPADAPT_PERSIST", "off"),
            ("OMPADAPT_WARMUP", "0"),
            ("OMPADAPT_DIR", "/tmp/x"),
            ("OMPADAPT_MODEL", "rfc,5,3"),
            ("OMPADAPT_EXPLORE", "random;mm:elimination"),
            ("OMPADAPT_REPEATS", "3;mm:5"),
            ("OMPADAPT_COARSE", "0;big:1"),
            ("OMPADAPT_FROZEN", "yes"),
            ("OMPADAPT_DRIFT_FACTOR", "3"),
            ("OMPADAPT_DRIFT_WINDOW", "8"),
            ("OMPADAPT_LABEL", "vote"),
            ("OMPADAPT_MIN_TRAIN", "mm:7"),
            ("OMPADAPT_VARIANT", "gpu;heat:cpu"),
            ("OMPADAPT_TRACE", "/tmp/t.json"),
            ("OMPADAPT_TRACE_MAX", "500"),
        ]);
        assert_eq!((c.trace.as_deref(), c.trace_max), (Some(Path::new("/tmp/t.json")), 500));
        assert_eq!(c.report, Report::Json(PathBuf::from("/tmp/r.json")));
        assert!(!c.persist && !c.warmup && c.frozen);
        assert_eq!(c.dir, PathBuf::from("/tmp/x"));
        assert_eq!(c.model_override.get("any"), Some(ModelChoice::Forest { trees: 5, max_depth: 3 }));
        assert_eq!(c.strategy_for("other"), Strategy::Random);
        assert_eq!(c.strategy_for("mm"), Strategy::Elimination);
        assert_eq!((c.repeats_for("other"), c.repeats_for("mm")), (3, 5));
        assert_eq!((c.coarse.get("big"), c.coarse.get("small")), (Some(true), Some(false)));
        assert_eq!((c.drift.factor, c.drift.window), (3.0, 8));
        assert_eq!(c.labeling, Labeling::Vote);
        assert_eq!((c.min_train.get("mm"), c.min_train.get("x")), (Some(7), None));
        assert_eq!((c.variant.get("heat").as_deref(), c.variant.get("x").as_deref()), (Some("cpu"), Some("gpu")));
        let c = cfg(&[("OMPADAPT_MODEL", "dtree,3;mm:rfc,10,2"), ("OMPADAPT_REPORT", "1")]);
        assert_eq!(c.model_override.get("x"), Some(ModelChoice::Tree { max_depth: 3 }));
        assert_eq!(c.model_override.get("mm"), Some(ModelChoice::Forest { trees: 10, max_depth: 2 }));
        assert_eq!(c.report, Report::Stderr);
    }

    #[test]
    fn in_memory_and_the_program_s_store() {
        let c = Config::in_memory();
        assert!(c.report == Report::Off && !c.persist && c.trace.is_none());
        // in secure-execution mode the program's store turns persistence on...
        let s = Config::in_memory().with_program_dir(Path::new("/var/lib/app"), true);
        assert!(s.persist && s.dir == Path::new("/var/lib/app") && s.report == Report::Off);
        // ...otherwise it only replaces OMPADAPT_DIR (OMPADAPT_PERSIST=0 still wins)
        let n = cfg(&[("OMPADAPT_PERSIST", "0"), ("OMPADAPT_DIR", "/tmp/x")]).with_program_dir(Path::new("/data"), false);
        assert!(!n.persist && n.dir == Path::new("/data"));
    }

    #[test]
    fn bad_values_keep_defaults() {
        let c = cfg(&[
            ("OMPADAPT_MODEL", "svm"),
            ("OMPADAPT_REPORT", "maybe"),
            ("OMPADAPT_EXPLORE", "greedy"),
            ("OMPADAPT_REPEATS", "0"),
            ("OMPADAPT_DRIFT_FACTOR", "0.5"),
            ("OMPADAPT_DRIFT_FRACTION", "x"),
        ]);
        assert_eq!(c.model_override.get("x"), None);
        assert_eq!(c.report, Report::Off);
        assert_eq!(c.strategy_for("x"), Strategy::RoundRobin);
        assert_eq!(c.repeats_for("x"), DEFAULT_REPEATS);
        assert_eq!(c.drift, DriftConfig::default());
    }
}
