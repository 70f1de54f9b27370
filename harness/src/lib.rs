//! `ompadapt_harness`: the evaluation harness behind `ompadapt bench`: Georgakoudis et al.'s
//! evaluation (section 4) on the kernels of
//! `benchmarks/kernels/`, each built once per use-case of its Table 3 row (CPU/GPU, GPU threads,
//! co-scheduling; see `kernels::UseCase`).
//!
//! Per kernel and input, every run is a real run of the kernel compiled with clang + the
//! plugin, its result checked by the kernel itself, and long enough to be measured: each input
//! runs the steps the calibration found for this machine (`calibrate`; a run's measured part
//! reaches 20 ms with the fastest variant). The host use-case (`serial`, `threads[0.5:1:0.5]`,
//! `schedule(dynamic, 16)` on host `parallel for` kernels; baseline the program as written)
//! sits beside Table 3's.
//! - **Static per variant** (Static CPU / Static GPU, Static thread_limit=64 ..., Static
//!   coschedule=0 ...; the baseline is Static GPU, Static thread_limit=256 or Static
//!   coschedule=1): `OMPADAPT_VARIANT` pins every region to one variant; for kernels with
//!   several regions every combination is measured too (the oracle and the K-fold models may
//!   mix). Inputs whose two fastest configurations are close get more runs (`measure::Doubt`).
//! - **Static Best**: the one uniform variant with the best geometric-mean time over the inputs.
//! - **Oracle**: per input the fastest measured combination.
//! - **Online**: a run that starts with nothing stored, explores, trains and decides within
//!   the run (`OMPADAPT_EXPLORE`: each strategy asked for; its cost is the exploration cost).
//! - **Adaptive-100**: data-collection runs over every input (`OMPADAPT_EXPLORE_ONLY=1` into one
//!   store), a model trained offline on all of it (by the caller's [`OfflineTrainer`]: the
//!   `ompadapt` command passes `ompadapt train`'s code; decision tree of depth 2 by default, as
//!   in the paper), then production runs (`OMPADAPT_FROZEN=1`).
//! - **Adaptive-25/50/75**: Georgakoudis et al.'s K-fold method (K = 4, 10 shuffles;
//!   `ompadapt_evaluate::folds`) on the stored data; each held-out input's time is the
//!   measured time of the combination the fold's model decided (decisions are real model
//!   decisions, their times the static measurements: running 120 folds per input is not needed
//!   to know what a decision costs; Adaptive-100's real runs measure what deciding costs).
//!
//! Speedups are over the use-case's baseline. Whether the runs measured the variants or the
//! machine: every configuration's run-to-run spread and the inputs in doubt (`quality`). Every
//! adaptive run more than 1 % slower than the static run of its choice is explained from its
//! report (`excess`). Results go to [`Options::out`]: `runs.csv` (every run),
//! `comparators.csv`, `decisions.csv`, `configurations.csv`, `excess.csv`, `summary.json`,
//! `summary.md` and the figures (SVG and PNG): speedup per input and comparator, decision
//! distributions (violins), accuracy.
//!
//! A crate of its own because the product uses it: `ompadapt bench` (the `ompadapt-cli` crate)
//! parses its command line into [`Options`] and calls [`run`], so the harness cannot live in
//! `ompadapt-benchmarks`, which holds benchmarks only (the kernels it runs stay there, in
//! `benchmarks/kernels/`, found at run time; they are inputs, not code). Its pictures come from
//! `ompadapt-plot`, which `ompadapt show` uses too without the harness. Offline training, which
//! Adaptive-100 needs, comes from the caller ([`OfflineTrainer`]): the command trains as
//! `ompadapt train` does, so this crate does not depend on the command.

#![deny(missing_docs)]

mod calibrate;
mod excess;
mod figures;
mod kernels;
mod machine;
mod measure;
mod quality;
mod report;
mod run_report;
mod runner;

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use ompadapt_evaluate::Method;
use ompadapt_rt::model::{ModelChoice, TrainingSet};

use calibrate::{Calibration, Probe};
use machine::{load_average, Machine};
use measure::{Doubt, KernelRun, Measurement};

/// What to run and how: the `ompadapt bench` command line, parsed.
#[derive(Clone, Debug)]
pub struct Options {
    /// Kernels to run (empty: all, or the smoke subset with `smoke`).
    pub kernels: Vec<String>,
    /// The CI subset: two kernels on four inputs each, one run per measurement.
    pub smoke: bool,
    /// Inputs for every kernel asked for (empty: the built-in ones).
    pub inputs: Vec<u64>,
    /// Where results and figures go.
    pub out: PathBuf,
    /// The kernels' sources (`None`: benchmarks/kernels of this checkout).
    pub source: Option<PathBuf>,
    /// libompadapt.so (`None`: beside the running executable).
    pub plugin: Option<PathBuf>,
    /// The C compiler.
    pub cc: String,
    /// Offload target (`-fopenmp-targets=`).
    pub targets: String,
    /// Extra compiler flags.
    pub cflags: Vec<String>,
    /// Keep the kernels' mutable state in `target data` too.
    pub resident: bool,
    /// Runs per measured configuration (`None`: 3, 1 with `smoke`).
    pub repeats: Option<usize>,
    /// More runs of every static configuration at an input in doubt (`None`: 2 × repeats).
    pub doubt_repeats: Option<usize>,
    /// An input is in doubt when its two fastest configurations are this close (0.25 = 25 %).
    pub doubt: f64,
    /// Shuffles of the K-fold evaluation.
    pub shuffles: usize,
    /// The adaptive model, and its `OMPADAPT_MODEL` spelling (passed to the runs).
    pub model: (ModelChoice, String),
    /// Exploration strategies of the Online comparator.
    pub strategies: Vec<String>,
    /// PNG beside every SVG figure.
    pub png: bool,
    /// Only size the inputs (measure every input's steps again), write the calibration, stop.
    pub calibrate: bool,
    /// The calibration file (`None`: `calibration.json` in `out`).
    pub calibration: Option<PathBuf>,
    /// The measured part a run must reach, ms (`None`: [`DEFAULT_TARGET_MS`], or
    /// [`SMOKE_TARGET_MS`] with `smoke`).
    pub target_ms: Option<f64>,
}

/// The measured part a run must reach by default, ms.
pub const DEFAULT_TARGET_MS: f64 = calibrate::DEFAULT_TARGET_MS;
/// The measured part a `--smoke` run must reach by default, ms: the CI subset checks that the
/// harness works end to end in a minute or two, not what the figures are.
pub const SMOKE_TARGET_MS: f64 = 2.0;

impl Options {
    /// The measured part a run must reach, ms.
    pub fn target_ms(&self) -> f64 {
        self.target_ms.unwrap_or(if self.smoke { SMOKE_TARGET_MS } else { DEFAULT_TARGET_MS })
    }
}

/// A region's model trained offline on a store (Adaptive-100), as [`OfflineTrainer::train`]
/// returns it.
pub struct Trained {
    /// The model as text (for `summary.json`).
    pub model_text: String,
    /// The stored measurements it was trained on (medians per feature vector and variant).
    pub costs: TrainingSet,
}

/// Offline training on what the exploring runs stored: the harness trains through its caller
/// (the `ompadapt` command trains as `ompadapt train` does), so that Adaptive-100 runs exactly
/// what a user's offline training would store.
pub trait OfflineTrainer {
    /// Trains `choice` on region `region` of the store at `store`, and stores the model as the
    /// region's model; `None` when the store holds no such region.
    fn train(&self, store: &Path, region: &str, choice: ModelChoice) -> Result<Option<Trained>>;
}

/// Runs the evaluation `opts` asks for and writes its results; prints the summary (as JSON
/// with `as_json`, else as Markdown) on stdout. With `calibrate`, only sizes the inputs.
pub fn run(opts: &Options, trainer: &dyn OfflineTrainer, as_json: bool) -> Result<()> {
    let plan = Plan::new(opts)?;
    std::fs::create_dir_all(opts.out.join("bin")).with_context(|| format!("cannot create {}", opts.out.display()))?;
    let out = opts.out.canonicalize()?;
    let machine = Machine::of(&plan.tc);
    let cal_path = opts.calibration.clone().unwrap_or_else(|| out.join("calibration.json"));
    let mut cal = Calibration::load(&cal_path, &machine, opts.target_ms())?;
    let load_start = load_average();
    let pb = progress(if opts.calibrate { 0 } else { plan.total_runs(opts) }, as_json || opts.calibrate);
    let method = Method { shuffles: opts.shuffles, ..Method::default() };
    let mut runs_log = runner::RunLog::default();
    let mut results: Vec<KernelRun> = Vec::new();
    for k in &plan.kernels {
        pb.set_message(format!("{}: building", k.name));
        let exe = measure::build(k, &plan.tc, &plan.source, &out)?;
        pb.inc(1);
        let inputs = plan.inputs_of(opts, k);
        let work = out.join("work").join(k.name);
        std::fs::create_dir_all(&work)?;
        let steps = Probe { kernel: k, exe: &exe, work: &work, pb: &pb }.steps(&mut cal, &inputs, opts.calibrate)?;
        cal.save()?;
        if opts.calibrate {
            continue;
        }
        let m = Measurement {
            kernel: k,
            inputs,
            steps,
            exe: &exe,
            out: &out,
            repeats: plan.repeats,
            doubt: &plan.doubt,
            model: &opts.model,
            strategies: &opts.strategies,
            method: &method,
            pb: &pb,
            trainer,
        };
        results.push(m.run(&mut runs_log)?);
    }
    pb.finish_and_clear();
    if opts.calibrate {
        print!("{}", calibrate::table(&cal));
        return Ok(());
    }
    let info = report::RunInfo { machine: &machine, repeats: plan.repeats, doubt: &plan.doubt, target_s: cal.target_s(), load: (load_start, load_average()) };
    let summary = report::write_all(&out, &results, &runs_log, &opts.strategies, &method, &info)?;
    figures::write_all(&out, &results, &opts.strategies, opts.png)?;
    if as_json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{}", std::fs::read_to_string(out.join("summary.md"))?);
        println!("\nresults, CSV and figures in {}", out.display());
    }
    Ok(())
}

/// The options checked and resolved: the toolchain, the kernels, the runs per configuration.
struct Plan {
    source: PathBuf,
    tc: runner::Toolchain,
    kernels: Vec<&'static kernels::Kernel>,
    repeats: usize,
    doubt: Doubt,
}

impl Plan {
    fn new(opts: &Options) -> Result<Plan> {
        let source = opts
            .source
            .clone()
            .or_else(default_source)
            .ok_or_else(|| anyhow!("cannot find benchmarks/kernels: run from the checkout or pass --source"))?;
        let plugin = opts
            .plugin
            .clone()
            .or_else(default_plugin)
            .ok_or_else(|| anyhow!("cannot find libompadapt.so beside ompadapt: pass --plugin (cargo build --release builds it)"))?;
        let tc = runner::Toolchain {
            cc: opts.cc.clone(),
            plugin,
            targets: opts.targets.clone(),
            cflags: opts.cflags.clone(),
            resident: opts.resident,
        };
        let kernels = selected_kernels(opts)?;
        for s in &opts.strategies {
            if !["roundrobin", "random", "elimination"].contains(&s.as_str()) {
                bail!("--strategies: '{s}' is not roundrobin, random or elimination");
            }
        }
        let repeats = opts.repeats.unwrap_or(if opts.smoke { 1 } else { 3 }).max(1);
        if !(opts.doubt.is_finite() && opts.doubt >= 0.0) {
            bail!("--doubt: {} is not a fraction >= 0 (0.25 = 25 %)", opts.doubt);
        }
        let doubt = Doubt { band: opts.doubt, repeats: opts.doubt_repeats.unwrap_or(2 * repeats) };
        let plan = Plan { source, tc, kernels, repeats, doubt };
        for k in &plan.kernels {
            if plan.inputs_of(opts, k).len() < 4 {
                bail!("{}: the K-fold evaluation needs at least 4 inputs", k.name);
            }
        }
        Ok(plan)
    }

    /// The inputs `k` runs on: those asked for, else its smoke or full set.
    fn inputs_of(&self, opts: &Options, k: &kernels::Kernel) -> Vec<u64> {
        if !opts.inputs.is_empty() {
            opts.inputs.clone()
        } else if opts.smoke && !k.smoke.is_empty() {
            k.smoke.to_vec()
        } else {
            k.full.to_vec()
        }
    }

    /// Runs the progress bar expects before any run says how many variants a kernel has.
    fn total_runs(&self, opts: &Options) -> u64 {
        self.kernels
            .iter()
            .map(|k| {
                let combos = k.use_case.variants().pow(k.regions.len() as u32);
                1 + self.inputs_of(opts, k).len() as u64 * (combos + 2 + opts.strategies.len() as u64) * self.repeats as u64
            })
            .sum()
    }
}

/// The kernels asked for (all, or those with a smoke set under `--smoke`).
fn selected_kernels(opts: &Options) -> Result<Vec<&'static kernels::Kernel>> {
    if opts.kernels.is_empty() {
        return Ok(kernels::KERNELS.iter().filter(|k| !opts.smoke || !k.smoke.is_empty()).collect());
    }
    opts.kernels
        .iter()
        .map(|n| {
            kernels::find(n).ok_or_else(|| {
                anyhow!("no kernel '{n}' (have: {})", kernels::KERNELS.iter().map(|k| k.name).collect::<Vec<_>>().join(", "))
            })
        })
        .collect()
}

fn progress(total: u64, hidden: bool) -> ProgressBar {
    let pb = if hidden { ProgressBar::hidden() } else { ProgressBar::new(total) };
    pb.set_style(
        ProgressStyle::with_template("bench [{bar:30}] {pos}/{len} runs {msg} ({elapsed}, ~{eta} left)")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb
}

fn default_source() -> Option<PathBuf> {
    let mut c = vec![PathBuf::from("benchmarks/kernels")];
    if let Ok(exe) = std::env::current_exe() {
        // <checkout>/target/release/ompadapt
        if let Some(root) = exe.parent().and_then(Path::parent).and_then(Path::parent) {
            c.push(root.join("benchmarks/kernels"));
        }
        if let Some(prefix) = exe.parent().and_then(Path::parent) {
            c.push(prefix.join("share/ompadapt/kernels"));
        }
    }
    c.into_iter().find(|p| p.join("bench.h").is_file())
}

fn default_plugin() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    [dir.join("libompadapt.so"), dir.join("../lib/libompadapt.so")].into_iter().find(|p| p.is_file())
}
