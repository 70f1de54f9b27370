//! The harness's numbers: comparators per input, the summary tables (accuracy against the
//! oracle, speedup over the use-case's baseline, overhead after training, exploration cost) and
//! the CSV files.

use std::fmt::Write as _;
use std::path::Path;

use std::collections::BTreeMap;

use anyhow::Result;
use ompadapt_evaluate::Method;
use ompadapt_rt::stats::median_f64;
use serde_json::{json, Map, Value};

use super::kernels::UseCase;
use super::measure::{fastest, Doubt, KernelRun};
use super::runner::{RunLog, Toolchain};

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
    // one static comparator per variant (every region on it): Static CPU and Static GPU, or
    // one per thread limit or co-scheduled fraction
    let mut out: Vec<Comparator> = (0..r.variants.len()).map(|v| fixed(static_name(r, v), r.uniform(v))).collect();
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

/// Writes the CSV files, `summary.json` and `summary.md`; returns the summary.
#[allow(clippy::too_many_arguments)]
pub fn write_all(
    out: &Path,
    results: &[KernelRun],
    log: &RunLog,
    strategies: &[String],
    method: &Method,
    tc: &Toolchain,
    repeats: usize,
    doubt: &Doubt,
) -> Result<Value> {
    let mut runs = String::from("kernel,input,mode,pinned,time_s,decisions,steady_s\n");
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
    let machine = machine(tc);
    let md = t.markdown(&machine, repeats, doubt)?;
    std::fs::write(out.join("summary.md"), &md)?;
    let summary = json!({
        "machine": machine,
        "repeats": repeats,
        "method": {"k": method.k, "shuffles": method.shuffles, "tolerance": TOLERANCE, "doubt_band": doubt.band, "doubt_repeats": doubt.repeats},
        "pooled_accuracy": t.pooled.iter().map(|(k, (w, d))| (k.clone(), json!({"within": w, "decisions": d}))).collect::<Map<_, _>>(),
        "kernels": t.kernels_json.into_iter().collect::<Map<_, _>>(),
    });
    std::fs::write(out.join("summary.json"), serde_json::to_string_pretty(&summary)?)?;
    Ok(summary)
}

/// The machine the runs ran on, as the summary names it.
fn machine(tc: &Toolchain) -> String {
    format!(
        "{} ({} cores), offload target {}{}",
        cpu_model(),
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        tc.targets,
        if tc.targets.starts_with("x86_64") {
            " — HOST OFFLOAD: the \"gpu\" variant runs on libomptarget's host plugin, not on a GPU"
        } else {
            ""
        }
    )
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
    noise_rows: Vec<Vec<String>>,
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
            noise_rows: Vec::new(),
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
        self.noise(r, &mut kj);
        kj.insert("use_case".into(), json!(uc.label()));
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
        for v in 0..r.variants.len() {
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
                    c.name,
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
                    writeln!(self.dec_csv, "{},{},{},{},{},{n}", r.kernel.name, c.name, p.input, r.kernel.regions[reg], r.variants[v])?;
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
            format!("{} of {}", r.in_doubt.len(), r.inputs.len()),
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
            for c in &r.profiles {
                if let Ok(sc) = ompadapt_evaluate::adaptive_k(c, &[r.choice], &one) {
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

    /// How far apart the variants are, against how much one configuration's runs vary.
    fn noise(&mut self, r: &KernelRun, kj: &mut Map<String, Value>) {
        let spreads: Vec<f64> =
            r.combos.values().filter(|t| t.len() > 1).map(|t| t.iter().copied().fold(f64::MIN, f64::max) / fastest(t) - 1.0).collect();
        let spread = median_f64(&spreads).unwrap_or(f64::NAN);
        // the gap between the two fastest configurations (for CPU/GPU: between CPU and GPU)
        let gaps: Vec<f64> = r
            .inputs
            .iter()
            .map(|&n| {
                let ranked = r.ranked(n);
                ranked.get(1).map_or(f64::NAN, |second| second.1 / ranked[0].1 - 1.0)
            })
            .collect();
        let apart = gaps.iter().filter(|&&g| g > spread.max(TOLERANCE)).count();
        self.noise_rows.push(vec![
            r.kernel.name.to_owned(),
            pct(spread),
            pct(median_f64(&gaps).unwrap_or(f64::NAN)),
            format!("{apart} of {}", r.inputs.len()),
            format!("{} of {}", r.in_doubt.len(), r.inputs.len()),
        ]);
        kj.insert(
            "noise".into(),
            json!({"run_spread_median": spread, "best_two_gap_median": median_f64(&gaps), "inputs_apart": apart, "inputs_in_doubt": r.in_doubt}),
        );
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

    /// `summary.md`: how the runs were made, then every table.
    fn markdown(&mut self, machine: &str, repeats: usize, doubt: &Doubt) -> Result<String> {
        let method = self.method;
        let mut md = String::new();
        writeln!(md, "Machine: {machine}. Runs per measured configuration: {repeats} (the fastest counts); at an input whose two fastest static configurations are within {:.0} % of each other, every static configuration of that input gets {} more runs. K-fold: K = {}, {} shuffles. Times: all steps of a run but the first (the first pays one-off costs: thread and device start-up, loading the store, training; shown apart). Decision within {:.0} % of the oracle counts as right. Baselines: Static GPU (CPU/GPU), Static thread_limit=256 (GPU threads), Static coschedule=1 (co-scheduling: GPU only).\n", doubt.band * 100.0, doubt.repeats, method.k, method.shuffles, TOLERANCE * 100.0)?;
        self.add_totals();
        let mut h = vec!["kernel".to_owned()];
        h.extend(self.header.iter().cloned());
        writeln!(md, "### Accuracy: decisions within {:.0} % of the oracle (fastest measured variant per input)\n", TOLERANCE * 100.0)?;
        md += &table(h.clone(), &self.acc_rows);
        writeln!(md, "\n### Adaptive-50 end to end, judged by the regular {repeats} runs per configuration only and by all runs (with the {} extra runs of every configuration at inputs in doubt)\n", doubt.repeats)?;
        md += &table(vec!["kernel".into(), "regular runs only".into(), "all runs".into(), "inputs in doubt".into()], &self.doubt_rows);
        writeln!(md, "\n### Accuracy against the stored measurements the models learn from (Adaptive-K on the profiling data, as Liao et al. score prediction accuracy; regions pooled)\n")?;
        md += &table(vec!["kernel".into(), "Adaptive-25".into(), "Adaptive-50".into(), "Adaptive-75".into()], &self.profile_rows);
        writeln!(md, "\n### Noise: median spread of one configuration's runs (slowest / fastest − 1), median gap between the two fastest configurations (CPU/GPU: between CPU and GPU), inputs where the gap exceeds both the spread and 5 %, inputs in doubt (more runs)\n")?;
        md += &table(
            vec![
                "kernel".into(),
                "run-to-run spread".into(),
                "gap of the best two".into(),
                "inputs apart".into(),
                "inputs in doubt".into(),
            ],
            &self.noise_rows,
        );
        writeln!(md, "\n### Speedup over the baseline (geometric mean over the inputs, and the largest)\n")?;
        md += &table(h, &self.speed_rows);
        writeln!(md, "\n### Static variants: speedup of each variant run everywhere over the baseline (geometric mean over the inputs)\n")?;
        let widest = self.static_rows.iter().map(|r| r.len()).max().unwrap_or(2);
        let mut sh = vec!["kernel".to_owned(), "baseline".to_owned()];
        sh.extend((2..widest).map(|i| format!("variant {}", i - 1)));
        md += &table(sh, &self.static_rows);
        writeln!(md, "\n### Overhead after training: Adaptive-100's runs against static runs of the variants it chose, against the oracle, and the one-off cost in the first step (loading the store, training; median over inputs)\n")?;
        md += &table(
            vec!["kernel".into(), "geometric mean".into(), "median".into(), "against the oracle".into(), "first step, extra".into()],
            &self.over_rows,
        );
        writeln!(md, "\n### Exploration cost: Online runs (nothing stored, explore + train + decide in the run) against Adaptive-100's runs, and executions not on the run's final choice\n")?;
        let mut eh = vec!["kernel".to_owned()];
        eh.extend(self.strategies.iter().cloned());
        md += &table(eh, &self.explore_rows);
        Ok(md)
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split_once(':')).map(|(_, v)| v.trim().to_owned()))
        .unwrap_or_else(|| "unknown CPU".into())
}
