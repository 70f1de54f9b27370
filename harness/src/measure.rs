//! One kernel's measurements: the exploring runs that collect the data, the offline training
//! (Adaptive-100), the static, Adaptive-100 and Online runs interleaved, the extra runs at
//! inputs close to a tie, and the K-fold decisions on the stored data. Every input runs the
//! steps the calibration gave it; adaptive runs write the runtime's report, which explains
//! their excess over the static runs (`excess`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use indicatif::ProgressBar;
use ompadapt_evaluate::{self as evaluate, Method};
use ompadapt_rt::model::{ModelChoice, TrainingSet};

use super::kernels::Kernel;
use super::runner::{self, Output, RunLog, Toolchain};
use super::OfflineTrainer;

/// Online runs of one strategy at one input: their times, the combination the first run ended
/// on, and its executions off that combination.
pub type Online = (Vec<f64>, Vec<usize>, u64);

/// Everything measured and decided for one kernel.
pub struct KernelRun {
    pub kernel: &'static Kernel,
    pub inputs: Vec<u64>,
    /// Variant names (the same for every region of a kernel).
    pub variants: Vec<String>,
    /// The variants that run here (indices into `variants`): the static comparators, the
    /// combinations measured.
    pub available: Vec<usize>,
    /// The variants that do not, with why (`threads=0.5`: the same team as `serial` on 2 cores).
    pub unavailable: Vec<(String, String)>,
    /// Steps per input (the calibration's).
    pub steps: BTreeMap<u64, u64>,
    /// Measured times per input and combination (variant per region): all steps but the first
    /// (the first pays one-off costs, kept apart in `first`).
    pub combos: BTreeMap<(u64, Vec<usize>), Vec<f64>>,
    /// Adaptive-100 production runs per input: times (all steps but the first) and the
    /// combination they ran.
    pub a100: BTreeMap<u64, (Vec<f64>, Vec<usize>)>,
    /// The first step's time of the static runs of the combination Adaptive-100 chose and of
    /// Adaptive-100's runs, per input (loading the store and training happen there).
    pub first: BTreeMap<u64, (Vec<f64>, Vec<f64>)>,
    /// The first step's time of every static configuration's runs.
    pub static_first: BTreeMap<(u64, Vec<usize>), Vec<f64>>,
    /// Every adaptive run (Adaptive-100, Online per strategy: the comparator's name) per
    /// input, with its report.
    pub adaptive: BTreeMap<(String, u64), Vec<Output>>,
    /// Online runs per strategy and input: times, final combination, exploring executions.
    pub online: BTreeMap<(String, u64), Online>,
    /// K-fold decisions per training fraction (25, 50, 75) and input: combinations decided.
    pub folds: BTreeMap<(u32, u64), Vec<Vec<usize>>>,
    /// The Adaptive-100 model's text per region.
    pub models: Vec<(String, String)>,
    /// Per region, the stored measurements (medians per input and variant, input order).
    pub profiles: Vec<TrainingSet>,
    /// The model trained.
    pub choice: ModelChoice,
    /// Inputs whose static configurations got more runs ([`Doubt`]).
    pub remeasured: Vec<u64>,
    /// Regular runs per configuration (before any in doubt).
    pub repeats: usize,
}

/// The time of a configuration: the fastest of its runs (on a shared machine interference only
/// ever adds time, so the minimum is the least disturbed measurement).
pub fn fastest(v: &[f64]) -> f64 {
    v.iter().copied().filter(|t| t.is_finite()).fold(f64::NAN, f64::min)
}

impl KernelRun {
    /// Nothing measured yet for `kernel` at `inputs`.
    pub fn new(kernel: &'static Kernel, inputs: Vec<u64>, steps: BTreeMap<u64, u64>, choice: ModelChoice, repeats: usize) -> KernelRun {
        KernelRun {
            kernel,
            inputs,
            variants: Vec::new(),
            available: Vec::new(),
            unavailable: Vec::new(),
            steps,
            combos: BTreeMap::new(),
            a100: BTreeMap::new(),
            first: BTreeMap::new(),
            static_first: BTreeMap::new(),
            adaptive: BTreeMap::new(),
            online: BTreeMap::new(),
            folds: BTreeMap::new(),
            models: Vec::new(),
            profiles: Vec::new(),
            choice,
            remeasured: Vec::new(),
            repeats,
        }
    }

    pub fn time(&self, input: u64, combo: &[usize]) -> f64 {
        self.combos.get(&(input, combo.to_vec())).map_or(f64::NAN, |t| fastest(t))
    }

    pub fn uniform(&self, v: usize) -> Vec<usize> {
        vec![v; self.kernel.regions.len()]
    }

    /// The spread of a configuration's runs: slowest / fastest − 1 (NaN with one run).
    pub fn spread(&self, input: u64, combo: &[usize]) -> f64 {
        self.combos.get(&(input, combo.to_vec())).map_or(f64::NAN, |t| spread(t))
    }

    /// Whether the verdict at `input` is in doubt: the gap between its two fastest
    /// configurations is smaller than the run-to-run spread of either (`None`: not judged,
    /// one of them ran once).
    pub fn in_doubt(&self, input: u64) -> Option<bool> {
        let ranked = self.ranked(input);
        let (first, second) = (ranked.first()?, ranked.get(1)?);
        let spread = self.spread(input, &first.0).max(self.spread(input, &second.0));
        (!spread.is_nan()).then(|| second.1 / first.1 - 1.0 < spread)
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
        self.available
            .iter()
            .copied()
            .min_by(|&a, &b| {
                let g = |v: usize| self.inputs.iter().map(|&i| self.time(i, &self.uniform(v)).ln()).sum::<f64>();
                g(a).partial_cmp(&g(b)).unwrap_or(std::cmp::Ordering::Equal)
            })
            .unwrap_or(0)
    }
}

/// The spread of runs' times: slowest / fastest − 1 (NaN with fewer than two).
pub fn spread(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return f64::NAN;
    }
    v.iter().copied().fold(f64::MIN, f64::max) / fastest(v) - 1.0
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

/// Builds `kernel` for its use-case into `<out>/bin/<name>`; returns the executable.
pub fn build(kernel: &Kernel, tc: &Toolchain, source: &Path, out: &Path) -> Result<PathBuf> {
    let exe = out.join("bin").join(kernel.name);
    tc.build(&source.join(kernel.source), &exe, kernel.use_case.flag())?;
    Ok(exe)
}

/// What measuring one kernel needs.
pub struct Measurement<'a> {
    pub kernel: &'static Kernel,
    pub inputs: Vec<u64>,
    /// Steps per input (the calibration's).
    pub steps: BTreeMap<u64, u64>,
    /// The kernel built for its use-case.
    pub exe: &'a Path,
    pub out: &'a Path,
    pub repeats: usize,
    pub doubt: &'a Doubt,
    /// The model and its `OMPADAPT_MODEL` spelling.
    pub model: &'a (ModelChoice, String),
    pub strategies: &'a [String],
    pub method: &'a Method,
    pub pb: &'a ProgressBar,
    pub trainer: &'a dyn OfflineTrainer,
}

impl Measurement<'_> {
    /// Measures the kernel; every run goes to `log`.
    pub fn run(&self, log: &mut RunLog) -> Result<KernelRun> {
        let k = self.kernel;
        let work = self.out.join("work").join(k.name);
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(work.join("reports"))?;
        let store = work.join("store");
        let mut runs = Runs { m: self, work, store, log, variants: Vec::new(), unavailable: Vec::new(), reports: 0 };
        let mut r = KernelRun::new(k, self.inputs.clone(), self.steps.clone(), self.model.0, self.repeats);
        runs.collect_data()?;
        r.variants = runs.variants.clone();
        r.unavailable = runs.unavailable.clone();
        r.available = (0..r.variants.len()).filter(|&v| !r.unavailable.iter().any(|(u, _)| *u == r.variants[v])).collect();
        let combos: Vec<Vec<usize>> =
            combinations(r.variants.len(), k.regions.len()).into_iter().filter(|c| c.iter().all(|v| r.available.contains(v))).collect();
        let per_region = self.train_offline(&runs.store, &mut r)?;
        runs.measure_interleaved(&mut r, &combos)?;
        runs.measure_in_doubt(&mut r, &combos)?;
        for (n, (_, chosen)) in &r.a100 {
            if let Some(f) = r.static_first.get(&(*n, chosen.clone())) {
                r.first.entry(*n).or_default().0 = f.clone();
            }
        }
        r.profiles = per_region.clone();
        self.fold_decisions(&per_region, &mut r);
        Ok(r)
    }

    /// Step 2, offline training on everything (Adaptive-100), through the caller's trainer:
    /// the models' texts go to `r`; returns each region's data, one row per input.
    fn train_offline(&self, store: &Path, r: &mut KernelRun) -> Result<Vec<TrainingSet>> {
        let k = self.kernel;
        let mut per_region: Vec<TrainingSet> = Vec::new();
        for reg in k.regions {
            let trained =
                self.trainer.train(store, reg, self.model.0)?.ok_or_else(|| anyhow!("{}: region '{reg}' saved nothing", k.name))?;
            r.models.push((reg.to_string(), trained.model_text));
            per_region.push(by_input(&trained.costs, self.inputs.len()).with_context(|| format!("{} region '{reg}'", k.name))?);
        }
        Ok(per_region)
    }

    /// Step 4, K-fold decisions: the same splits for every region (rows in input order).
    fn fold_decisions(&self, per_region: &[TrainingSet], r: &mut KernelRun) {
        let method = self.method;
        for m in &method.train_groups {
            let per: Vec<Vec<evaluate::Fold>> = per_region.iter().map(|c| evaluate::folds(c, self.model.0, *m, method)).collect();
            let pct = (*m * 100 / method.k) as u32;
            for f in 0..per[0].len() {
                for (pos, &(row, _)) in per[0][f].decisions.iter().enumerate() {
                    let combo: Vec<usize> = per.iter().map(|folds| folds[f].decisions[pos].1).collect();
                    r.folds.entry((pct, self.inputs[row])).or_default().push(combo);
                }
            }
        }
    }
}

/// The runs of one kernel: its working folder and store, the log every run goes to, the
/// variants (and those that cannot run here) as the first exploring run tells them.
struct Runs<'m, 'a> {
    m: &'m Measurement<'a>,
    work: PathBuf,
    store: PathBuf,
    log: &'m mut RunLog,
    variants: Vec<String>,
    unavailable: Vec<(String, String)>,
    /// Reports written so far (their file names).
    reports: usize,
}

impl Runs<'_, '_> {
    fn dir_env(&self) -> (&'static str, String) {
        ("OMPADAPT_DIR", self.store.display().to_string())
    }

    /// `OMPADAPT_VARIANT`'s value pinning every region to its variant of `combo`.
    fn pin(&self, combo: &[usize]) -> String {
        self.m.kernel.regions.iter().zip(combo).map(|(reg, &v)| format!("{reg}:{}", self.variants[v])).collect::<Vec<_>>().join(";")
    }

    /// The steps input `n` runs.
    fn steps(&self, n: u64) -> u64 {
        self.m.steps.get(&n).copied().unwrap_or(self.m.kernel.min_steps)
    }

    /// A run of input `n` that writes the runtime's report (a new file under `reports/`).
    fn reported(&mut self, n: u64, mode: &str, env: &[(&str, String)]) -> Result<Output> {
        self.reports += 1;
        let file = self.work.join("reports").join(format!("{mode}-{n}-{}.json", self.reports));
        runner::run_reported(self.m.exe, n, self.steps(n), &self.work, env, &file)
    }

    /// Step 1, data collection (also tells the variants, and those that cannot run here),
    /// `repeats` runs per input into one store: the labels are medians over all of them.
    fn collect_data(&mut self) -> Result<()> {
        let (k, pb) = (self.m.kernel, self.m.pb);
        for n in (0..self.m.repeats).flat_map(|_| self.m.inputs.iter().copied()) {
            pb.set_message(format!("{} {n}: exploring", k.name));
            let env = [self.dir_env(), ("OMPADAPT_EXPLORE_ONLY", "1".into())];
            let o = if self.variants.is_empty() { self.reported(n, "explore", &env)? } else { runner::run(self.m.exe, n, self.steps(n), &self.work, &env)? };
            self.log.add(k.name, n, "explore", "", &o);
            if self.variants.is_empty() {
                self.variants = o.decisions.first().map(|(_, c)| c.iter().map(|(v, _)| v.clone()).collect()).unwrap_or_default();
                if o.decisions.len() != k.regions.len() || self.variants.is_empty() {
                    bail!("{}: expected DECISIONS for regions {:?}, got {:?}", k.name, k.regions, o.decisions);
                }
                self.unavailable = o.report.iter().flat_map(|r| r.regions.iter().flat_map(|g| g.unavailable.clone())).collect();
                self.unavailable.dedup_by(|a, b| a.0 == b.0);
            }
            pb.inc(1);
        }
        Ok(())
    }

    /// Step 3, measured runs, interleaved so that a slow period of the machine hits every mode
    /// alike.
    fn measure_interleaved(&mut self, r: &mut KernelRun, combos: &[Vec<usize>]) -> Result<()> {
        let (k, pb) = (self.m.kernel, self.m.pb);
        for _ in 0..self.m.repeats {
            for &n in &self.m.inputs {
                for combo in combos {
                    pb.set_message(format!("{} {n}: static {}", k.name, self.pin(combo)));
                    self.static_run(r, n, combo)?;
                    pb.inc(1);
                }
                pb.set_message(format!("{} {n}: adaptive-100", k.name));
                self.adaptive100_run(r, n)?;
                pb.inc(1);
                for s in self.m.strategies {
                    pb.set_message(format!("{} {n}: online ({s})", k.name));
                    self.online_run(r, n, s)?;
                    pb.inc(1);
                }
            }
        }
        Ok(())
    }

    /// Step 3b, inputs close to a tie: more runs of all their static configurations.
    fn measure_in_doubt(&mut self, r: &mut KernelRun, combos: &[Vec<usize>]) -> Result<()> {
        let (k, pb, doubt) = (self.m.kernel, self.m.pb, self.m.doubt);
        let close: Vec<u64> = self
            .m
            .inputs
            .iter()
            .copied()
            .filter(|&n| {
                let ranked = r.ranked(n);
                ranked.len() > 1 && ranked[1].1 <= ranked[0].1 * (1.0 + doubt.band)
            })
            .collect();
        pb.inc_length((close.len() * combos.len() * doubt.repeats) as u64);
        for _ in 0..doubt.repeats {
            for &n in &close {
                for combo in combos {
                    pb.set_message(format!("{} {n}: close, static {}", k.name, self.pin(combo)));
                    self.static_run(r, n, combo)?;
                    pb.inc(1);
                }
            }
        }
        r.remeasured = close;
        Ok(())
    }

    /// One run with every region pinned to its variant of `combo`, nothing stored.
    fn static_run(&mut self, r: &mut KernelRun, n: u64, combo: &[usize]) -> Result<()> {
        let k = self.m.kernel;
        let o = runner::run(self.m.exe, n, self.steps(n), &self.work, &[("OMPADAPT_PERSIST", "0".into()), ("OMPADAPT_VARIANT", self.pin(combo))])?;
        self.log.add(k.name, n, "static", &self.pin(combo), &o);
        r.combos.entry((n, combo.to_vec())).or_default().push(o.steady_s);
        r.static_first.entry((n, combo.to_vec())).or_default().push(o.time_s - o.steady_s);
        Ok(())
    }

    /// One production run on the model trained offline (`OMPADAPT_FROZEN=1`).
    fn adaptive100_run(&mut self, r: &mut KernelRun, n: u64) -> Result<()> {
        let k = self.m.kernel;
        let env = [self.dir_env(), ("OMPADAPT_FROZEN", "1".into()), ("OMPADAPT_MODEL", self.m.model.1.clone())];
        let o = self.reported(n, "adaptive-100", &env)?;
        self.log.add(k.name, n, "adaptive-100", "", &o);
        let e = r.a100.entry(n).or_insert_with(|| (Vec::new(), o.majority()));
        e.0.push(o.steady_s);
        r.first.entry(n).or_default().1.push(o.time_s - o.steady_s);
        r.adaptive.entry(("Adaptive-100".into(), n)).or_default().push(o);
        Ok(())
    }

    /// One run that starts with nothing stored and explores with strategy `s`.
    fn online_run(&mut self, r: &mut KernelRun, n: u64, s: &str) -> Result<()> {
        let k = self.m.kernel;
        let env = [("OMPADAPT_PERSIST", "0".into()), ("OMPADAPT_EXPLORE", s.to_owned()), ("OMPADAPT_MODEL", self.m.model.1.clone())];
        let o = self.reported(n, &format!("online-{s}"), &env)?;
        self.log.add(k.name, n, &format!("online-{s}"), "", &o);
        let e = r.online.entry((s.to_owned(), n)).or_insert_with(|| (Vec::new(), o.majority(), o.minority_executions()));
        e.0.push(o.steady_s);
        r.adaptive.entry((format!("Online ({s})"), n)).or_default().push(o);
        Ok(())
    }
}

/// Every combination of `variants` variants over `regions` regions (the first region's
/// variant varying fastest).
fn combinations(variants: usize, regions: usize) -> Vec<Vec<usize>> {
    (0..variants.pow(regions as u32))
        .map(|mut c| {
            (0..regions)
                .map(|_| {
                    let v = c % variants;
                    c /= variants;
                    v
                })
                .collect()
        })
        .collect()
}

/// The region's data with one row per input, in input order (the feature grows with the
/// input in every kernel).
fn by_input(c: &TrainingSet, inputs: usize) -> Result<TrainingSet> {
    if c.n() != inputs {
        bail!("{} feature vectors stored for {inputs} inputs", c.n());
    }
    let mut idx: Vec<usize> = (0..c.n()).collect();
    idx.sort_by(|&a, &b| c.row(a).partial_cmp(c.row(b)).unwrap_or(std::cmp::Ordering::Equal));
    Ok(c.subset(&idx))
}
