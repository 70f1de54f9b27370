//! `ompadapt bench`: Georgakoudis et al.'s evaluation (section 4) on the kernels of
//! `benchmarks/kernels/`, each built once per use-case of its Table 3 row (CPU/GPU, GPU threads,
//! co-scheduling; see [`kernels::UseCase`]).
//!
//! Per kernel and input, every run is a real run of the kernel compiled with clang + the
//! plugin, its result checked by the kernel itself:
//! - **Static per variant** (Static CPU / Static GPU, Static thread_limit=64 ..., Static
//!   coschedule=0 ...; the baseline is Static GPU, Static thread_limit=256 or Static
//!   coschedule=1): `OMPADAPT_VARIANT` pins every region to one variant; for kernels with
//!   several regions every combination is measured too (the oracle and the K-fold models may
//!   mix). Inputs whose two fastest configurations are close get more runs ([`Doubt`]).
//! - **Static Best**: the one uniform variant with the best geometric-mean time over the inputs.
//! - **Oracle**: per input the fastest measured combination.
//! - **Online**: a run that starts with nothing stored, explores, trains and decides within
//!   the run (`OMPADAPT_EXPLORE`: each strategy asked for; its cost is the exploration cost).
//! - **Adaptive-100**: data-collection runs over every input (`OMPADAPT_EXPLORE_ONLY=1` into one
//!   store), a model trained offline on all of it (`ompadapt train`'s code; decision tree of
//!   depth 2 by default, as in the paper), then production runs (`OMPADAPT_FROZEN=1`).
//! - **Adaptive-25/50/75**: Georgakoudis et al.'s K-fold method (K = 4, 10 shuffles;
//!   `ompadapt_rt::evaluate::folds`) on the stored data; each held-out input's time is the
//!   measured time of the combination the fold's model decided (decisions are real model
//!   decisions, their times the static measurements: running 120 folds per input is not needed
//!   to know what a decision costs; Adaptive-100's real runs measure what deciding costs).
//!
//! Speedups are over the use-case's baseline. Results go to `--out`: `runs.csv` (every run),
//! `comparators.csv`, `decisions.csv`, `summary.json`, `summary.md` and the figures (SVG and
//! PNG): speedup per input and comparator, decision distributions (violins), accuracy.

mod figures;
mod kernels;
mod report;
mod runner;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use ompadapt_rt::evaluate::{self, Method};
use ompadapt_rt::model::{Costs, ModelChoice};

use crate::show::Learned;
use crate::store;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Kernels to run (default: all): xsbench, rsbench, lulesh, amgmk_relax, heat2d, lbm2d, smith_waterman.
    #[arg(long, value_delimiter = ',')]
    kernels: Vec<String>,
    /// The CI subset: two kernels on four inputs each, one run per measurement.
    #[arg(long)]
    smoke: bool,
    /// Inputs for every kernel asked for (instead of the built-in ones).
    #[arg(long, value_delimiter = ',')]
    inputs: Vec<u64>,
    /// Where results and figures go.
    #[arg(long, default_value = "bench-results")]
    out: PathBuf,
    /// The kernels' sources (default: benchmarks/kernels of this checkout).
    #[arg(long)]
    source: Option<PathBuf>,
    /// libompadapt.so (default: beside this executable).
    #[arg(long)]
    plugin: Option<PathBuf>,
    #[arg(long, default_value = "clang-19")]
    cc: String,
    /// Offload target (nvptx64 on an NVIDIA machine; see README for its CUDA flags).
    #[arg(long, default_value = "x86_64-pc-linux-gnu")]
    targets: String,
    /// Extra compiler flag (repeatable), e.g. --cflag=--offload-arch=sm_90.
    #[arg(long = "cflag", allow_hyphen_values = true)]
    cflags: Vec<String>,
    /// Keep the kernels' mutable state in `target data` too (needs a pass whose cpu variant is correct there).
    #[arg(long)]
    resident: bool,
    /// Runs per measured configuration (the fastest counts; default 3, 1 with --smoke).
    #[arg(long)]
    repeats: Option<usize>,
    /// More runs of every static configuration at an input whose verdict is in doubt (its two
    /// fastest configurations within --doubt of each other); default 2 x --repeats.
    #[arg(long)]
    doubt_repeats: Option<usize>,
    /// When an input's verdict is in doubt: its two fastest configurations this close (0.25 = 25 %).
    #[arg(long, default_value_t = 0.25)]
    doubt: f64,
    /// Shuffles of the K-fold evaluation.
    #[arg(long, default_value_t = 10)]
    shuffles: usize,
    /// The adaptive model (OMPADAPT_MODEL spelling).
    #[arg(long, default_value = "dtree,2")]
    model: String,
    /// Exploration strategies of the Online comparator.
    #[arg(long, value_delimiter = ',', default_values_t = vec!["roundrobin".to_owned(), "elimination".to_owned()])]
    strategies: Vec<String>,
    /// SVG only.
    #[arg(long)]
    no_png: bool,
}

/// Online runs of one strategy at one input: their times, the combination the first run ended
/// on, and its executions off that combination.
pub type Online = (Vec<f64>, Vec<usize>, u64);

/// Everything measured and decided for one kernel.
pub struct KernelRun {
    pub kernel: &'static kernels::Kernel,
    pub inputs: Vec<u64>,
    /// Variant names (the same for every region of a kernel).
    pub variants: Vec<String>,
    /// Measured times per input and combination (variant per region): all steps but the first
    /// (the first pays one-off costs, kept apart in `first`).
    pub combos: BTreeMap<(u64, Vec<usize>), Vec<f64>>,
    /// Adaptive-100 production runs per input: times (all steps but the first) and the
    /// combination they ran.
    pub a100: BTreeMap<u64, (Vec<f64>, Vec<usize>)>,
    /// The first step's time of the static runs of the combination Adaptive-100 chose and of
    /// Adaptive-100's runs, per input (loading the store and training happen there).
    pub first: BTreeMap<u64, (Vec<f64>, Vec<f64>)>,
    /// Online runs per strategy and input: times, final combination, exploring executions.
    pub online: BTreeMap<(String, u64), Online>,
    /// K-fold decisions per training fraction (25, 50, 75) and input: combinations decided.
    pub folds: BTreeMap<(u32, u64), Vec<Vec<usize>>>,
    /// The Adaptive-100 model's text per region.
    pub models: Vec<(String, String)>,
    /// Per region, the stored measurements (medians per input and variant, input order).
    pub profiles: Vec<Costs>,
    /// The model trained.
    pub choice: ModelChoice,
    /// Inputs whose static configurations got more runs ([`Doubt`]).
    pub in_doubt: Vec<u64>,
    /// Regular runs per configuration (before any in doubt).
    pub repeats: usize,
}

/// The time of a configuration: the fastest of its runs (on a shared machine interference only
/// ever adds time, so the minimum is the least disturbed measurement).
pub fn fastest(v: &[f64]) -> f64 {
    v.iter().copied().filter(|t| t.is_finite()).fold(f64::NAN, f64::min)
}

impl KernelRun {
    pub fn time(&self, input: u64, combo: &[usize]) -> f64 {
        self.combos.get(&(input, combo.to_vec())).map_or(f64::NAN, |t| fastest(t))
    }

    pub fn uniform(&self, v: usize) -> Vec<usize> {
        vec![v; self.kernel.regions.len()]
    }

    /// The baseline variant (`gpu`, `thread_limit=256`, `coschedule=1`).
    pub fn baseline(&self) -> usize {
        let name = self.kernel.use_case.baseline().0;
        self.variants.iter().position(|v| v == name).unwrap_or(self.variants.len() - 1)
    }

    /// Time of the baseline (every region on the baseline variant) at `input`.
    pub fn base_time(&self, input: u64) -> f64 {
        self.time(input, &self.uniform(self.baseline()))
    }

    /// Measured configurations at `input`, fastest first.
    pub fn ranked(&self, input: u64) -> Vec<(Vec<usize>, f64)> {
        let mut v: Vec<(Vec<usize>, f64)> =
            self.combos.iter().filter(|((i, _), _)| *i == input).map(|((_, c), t)| (c.clone(), fastest(t))).collect();
        v.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
        v
    }

    /// Fastest measured combination at `input`.
    pub fn oracle(&self, input: u64) -> (Vec<usize>, f64) {
        self.combos
            .iter()
            .filter(|((i, _), _)| *i == input)
            .map(|((_, c), t)| (c.clone(), fastest(t)))
            .min_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal))
            .unwrap_or((Vec::new(), f64::NAN))
    }

    /// The uniform variant with the best geometric mean over the inputs.
    pub fn static_best(&self) -> usize {
        (0..self.variants.len())
            .min_by(|&a, &b| {
                let g = |v: usize| self.inputs.iter().map(|&i| self.time(i, &self.uniform(v)).ln()).sum::<f64>();
                g(a).partial_cmp(&g(b)).unwrap_or(std::cmp::Ordering::Equal)
            })
            .unwrap_or(0)
    }
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

pub fn run(args: Args, as_json: bool) -> Result<()> {
    let source = args
        .source
        .clone()
        .or_else(default_source)
        .ok_or_else(|| anyhow!("cannot find benchmarks/kernels: run from the checkout or pass --source"))?;
    let plugin = args
        .plugin
        .clone()
        .or_else(default_plugin)
        .ok_or_else(|| anyhow!("cannot find libompadapt.so beside ompadapt: pass --plugin (cargo build --release builds it)"))?;
    let tc = runner::Toolchain {
        cc: args.cc.clone(),
        plugin,
        targets: args.targets.clone(),
        cflags: args.cflags.clone(),
        resident: args.resident,
    };
    let choice = store::parse_model(&args.model)?;
    let selected: Vec<&'static kernels::Kernel> = if args.kernels.is_empty() {
        kernels::KERNELS.iter().filter(|k| !args.smoke || !k.smoke.is_empty()).collect()
    } else {
        args.kernels
            .iter()
            .map(|n| {
                kernels::find(n).ok_or_else(|| {
                    anyhow!("no kernel '{n}' (have: {})", kernels::KERNELS.iter().map(|k| k.name).collect::<Vec<_>>().join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    for s in &args.strategies {
        if !["roundrobin", "random", "elimination"].contains(&s.as_str()) {
            bail!("--strategies: '{s}' is not roundrobin, random or elimination");
        }
    }
    let repeats = args.repeats.unwrap_or(if args.smoke { 1 } else { 3 }).max(1);
    if !(args.doubt.is_finite() && args.doubt >= 0.0) {
        bail!("--doubt: {} is not a fraction >= 0 (0.25 = 25 %)", args.doubt);
    }
    let doubt = Doubt { band: args.doubt, repeats: args.doubt_repeats.unwrap_or(2 * repeats) };
    let inputs_of = |k: &kernels::Kernel| -> Vec<u64> {
        if !args.inputs.is_empty() {
            args.inputs.clone()
        } else if args.smoke && !k.smoke.is_empty() {
            k.smoke.to_vec()
        } else {
            k.full.to_vec()
        }
    };
    for k in &selected {
        if inputs_of(k).len() < 4 {
            bail!("{}: the K-fold evaluation needs at least 4 inputs", k.name);
        }
    }
    std::fs::create_dir_all(args.out.join("bin")).with_context(|| format!("cannot create {}", args.out.display()))?;
    let out = args.out.canonicalize()?;
    let total: u64 = selected
        .iter()
        .map(|k| {
            let combos = k.use_case.variants().pow(k.regions.len() as u32);
            1 + inputs_of(k).len() as u64 * (combos + 2 + args.strategies.len() as u64) * repeats as u64
        })
        .sum();
    let pb = if as_json { ProgressBar::hidden() } else { ProgressBar::new(total) };
    pb.set_style(
        ProgressStyle::with_template("bench [{bar:30}] {pos}/{len} runs {msg} ({elapsed}, ~{eta} left)")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let method = Method { shuffles: args.shuffles, ..Method::default() };
    let mut runs_log = report::RunLog::default();
    let mut results = Vec::new();
    for k in selected {
        let r = run_kernel(
            k,
            &inputs_of(k),
            &tc,
            &source,
            &out,
            (repeats, &doubt),
            choice,
            &args.model,
            &args.strategies,
            &method,
            &pb,
            &mut runs_log,
        )?;
        results.push(r);
    }
    pb.finish_and_clear();
    let summary = report::write_all(&out, &results, &runs_log, &args.strategies, &method, &tc, repeats, &doubt)?;
    figures::write_all(&out, &results, &args.strategies, !args.no_png)?;
    if as_json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{}", std::fs::read_to_string(out.join("summary.md"))?);
        println!("\nresults, CSV and figures in {}", out.display());
    }
    Ok(())
}

/// Where one static configuration's runs are not enough: at an input whose two fastest
/// configurations are within `band` of each other after the regular runs, every configuration
/// of that input gets `repeats` more runs (interleaved). The time stays the fastest of a
/// configuration's runs; only the number of runs grows, and it grows alike for every
/// configuration of the input, so no variant gains from being sampled more than its rivals.
/// On a shared machine one configuration's runs vary by far more than the 5 % a decision is
/// judged by; more runs bring each configuration's fastest run closer to its undisturbed time.
pub struct Doubt {
    pub band: f64,
    pub repeats: usize,
}

#[allow(clippy::too_many_arguments)]
fn run_kernel(
    k: &'static kernels::Kernel,
    inputs: &[u64],
    tc: &runner::Toolchain,
    source: &Path,
    out: &Path,
    (repeats, doubt): (usize, &Doubt),
    choice: ModelChoice,
    model_spelling: &str,
    strategies: &[String],
    method: &Method,
    pb: &ProgressBar,
    log: &mut report::RunLog,
) -> Result<KernelRun> {
    let exe = out.join("bin").join(k.name);
    pb.set_message(format!("{}: building", k.name));
    tc.build(&source.join(k.source), &exe, k.use_case.flag())?;
    pb.inc(1);
    let work = out.join("work").join(k.name);
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work)?;
    let store_dir = work.join("store");
    let dir_env = |d: &Path| ("OMPADAPT_DIR", d.display().to_string());
    let mut r = KernelRun {
        kernel: k,
        inputs: inputs.to_vec(),
        variants: Vec::new(),
        combos: BTreeMap::new(),
        a100: BTreeMap::new(),
        first: BTreeMap::new(),
        online: BTreeMap::new(),
        folds: BTreeMap::new(),
        models: Vec::new(),
        profiles: Vec::new(),
        choice,
        in_doubt: Vec::new(),
        repeats,
    };
    // 1. data collection (also tells the variants), `repeats` runs per input into one store:
    // the labels are medians over all of them
    for n in (0..repeats).flat_map(|_| inputs.iter().copied()) {
        pb.set_message(format!("{} {n}: exploring", k.name));
        let o = runner::run(&exe, n, k.steps, &work, &[dir_env(&store_dir), ("OMPADAPT_EXPLORE_ONLY", "1".into())])?;
        log.add(k.name, n, "explore", "", &o);
        if r.variants.is_empty() {
            r.variants = o.decisions.first().map(|(_, c)| c.iter().map(|(v, _)| v.clone()).collect()).unwrap_or_default();
            if o.decisions.len() != k.regions.len() || r.variants.is_empty() {
                bail!("{}: expected DECISIONS for regions {:?}, got {:?}", k.name, k.regions, o.decisions);
            }
        }
        pb.inc(1);
    }
    let nv = r.variants.len();
    let combos: Vec<Vec<usize>> = (0..nv.pow(k.regions.len() as u32))
        .map(|mut c| {
            (0..k.regions.len())
                .map(|_| {
                    let v = c % nv;
                    c /= nv;
                    v
                })
                .collect()
        })
        .collect();
    let names = r.variants.clone();
    let pin = |combo: &[usize]| -> String {
        k.regions.iter().zip(combo).map(|(reg, &v)| format!("{reg}:{}", names[v])).collect::<Vec<_>>().join(";")
    };
    // 2. offline training on everything (Adaptive-100), through the CLI's own code
    let mut per_region: Vec<Costs> = Vec::new();
    for reg in k.regions {
        let stored = store::regions(&store_dir, None)?
            .into_iter()
            .find(|s| s.file.model == *reg)
            .ok_or_else(|| anyhow!("{}: region '{reg}' saved nothing", k.name))?;
        let learned = Learned::fit(stored, Some(choice))?;
        crate::train::store_model(&store_dir, &learned)?;
        r.models.push((reg.to_string(), learned.model_text()));
        per_region.push(by_input(&learned.costs, inputs.len()).with_context(|| format!("{} region '{reg}'", k.name))?);
    }
    let mut firsts: BTreeMap<(u64, Vec<usize>), Vec<f64>> = BTreeMap::new();
    let static_run = |r: &mut KernelRun,
                      firsts: &mut BTreeMap<(u64, Vec<usize>), Vec<f64>>,
                      log: &mut report::RunLog,
                      n: u64,
                      combo: &Vec<usize>|
     -> Result<()> {
        let o = runner::run(&exe, n, k.steps, &work, &[("OMPADAPT_PERSIST", "0".into()), ("OMPADAPT_VARIANT", pin(combo))])?;
        log.add(k.name, n, "static", &pin(combo), &o);
        r.combos.entry((n, combo.clone())).or_default().push(o.steady_s);
        firsts.entry((n, combo.clone())).or_default().push(o.time_s - o.steady_s);
        Ok(())
    };
    // 3. measured runs, interleaved so that a slow period of the machine hits every mode alike
    for rep in 0..repeats {
        for &n in inputs {
            for combo in &combos {
                pb.set_message(format!("{} {n}: static {}", k.name, pin(combo)));
                static_run(&mut r, &mut firsts, log, n, combo)?;
                pb.inc(1);
            }
            pb.set_message(format!("{} {n}: adaptive-100", k.name));
            let o = runner::run(
                &exe,
                n,
                k.steps,
                &work,
                &[dir_env(&store_dir), ("OMPADAPT_FROZEN", "1".into()), ("OMPADAPT_MODEL", model_spelling.to_owned())],
            )?;
            log.add(k.name, n, "adaptive-100", "", &o);
            let e = r.a100.entry(n).or_insert_with(|| (Vec::new(), o.majority()));
            e.0.push(o.steady_s);
            r.first.entry(n).or_default().1.push(o.time_s - o.steady_s);
            pb.inc(1);
            for s in strategies {
                pb.set_message(format!("{} {n}: online ({s})", k.name));
                let o = runner::run(
                    &exe,
                    n,
                    k.steps,
                    &work,
                    &[("OMPADAPT_PERSIST", "0".into()), ("OMPADAPT_EXPLORE", s.clone()), ("OMPADAPT_MODEL", model_spelling.to_owned())],
                )?;
                log.add(k.name, n, &format!("online-{s}"), "", &o);
                let e = r.online.entry((s.clone(), n)).or_insert_with(|| (Vec::new(), o.majority(), o.minority_executions()));
                e.0.push(o.steady_s);
                pb.inc(1);
            }
        }
        let _ = rep;
    }
    // 3b. inputs in doubt: more runs of all their static configurations
    let in_doubt: Vec<u64> = inputs
        .iter()
        .copied()
        .filter(|&n| {
            let ranked = r.ranked(n);
            ranked.len() > 1 && ranked[1].1 <= ranked[0].1 * (1.0 + doubt.band)
        })
        .collect();
    pb.inc_length((in_doubt.len() * combos.len() * doubt.repeats) as u64);
    for _ in 0..doubt.repeats {
        for &n in &in_doubt {
            for combo in &combos {
                pb.set_message(format!("{} {n}: in doubt, static {}", k.name, pin(combo)));
                static_run(&mut r, &mut firsts, log, n, combo)?;
                pb.inc(1);
            }
        }
    }
    r.in_doubt = in_doubt;
    for (n, (_, chosen)) in &r.a100 {
        if let Some(f) = firsts.get(&(*n, chosen.clone())) {
            r.first.entry(*n).or_default().0 = f.clone();
        }
    }
    r.profiles = per_region.clone();
    // 4. K-fold decisions: the same splits for every region (rows in input order)
    for m in &method.train_groups {
        let per: Vec<Vec<evaluate::Fold>> = per_region.iter().map(|c| evaluate::folds(c, choice, *m, method)).collect();
        let pct = (*m * 100 / method.k) as u32;
        for f in 0..per[0].len() {
            for (pos, &(row, _)) in per[0][f].decisions.iter().enumerate() {
                let combo: Vec<usize> = per.iter().map(|folds| folds[f].decisions[pos].1).collect();
                r.folds.entry((pct, inputs[row])).or_default().push(combo);
            }
        }
    }
    Ok(r)
}

/// The region's data with one row per input, in input order (the feature grows with the
/// input in every kernel).
fn by_input(c: &Costs, inputs: usize) -> Result<Costs> {
    if c.n() != inputs {
        bail!("{} feature vectors stored for {inputs} inputs", c.n());
    }
    let mut idx: Vec<usize> = (0..c.n()).collect();
    idx.sort_by(|&a, &b| c.row(a).partial_cmp(c.row(b)).unwrap_or(std::cmp::Ordering::Equal));
    Ok(c.subset(&idx))
}
