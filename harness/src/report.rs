//! The harness's numbers: comparators per input, the summary tables (measurement quality,
//! accuracy against the oracle, speedup over the use-case's baseline, overhead after training,
//! its excess explained, exploration cost) and the CSV files.

use std::fmt::Write as _;
use std::path::Path;

use std::collections::BTreeMap;

use anyhow::Result;
use ompadapt_evaluate::Method;
use ompadapt_rt::model::TrainingSet;
use ompadapt_rt::stats::median_f64;
use serde_json::{json, Map, Value};

use super::excess::{self, Cause};
use super::kernels::UseCase;
use super::machine::Machine;
use super::measure::{fastest, Doubt, KernelRun};
use super::quality::{self, Quality};
use super::runner::{csv_field, RunLog};

/// A decision within this fraction of the oracle's time counts as right (Georgakoudis et al.: 5 %).
pub const TOLERANCE: f64 = 0.05;

/// One comparator at one input.
#[derive(Clone, Debug)]
pub struct Point {
    pub input: u64,
    /// Time of the run (or, for the K-fold models, mean time of the decided combinations).
    pub time: f64,
    /// Decisions made at this input and how many were within [`TOLERANCE`] of the oracle.
    pub decisions: usize,
    pub within: usize,
    /// The combinations decided (violins).
    pub combos: Vec<Vec<usize>>,
}

pub struct Comparator {
    pub name: String,
    pub points: Vec<Point>,
}

impl Comparator {
    pub fn within(&self) -> (usize, usize) {
        (self.points.iter().map(|p| p.within).sum(), self.points.iter().map(|p| p.decisions).sum())
    }
}

pub fn comparators(r: &KernelRun, strategies: &[String]) -> Vec<Comparator> {
    let oracle = |n: u64| r.oracle(n).1;
    let ok = |n: u64, combo: &[usize]| (r.time(n, combo) <= oracle(n) * (1.0 + TOLERANCE)) as usize;
    let fixed = |name: String, combo: Vec<usize>| Comparator {
        name,
        points: r
            .inputs
            .iter()
            .map(|&n| Point { input: n, time: r.time(n, &combo), decisions: 1, within: ok(n, &combo), combos: vec![combo.clone()] })
            .collect(),
    };
    // one static comparator per variant that runs here (every region on it): Static CPU and
    // Static GPU, or one per thread limit, co-scheduled fraction, team or schedule
    let mut out: Vec<Comparator> = r.available.iter().map(|&v| fixed(static_name(r, v), r.uniform(v))).collect();
    out.extend([
        fixed(format!("Static Best ({})", r.variants[r.static_best()]), r.uniform(r.static_best())),
        Comparator {
            name: "Oracle".into(),
            points: r
                .inputs
                .iter()
                .map(|&n| Point { input: n, time: oracle(n), decisions: 1, within: 1, combos: vec![r.oracle(n).0] })
                .collect(),
        },
    ]);
    for s in strategies {
        out.push(Comparator {
            name: format!("Online ({s})"),
            points: r
                .inputs
                .iter()
                .filter_map(|&n| {
                    r.online.get(&(s.clone(), n)).map(|(t, c, _)| Point {
                        input: n,
                        time: fastest(t),
                        decisions: 1,
                        within: ok(n, c),
                        combos: vec![c.clone()],
                    })
                })
                .collect(),
        });
    }
    for pct in [25u32, 50, 75] {
        let points: Vec<Point> = r
            .inputs
            .iter()
            .filter_map(|&n| {
                let combos = r.folds.get(&(pct, n))?;
                let time = combos.iter().map(|c| r.time(n, c)).sum::<f64>() / combos.len() as f64;
                Some(Point {
                    input: n,
                    time,
                    decisions: combos.len(),
                    within: combos.iter().map(|c| ok(n, c)).sum(),
                    combos: combos.clone(),
                })
            })
            .collect();
        if !points.is_empty() {
            out.push(Comparator { name: format!("Adaptive-{pct}"), points });
        }
    }
    out.push(Comparator {
        name: "Adaptive-100".into(),
        points: r
            .inputs
            .iter()
            .filter_map(|&n| {
                r.a100.get(&n).map(|(t, c)| Point { input: n, time: fastest(t), decisions: 1, within: ok(n, c), combos: vec![c.clone()] })
            })
            .collect(),
    });
    out
}

/// The K-fold decisions of Adaptive-`pct` within [`TOLERANCE`] of the oracle when every
/// configuration counts only its first `r.repeats` runs (none of the extra runs in doubt).
pub fn regular_within(r: &KernelRun, pct: u32) -> (usize, usize) {
    let time = |n: u64, c: &[usize]| r.combos.get(&(n, c.to_vec())).map_or(f64::NAN, |t| fastest(&t[..t.len().min(r.repeats)]));
    let (mut w, mut d) = (0, 0);
    for &n in &r.inputs {
        let oracle = r.combos.keys().filter(|(i, _)| *i == n).map(|(_, c)| time(n, c)).fold(f64::NAN, f64::min);
        for c in r.folds.get(&(pct, n)).into_iter().flatten() {
            d += 1;
            w += (time(n, c) <= oracle * (1.0 + TOLERANCE)) as usize;
        }
    }
    (w, d)
}

/// The static comparator of variant `v`: "Static CPU"/"Static GPU" as in Georgakoudis et al., else
/// "Static thread_limit=64", "Static coschedule=0.5", ...
pub fn static_name(r: &KernelRun, v: usize) -> String {
    match r.variants[v].as_str() {
        "cpu" => "Static CPU".into(),
        "gpu" => "Static GPU".into(),
        name => format!("Static {name}"),
    }
}

/// The summary's first paragraph: the machine and its load, how the runs were made.
fn method_text(method: &Method, info: &RunInfo) -> String {
    let (doubt, load) = (info.doubt, info.load);
    format!(
        "Machine: {}. Load average {:.1} when the runs began, {:.1} when they ended. Inputs sized by the calibration so that a run's measured part (all steps but the first) reaches {:.0} ms with the fastest variant. Runs per measured configuration: {} (the fastest counts); at an input whose two fastest static configurations are within {:.0} % of each other, every static configuration of that input gets {} more runs (re-measured). K-fold: K = {}, {} shuffles. The first step pays one-off costs (thread and device start-up, loading the store, training): shown apart. Decision within {:.0} % of the oracle counts as right. Baselines: Static GPU (CPU/GPU), Static thread_limit=256 (GPU threads), Static coschedule=1 (co-scheduling: GPU only), Static threads=1 (host loops: the program as written).\n\n",
        info.machine.describe(),
        load.0,
        load.1,
        info.target_s * 1e3,
        info.repeats,
        doubt.band * 100.0,
        doubt.repeats,
        method.k,
        method.shuffles,
        TOLERANCE * 100.0
    )
}

fn geomean(v: impl IntoIterator<Item = f64>) -> f64 {
    let (s, n) = v.into_iter().filter(|x| x.is_finite() && *x > 0.0).fold((0.0, 0usize), |(s, n), x| (s + x.ln(), n + 1));
    if n == 0 {
        f64::NAN
    } else {
        (s / n as f64).exp()
    }
}

fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{:.1} %", x * 100.0)
    } else {
        "—".into()
    }
}

/// Decisions within tolerance and decisions made, per comparator.
type Pooled = BTreeMap<String, (usize, usize)>;

/// How the runs were made, for the summary's first lines.
pub struct RunInfo<'a> {
    pub machine: &'a Machine,
    pub repeats: usize,
    pub doubt: &'a Doubt,
    /// The measured part the calibration sized every input for, s.
    pub target_s: f64,
    /// The load average when the runs began and when they ended.
    pub load: (f64, f64),
}

/// Writes the CSV files, `summary.json` and `summary.md`; returns the summary.
pub fn write_all(out: &Path, results: &[KernelRun], log: &RunLog, strategies: &[String], method: &Method, info: &RunInfo) -> Result<Value> {
    let mut runs = format!("{}\n", RunLog::HEADER);
    for r in log.rows() {
        runs += r;
        runs.push('\n');
    }
    std::fs::write(out.join("runs.csv"), runs)?;
    let mut t = Tables::new(strategies, method);
    for r in results {
        t.add_kernel(r)?;
    }
    std::fs::write(out.join("comparators.csv"), &t.comp_csv)?;
    std::fs::write(out.join("decisions.csv"), &t.dec_csv)?;
    std::fs::write(out.join("configurations.csv"), &t.conf_csv)?;
    std::fs::write(out.join("excess.csv"), &t.excess_csv)?;
    let md = t.markdown(info)?;
    std::fs::write(out.join("summary.md"), &md)?;
    let (repeats, doubt) = (info.repeats, info.doubt);
    let summary = json!({
        "machine": info.machine.describe(),
        "load_average": {"start": info.load.0, "end": info.load.1},
        "repeats": repeats,
        "method": {"k": method.k, "shuffles": method.shuffles, "tolerance": TOLERANCE, "doubt_band": doubt.band, "doubt_repeats": doubt.repeats, "target_measured_s": info.target_s, "excess_listed": excess::LISTED},
        "pooled_accuracy": t.pooled.iter().map(|(k, (w, d))| (k.clone(), json!({"within": w, "decisions": d}))).collect::<Map<_, _>>(),
        "kernels": t.kernels_json.into_iter().collect::<Map<_, _>>(),
    });
    std::fs::write(out.join("summary.json"), serde_json::to_string_pretty(&summary)?)?;
    Ok(summary)
}

/// Whether a comparator has a column in the accuracy and speedup tables.
fn shown(name: &str) -> bool {
    name.starts_with("Adaptive") || name.starts_with("Online") || name.starts_with("Static Best")
}

/// A comparator's column: "Static Best (gpu)" is "Static Best" in every kernel's row.
fn column(name: &str) -> String {
    if name.starts_with("Static Best") {
        "Static Best".to_owned()
    } else {
        name.to_owned()
    }
}

/// A Markdown table.
fn table(head: Vec<String>, rows: &[Vec<String>]) -> String {
    let mut t = format!("| {} |\n|{}\n", head.join(" | "), "---|".repeat(head.len()));
    for r in rows {
        t += &format!("| {} |\n", r.join(" | "));
    }
    t
}

/// `w` of `d` as a percentage with its counts.
fn share(w: usize, d: usize) -> String {
    format!("{} ({w}/{d})", pct(w as f64 / d.max(1) as f64))
}

/// The rows of every table and CSV file, filled kernel by kernel; the JSON per kernel.
struct Tables<'a> {
    strategies: &'a [String],
    method: &'a Method,
    comp_csv: String,
    dec_csv: String,
    kernels_json: Vec<(String, Value)>,
    /// Accuracy pooled over all kernels, and per use-case.
    pooled: Pooled,
    pooled_uc: Vec<(UseCase, Pooled)>,
    /// The comparator columns of the accuracy and speedup tables.
    header: Vec<String>,
    acc_rows: Vec<Vec<String>>,
    speed_rows: Vec<Vec<String>>,
    static_rows: Vec<Vec<String>>,
    doubt_rows: Vec<Vec<String>>,
    /// Adaptive-50 within and decided, by the regular runs and by all runs.
    doubt_pooled: (usize, usize, usize, usize),
    over_rows: Vec<Vec<String>>,
    explore_rows: Vec<Vec<String>>,
    profile_rows: Vec<Vec<String>>,
    /// Within (weighted by decisions) and decisions, per training fraction 25, 50, 75 %.
    profile_pooled: [(f64, usize); 3],
    quality_rows: Vec<Vec<String>>,
    conf_csv: String,
    /// Every excess explained, and per kernel the cases per cause.
    excess_rows: Vec<Vec<String>>,
    cause_rows: Vec<Vec<String>>,
    excess_csv: String,
    /// Lines under the quality table (variants that do not run here).
    notes: Vec<String>,
}

impl<'a> Tables<'a> {
    fn new(strategies: &'a [String], method: &'a Method) -> Tables<'a> {
        Tables {
            strategies,
            method,
            comp_csv: String::from("kernel,input,comparator,time_s,speedup_vs_baseline,decisions,within_5pct\n"),
            dec_csv: String::from("kernel,comparator,input,region,variant,count\n"),
            kernels_json: Vec::new(),
            pooled: Pooled::new(),
            pooled_uc: Vec::new(),
            header: Vec::new(),
            acc_rows: Vec::new(),
            speed_rows: Vec::new(),
            static_rows: Vec::new(),
            doubt_rows: Vec::new(),
            doubt_pooled: (0, 0, 0, 0),
            over_rows: Vec::new(),
            explore_rows: Vec::new(),
            profile_rows: Vec::new(),
            profile_pooled: [(0.0, 0); 3],
            quality_rows: Vec::new(),
            conf_csv: quality::CONFIGURATIONS_HEADER.to_owned(),
            excess_rows: Vec::new(),
            cause_rows: Vec::new(),
            notes: Vec::new(),
            excess_csv: String::from("kernel,input,comparator,chosen,run_s,static_s,excess,exploring,exploring_other,exploration_s,drifts,off_choice,off_choice_s,training_s,overhead_max_s,rest_s,spread_s,first_step_extra_s,cause\n"),
        }
    }

    /// One kernel's row in every table, its CSV lines and its JSON.
    fn add_kernel(&mut self, r: &KernelRun) -> Result<()> {
        let comps = comparators(r, self.strategies);
        let base: BTreeMap<u64, f64> = r.inputs.iter().map(|&n| (n, r.base_time(n))).collect();
        let uc = r.kernel.use_case;
        if !self.pooled_uc.iter().any(|(u, _)| *u == uc) {
            self.pooled_uc.push((uc, Default::default()));
        }
        let sj = self.static_speedups(r, &base);
        self.csv_lines(r, &comps, &base)?;
        let mut kj = self.accuracy_and_speedup(r, &comps, &base);
        self.doubt(r, &comps, &mut kj);
        self.overhead(r, &mut kj);
        let exj = self.exploration(r);
        self.profile_accuracy(r, &mut kj);
        self.quality(r, &mut kj);
        self.excess(r, &mut kj)?;
        kj.insert("use_case".into(), json!(uc.label()));
        kj.insert("unavailable".into(), r.unavailable.iter().map(|(v, why)| (v.clone(), json!(why))).collect::<Map<_, _>>().into());
        kj.insert("steps".into(), r.steps.iter().map(|(n, s)| (n.to_string(), json!(s))).collect::<Map<_, _>>().into());
        kj.insert("baseline".into(), json!(uc.baseline().1));
        kj.insert("static_speedup_geomean".into(), Value::Object(sj));
        kj.insert("exploration".into(), Value::Object(exj));
        kj.insert("inputs".into(), json!(r.inputs));
        kj.insert("models".into(), json!(r.models.iter().map(|(reg, t)| json!({"region": reg, "text": t})).collect::<Vec<_>>()));
        self.kernels_json.push((r.kernel.name.to_owned(), Value::Object(kj)));
        Ok(())
    }

    /// Speedup of each variant run everywhere over the baseline.
    fn static_speedups(&mut self, r: &KernelRun, base: &BTreeMap<u64, f64>) -> Map<String, Value> {
        let mut srow = vec![r.kernel.name.to_owned(), r.kernel.use_case.baseline().1.trim_start_matches("Static ").to_owned()];
        let mut sj = Map::new();
        for &v in &r.available {
            let g = geomean(r.inputs.iter().map(|&n| base[&n] / r.time(n, &r.uniform(v))));
            srow.push(format!("{}: {g:.2}×", r.variants[v]));
            sj.insert(r.variants[v].clone(), json!(g));
        }
        self.static_rows.push(srow);
        sj
    }

    /// The comparators' lines of `comparators.csv` and `decisions.csv`.
    fn csv_lines(&mut self, r: &KernelRun, comps: &[Comparator], base: &BTreeMap<u64, f64>) -> Result<()> {
        for c in comps {
            for p in &c.points {
                writeln!(
                    self.comp_csv,
                    "{},{},{},{:.9},{:.4},{},{}",
                    r.kernel.name,
                    p.input,
                    csv_field(&c.name),
                    p.time,
                    base[&p.input] / p.time,
                    p.decisions,
                    p.within
                )?;
                let mut counts: BTreeMap<(usize, usize), usize> = Default::default();
                for combo in &p.combos {
                    for (reg, &v) in combo.iter().enumerate() {
                        *counts.entry((reg, v)).or_default() += 1;
                    }
                }
                for ((reg, v), n) in counts {
                    let (name, variant) = (csv_field(&c.name), csv_field(&r.variants[v]));
                    writeln!(self.dec_csv, "{},{name},{},{},{variant},{n}", r.kernel.name, p.input, r.kernel.regions[reg])?;
                }
            }
        }
        Ok(())
    }

    /// The kernel's accuracy and speedup rows, pooled into the totals; returns the kernel's
    /// JSON with one entry per comparator shown.
    fn accuracy_and_speedup(&mut self, r: &KernelRun, comps: &[Comparator], base: &BTreeMap<u64, f64>) -> Map<String, Value> {
        let uc = r.kernel.use_case;
        let shown: Vec<&Comparator> = comps.iter().filter(|c| shown(&c.name)).collect();
        if self.header.is_empty() {
            self.header = shown.iter().map(|c| column(&c.name)).collect();
        }
        let mut acc = vec![format!("{} ({}, {})", r.kernel.name, r.kernel.models, uc.label())];
        let mut speed = vec![r.kernel.name.to_owned()];
        let mut kj = Map::new();
        for c in &shown {
            let (w, d) = c.within();
            let key = column(&c.name);
            let e = self.pooled.entry(key.clone()).or_default();
            e.0 += w;
            e.1 += d;
            if let Some((_, m)) = self.pooled_uc.iter_mut().find(|(u, _)| *u == uc) {
                let e = m.entry(key.clone()).or_default();
                e.0 += w;
                e.1 += d;
            }
            acc.push(share(w, d));
            let g = geomean(c.points.iter().map(|p| base[&p.input] / p.time));
            let mx = c.points.iter().map(|p| base[&p.input] / p.time).fold(f64::NAN, f64::max);
            speed.push(format!("{g:.2}× (max {mx:.2}×)"));
            kj.insert(key, json!({"within": w, "decisions": d, "speedup_geomean": g, "speedup_max": mx}));
        }
        self.acc_rows.push(acc);
        self.speed_rows.push(speed);
        kj
    }

    /// What the extra runs at inputs in doubt changed: Adaptive-50 judged by the regular runs
    /// only, beside the same decisions judged by all runs.
    fn doubt(&mut self, r: &KernelRun, comps: &[Comparator], kj: &mut Map<String, Value>) {
        let (rw, rd) = regular_within(r, 50);
        let (aw, ad) = comps.iter().find(|c| c.name == "Adaptive-50").map_or((0, 0), |c| c.within());
        self.doubt_rows.push(vec![
            r.kernel.name.to_owned(),
            share(rw, rd),
            share(aw, ad),
            format!("{} of {}", r.remeasured.len(), r.inputs.len()),
        ]);
        self.doubt_pooled.0 += rw;
        self.doubt_pooled.1 += rd;
        self.doubt_pooled.2 += aw;
        self.doubt_pooled.3 += ad;
        kj.insert("adaptive50_regular_runs_only".into(), json!({"within": rw, "decisions": rd}));
    }

    /// Overhead of the trained path: Adaptive-100's runs against the static runs of the
    /// combination they chose (same variants, no decisions); the first step apart (one-off:
    /// loading the store and training).
    fn overhead(&mut self, r: &KernelRun, kj: &mut Map<String, Value>) {
        let over: Vec<f64> = r.a100.iter().map(|(&n, (t, c))| fastest(t) / r.time(n, c)).collect();
        let vs_oracle: Vec<f64> = r.a100.iter().map(|(&n, (t, _))| fastest(t) / r.oracle(n).1).collect();
        let one_off: Vec<f64> = r.first.values().map(|(s, a)| fastest(a) - fastest(s)).filter(|x| x.is_finite()).collect();
        let med = median_f64(&over).unwrap_or(f64::NAN);
        let one = median_f64(&one_off).unwrap_or(f64::NAN);
        self.over_rows.push(vec![
            r.kernel.name.to_owned(),
            pct(geomean(over.iter().copied()) - 1.0),
            pct(med - 1.0),
            pct(geomean(vs_oracle.iter().copied()) - 1.0),
            format!("{:.2} ms", one * 1e3),
        ]);
        kj.insert("overhead_after_training".into(), json!({"geomean": geomean(over.iter().copied()) - 1.0, "median": med - 1.0, "vs_oracle_geomean": geomean(vs_oracle.iter().copied()) - 1.0, "first_step_extra_s_median": one}));
    }

    /// Exploration cost per strategy: Online runs against Adaptive-100's, and the executions
    /// off the final choice; returns the kernel's JSON of it.
    fn exploration(&mut self, r: &KernelRun) -> Map<String, Value> {
        let mut ex = vec![r.kernel.name.to_owned()];
        let mut exj = Map::new();
        for s in self.strategies {
            let ratio: Vec<f64> =
                r.inputs.iter().filter_map(|&n| Some(fastest(&r.online.get(&(s.clone(), n))?.0) / fastest(&r.a100.get(&n)?.0))).collect();
            let execs: Vec<f64> = r.inputs.iter().filter_map(|&n| r.online.get(&(s.clone(), n)).map(|o| o.2 as f64)).collect();
            let g = geomean(ratio.iter().copied()) - 1.0;
            let mean_execs = execs.iter().sum::<f64>() / execs.len().max(1) as f64;
            ex.push(format!("{} ({mean_execs:.1} exec.)", pct(g)));
            exj.insert(s.clone(), json!({"time_vs_adaptive100_geomean": g, "minority_executions_mean": mean_execs}));
        }
        self.explore_rows.push(ex);
        exj
    }

    /// The models against the measurements they learn from (Liao et al.'s prediction
    /// accuracy): Adaptive-K scoring on the stored data, pooled over regions.
    fn profile_accuracy(&mut self, r: &KernelRun, kj: &mut Map<String, Value>) {
        let mut prow = vec![r.kernel.name.to_owned()];
        let mut pj = Map::new();
        for (i, m) in [1usize, 2, 3].iter().enumerate() {
            let one = Method { train_groups: vec![*m], ..self.method.clone() };
            let (mut w, mut d, mut reg) = (0.0, 0usize, 0.0);
            for c in r.profiles.iter().filter_map(|c| available_only(c, &r.available)) {
                if let Ok(sc) = ompadapt_evaluate::adaptive_k(&c, &[r.choice], &one) {
                    w += sc[0].within * sc[0].decisions as f64;
                    reg += sc[0].mean_regret * sc[0].decisions as f64;
                    d += sc[0].decisions;
                }
            }
            self.profile_pooled[i].0 += w;
            self.profile_pooled[i].1 += d;
            prow.push(format!("{} ({:.2} % mean regret)", pct(w / d.max(1) as f64), 100.0 * reg / d.max(1) as f64));
            pj.insert(
                format!("Adaptive-{}", m * 25),
                json!({"within": w / d.max(1) as f64, "decisions": d, "mean_regret": reg / d.max(1) as f64}),
            );
        }
        self.profile_rows.push(prow);
        kj.insert("profile_accuracy".into(), Value::Object(pj));
    }

    /// Whether the kernel's runs measured the variants or the machine: the shortest measured
    /// part, the run-to-run spread, the gap of the best two, the inputs in doubt.
    fn quality(&mut self, r: &KernelRun, kj: &mut Map<String, Value>) {
        let q = Quality::of(r);
        let runs: Vec<usize> = r.combos.values().map(Vec::len).collect();
        let (lo, hi) = (runs.iter().min().copied().unwrap_or(0), runs.iter().max().copied().unwrap_or(0));
        self.quality_rows.push(vec![
            r.kernel.name.to_owned(),
            format!("{:.1} ms", q.shortest_s * 1e3),
            if lo == hi { lo.to_string() } else { format!("{lo}–{hi}") },
            pct(q.spread_median),
            pct(q.spread_max),
            pct(q.gap_median),
            q.in_doubt_text(),
            format!("{} of {}", r.remeasured.len(), r.inputs.len()),
        ]);
        quality::configuration_lines(r, &mut self.conf_csv);
        for (v, why) in &r.unavailable {
            self.notes.push(format!("{}: `{v}` does not run here ({why}); it has no static comparator and no run measures it.", r.kernel.name));
        }
        let mut qj = q.json();
        qj["inputs_remeasured"] = json!(r.remeasured);
        kj.insert("quality".into(), qj);
    }

    /// Every input where an adaptive comparator ran more than 1 % slower than the static run of
    /// its choice, explained; the kernel's cases per cause.
    fn excess(&mut self, r: &KernelRun, kj: &mut Map<String, Value>) -> Result<()> {
        let cases = excess::explain(r);
        let mut per_cause = vec![0usize; Cause::ALL.len()];
        for e in &cases {
            per_cause[Cause::ALL.iter().position(|c| *c == e.cause()).unwrap_or(0)] += 1;
            self.excess_rows.push(vec![
                e.kernel.clone(),
                e.input.to_string(),
                e.comparator.clone(),
                e.chosen.clone(),
                format!("{} ({:.2} ms)", pct(e.excess()), (e.run_s - e.static_s) * 1e3),
                e.cause().label().to_owned(),
                e.why(),
                format!("{:.2} ms", e.first_step_extra_s * 1e3),
            ]);
            writeln!(
                self.excess_csv,
                "{},{},{},{},{:.9},{:.9},{:.4},{},{},{:.9},{},{},{:.9},{:.9},{:.9},{:.9},{:.9},{:.9},{}",
                e.kernel,
                e.input,
                csv_field(&e.comparator),
                csv_field(&e.chosen),
                e.run_s,
                e.static_s,
                e.excess(),
                e.exploring,
                e.exploring_other,
                e.exploration_s,
                e.drifts,
                e.off_choice,
                e.off_choice_s,
                e.training_s,
                e.overhead_s,
                e.rest_s(),
                e.spread_s,
                e.first_step_extra_s,
                e.cause().label()
            )?;
        }
        let listed = r.adaptive.keys().count();
        let mut row = vec![r.kernel.name.to_owned(), format!("{} of {listed}", cases.len())];
        row.extend(per_cause.iter().map(|n| n.to_string()));
        self.cause_rows.push(row);
        let by_cause: Map<String, Value> = Cause::ALL.iter().zip(&per_cause).map(|(c, n)| (c.label().to_owned(), json!(n))).collect();
        kj.insert("excess".into(), json!({"cases": cases.len(), "of": listed, "by_cause": by_cause}));
        Ok(())
    }

    /// The rows over all kernels (and, with several use-cases, over each use-case).
    fn add_totals(&mut self) {
        if self.pooled_uc.len() > 1 {
            for (uc, m) in &self.pooled_uc {
                let mut row = vec![format!("*all {}*", uc.label())];
                for h in &self.header {
                    let (w, d) = m.get(h).copied().unwrap_or((0, 0));
                    row.push(format!("*{}* ({w}/{d})", pct(w as f64 / d.max(1) as f64)));
                }
                self.acc_rows.push(row);
            }
        }
        let mut all = vec!["**all kernels**".to_owned()];
        for h in &self.header {
            let (w, d) = self.pooled.get(h).copied().unwrap_or((0, 0));
            all.push(format!("**{}** ({w}/{d})", pct(w as f64 / d.max(1) as f64)));
        }
        self.acc_rows.push(all);
        let p = self.doubt_pooled;
        self.doubt_rows.push(vec![
            "**all kernels**".into(),
            format!("**{}** ({}/{})", pct(p.0 as f64 / p.1.max(1) as f64), p.0, p.1),
            format!("**{}** ({}/{})", pct(p.2 as f64 / p.3.max(1) as f64), p.2, p.3),
            String::new(),
        ]);
        let mut prow = vec!["**all kernels**".to_owned()];
        for (w, d) in self.profile_pooled {
            prow.push(format!("**{}** ({d} decisions)", pct(w / d.max(1) as f64)));
        }
        self.profile_rows.push(prow);
        let widest = self.static_rows.iter().map(|r| r.len()).max().unwrap_or(2);
        for r in &mut self.static_rows {
            r.resize(widest, String::new());
        }
    }

    /// `summary.md`: how the runs were made, whether they measured the variants or the machine,
    /// then every table.
    fn markdown(&mut self, info: &RunInfo) -> Result<String> {
        self.add_totals();
        let mut md = method_text(self.method, info);
        md += &self.quality_md()?;
        md += &self.accuracy_md(info)?;
        md += &self.speed_md()?;
        md += &self.overhead_md()?;
        Ok(md)
    }

    /// The measurement-quality table, first: a reader sees at once whether the runs measured
    /// the variants or the machine.
    fn quality_md(&self) -> Result<String> {
        let mut md = String::new();
        writeln!(md, "### Measurement quality: shortest measured part of a static configuration (fastest run), runs per configuration, run-to-run spread of a configuration (slowest / fastest − 1: median and largest), median gap between each input's two fastest configurations, inputs in doubt (the gap smaller than either one's spread), inputs re-measured (close to a tie)\n")?;
        let head = ["kernel", "shortest measured part", "runs", "spread (median)", "spread (largest)", "gap of the best two", "inputs in doubt", "inputs re-measured"];
        md += &table(head.iter().map(|h| h.to_string()).collect(), &self.quality_rows);
        for n in &self.notes {
            writeln!(md, "\n{n}")?;
        }
        Ok(md)
    }

    fn accuracy_md(&self, info: &RunInfo) -> Result<String> {
        let mut md = String::new();
        let mut h = vec!["kernel".to_owned()];
        h.extend(self.header.iter().cloned());
        writeln!(md, "\n### Accuracy: decisions within {:.0} % of the oracle (fastest measured variant per input)\n", TOLERANCE * 100.0)?;
        md += &table(h, &self.acc_rows);
        writeln!(md, "\n### Adaptive-50 end to end, judged by the regular {} runs per configuration only and by all runs (with the {} extra runs of every configuration at inputs re-measured)\n", info.repeats, info.doubt.repeats)?;
        md += &table(vec!["kernel".into(), "regular runs only".into(), "all runs".into(), "inputs re-measured".into()], &self.doubt_rows);
        writeln!(md, "\n### Accuracy against the stored measurements the models learn from (Adaptive-K on the profiling data, as Liao et al. score prediction accuracy; regions pooled)\n")?;
        md += &table(vec!["kernel".into(), "Adaptive-25".into(), "Adaptive-50".into(), "Adaptive-75".into()], &self.profile_rows);
        Ok(md)
    }

    fn speed_md(&self) -> Result<String> {
        let mut md = String::new();
        let mut h = vec!["kernel".to_owned()];
        h.extend(self.header.iter().cloned());
        writeln!(md, "\n### Speedup over the baseline (geometric mean over the inputs, and the largest)\n")?;
        md += &table(h, &self.speed_rows);
        writeln!(md, "\n### Static variants: speedup of each variant run everywhere over the baseline (geometric mean over the inputs)\n")?;
        let widest = self.static_rows.iter().map(|r| r.len()).max().unwrap_or(2);
        let mut sh = vec!["kernel".to_owned(), "baseline".to_owned()];
        sh.extend((2..widest).map(|i| format!("variant {}", i - 1)));
        md += &table(sh, &self.static_rows);
        Ok(md)
    }

    /// Overhead after training, every excess explained, exploration cost.
    fn overhead_md(&self) -> Result<String> {
        let mut md = String::new();
        writeln!(md, "\n### Overhead after training: Adaptive-100's runs against static runs of the variants it chose, against the oracle, and the one-off cost in the first step (loading the store, training; median over inputs)\n")?;
        md += &table(
            vec!["kernel".into(), "geometric mean".into(), "median".into(), "against the oracle".into(), "first step, extra".into()],
            &self.over_rows,
        );
        writeln!(md, "\n### Excess explained: adaptive runs (Adaptive-100, Online) more than {:.0} % slower than the static run of the variant they chose, by what makes most of it\n", excess::LISTED * 100.0)?;
        let mut ch = vec!["kernel".to_owned(), "listed".to_owned()];
        ch.extend(Cause::ALL.iter().map(|c| c.label().to_owned()));
        md += &table(ch, &self.cause_rows);
        writeln!(md, "\nEach case: its fastest run against the fastest static run of the combination it ran most. Exploration and executions off its choice cost each execution's time on the run's feature vector (its report) minus the chosen variant's; decision and timing is an upper bound (22 ns per execution, 37 ns per exploring or timed one); the rest is judged against the larger of the static and the adaptive runs' spread (slowest − fastest). The first step (loading the store, training at start-up) is outside the measured part: shown apart.\n")?;
        let eh = ["kernel", "input", "comparator", "chose", "excess", "mostly", "why", "first step, extra"];
        md += &table(eh.iter().map(|h| h.to_string()).collect(), &self.excess_rows);
        writeln!(md, "\n### Exploration cost: Online runs (nothing stored, explore + train + decide in the run) against Adaptive-100's runs, and executions not on the run's final choice\n")?;
        let mut eh = vec!["kernel".to_owned()];
        eh.extend(self.strategies.iter().cloned());
        md += &table(eh, &self.explore_rows);
        Ok(md)
    }
}

/// A region's stored measurements on the variants that run here only: a variant that cannot
/// run (`threads=0.5` on 2 cores) is never measured, and the scoring judges only inputs with
/// every variant measured. `None` when no input has a measured variant left.
fn available_only(c: &TrainingSet, available: &[usize]) -> Option<TrainingSet> {
    let rows: Vec<Vec<f64>> = (0..c.n()).map(|i| c.row(i).to_vec()).collect();
    let times: Vec<Vec<f64>> = (0..c.n()).map(|i| available.iter().map(|&v| c.times(i)[v]).collect()).collect();
    TrainingSet::new(&rows, &times, available.len()).ok()
}
