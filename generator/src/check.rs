//! The differential check of one program: every adaptive build, with every region pinned to
//! each of its variants (all together, and one region at a time) and under the real runtime
//! (three runs on one store), must print what the stock build prints with the same team
//! (`OMP_NUM_THREADS`), with the same exit status.

use crate::ast::{Lang, Program};
use crate::emit::emit;
use crate::process::{run, shell_line, Outcome};
use crate::toolchain::{compile, Build, Built};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

pub const BUILD_LIMIT: Duration = Duration::from_secs(180);
pub const RUN_LIMIT: Duration = Duration::from_secs(30);
/// One-region-at-a-time pins are run while a build has at most this many (region, variant) pairs.
const MAX_SINGLE_PINS: usize = 40;

/// How an adaptive build is run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The first run: the real runtime, no store, the report read for the regions.
    Discover,
    /// Every region that has the variant pinned to it.
    PinAll(String),
    /// The `ordinal`-th region (by line) of block function `function` pinned to `variant`.
    PinOne { function: String, ordinal: usize, variant: String },
    /// The real runtime, `runs` runs on one store.
    Runtime(u32),
}

impl Mode {
    pub fn describe(&self) -> String {
        match self {
            Mode::Discover => "first run (real runtime, no store)".into(),
            Mode::PinAll(v) => format!("every region pinned to {v}"),
            Mode::PinOne { function, ordinal, variant } => format!("region {ordinal} of {function} pinned to {variant}"),
            Mode::Runtime(n) => format!("real runtime, {n} runs on one store"),
        }
    }
}

/// An adaptive run whose stdout or exit status is not stock's.
#[derive(Clone, Debug)]
pub struct Difference {
    pub build: Build,
    pub team: u32,
    pub mode: Mode,
    pub stock: Outcome,
    pub got: Outcome,
    /// The command lines that show it: the run's environment and executable.
    pub command: String,
}

/// A region of a run's report: its name and variants.
pub type Regions = Vec<(String, Vec<String>)>;

/// The verdict on one program.
#[derive(Debug, Default)]
pub struct Checked {
    pub stock_failed: Option<String>,
    pub stock_nondeterministic: bool,
    pub build_failures: Vec<(Build, String)>,
    pub differences: Vec<Difference>,
    /// Regions each adaptive build's runtime reported (first run at 2 threads).
    pub adaptive: BTreeMap<Build, usize>,
    /// (passed, missed) regions by the compiler's remarks, per adaptive build.
    pub remarks: BTreeMap<Build, (usize, usize)>,
    pub builds: Vec<String>,
    pub runs: usize,
}

/// Writes the program's files into `dir`; returns their names, the main file first.
pub fn write_sources(p: &Program, dir: &Path) -> Vec<String> {
    std::fs::create_dir_all(dir).expect("a case folder");
    let sources = emit(p);
    for (name, text) in &sources.files {
        std::fs::write(dir.join(name), text).expect("writing a source");
    }
    sources.files.into_iter().map(|(n, _)| n).collect()
}

/// The run of `exe` with `team` threads in the scratch folder `dir` and `env` on top.
pub fn run_command(p: &Program, exe: &Path, dir: &Path, team: u32, env: &[(&str, String)]) -> Command {
    let mut c = Command::new(exe);
    c.current_dir(dir);
    for v in
        ["OMPADAPT_REPORT", "OMPADAPT_VARIANT", "OMPADAPT_RUNTIME", "OMPADAPT_PERSIST", "OMPADAPT_TRACE", "OMPADAPT_FROZEN", "OMP_SCHEDULE"]
    {
        c.env_remove(v);
    }
    c.env("OMP_NUM_THREADS", team.to_string()).env("OMPADAPT_DIR", dir.join(".ompadapt"));
    if p.lang == Lang::Fortran && p.has_target() {
        // no offload image (flang-19 cannot link one): the launches take their host fallback
        c.env("OMP_TARGET_OFFLOAD", "DISABLED");
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

/// Regions of a JSON report, sorted by line.
pub fn report_regions(path: &Path) -> Regions {
    let Ok(text) = std::fs::read_to_string(path) else { return Vec::new() };
    let Ok(doc) = serde_json::from_str::<Value>(&text) else { return Vec::new() };
    let mut out: Regions = doc["regions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| {
            let name = r["region"].as_str()?.to_string();
            let variants = r["variants"].as_array()?.iter().filter_map(|v| Some(v.as_str()?.to_string())).collect();
            Some((name, variants))
        })
        .collect();
    out.sort_by_key(|(n, _)| (line_of(n), n.clone()));
    out
}

fn line_of(region: &str) -> u64 {
    region.rsplit(':').next().and_then(|l| l.split('#').next()?.parse().ok()).unwrap_or(0)
}

/// The report names of the regions a `PinOne` mode means: by block function and ordinal.
pub fn resolve_one(regions: &Regions, function: &str, ordinal: usize) -> Option<String> {
    regions.iter().filter(|(n, _)| n.split('@').next() == Some(function)).nth(ordinal).map(|(n, _)| n.clone())
}

/// (passed, missed) regions by the pass's remarks: OMPADAPT150/154 made a region adaptive;
/// 141-147, 153, 155 and 156 left one as written.
pub fn count_remarks(stderr: &str) -> (usize, usize) {
    let region = |l: &str| l.split("region '").nth(1).and_then(|r| r.split('\'').next()).map(str::to_string);
    let mut passed = std::collections::BTreeSet::new();
    let mut missed = std::collections::BTreeSet::new();
    for l in stderr.lines() {
        let Some(name) = region(l) else { continue };
        if l.contains("[OMPADAPT150]") || l.contains("[OMPADAPT154]") {
            passed.insert(name);
        } else if ["141", "142", "143", "144", "145", "146", "147", "153", "155", "156"]
            .iter()
            .any(|c| l.contains(&format!("[OMPADAPT{c}]")))
        {
            missed.insert(name);
        }
    }
    missed.retain(|n| !passed.contains(n));
    (passed.len(), missed.len())
}

/// Builds `p` in `dir` (stock and `builds`); the stock build comes first.
pub fn build_all(p: &Program, dir: &Path, builds: &[Build]) -> (Vec<String>, Vec<Built>) {
    let files = write_sources(p, dir);
    let mut all = vec![compile(p, dir, &files, Build::Stock, BUILD_LIMIT)];
    for b in builds {
        all.push(compile(p, dir, &files, *b, BUILD_LIMIT));
    }
    (files, all)
}

/// A scratch folder for one run (or one store of runs) under `dir`.
pub fn scratch(dir: &Path, tag: &str) -> PathBuf {
    let d = dir.join("runs").join(tag);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a run folder");
    d
}

/// Runs `mode` of `exe` with `team` threads and compares each run with `stock`; returns the
/// first difference, the regions the report listed (for `Discover`) and the runs made.
pub fn run_mode(
    p: &Program,
    exe: &Path,
    dir: &Path,
    team: u32,
    mode: &Mode,
    regions: &Regions,
    stock: &Outcome,
) -> (Option<(Outcome, String)>, Regions, usize) {
    let tag = format!("{}-{team}-{}", exe.file_name().unwrap().to_string_lossy(), mode_tag(mode));
    let d = scratch(dir, &tag);
    let report = d.join("report.json");
    let mut env: Vec<(&str, String)> = vec![("OMPADAPT_REPORT", format!("json:{}", report.display()))];
    let runs = match mode {
        Mode::Discover => {
            env.push(("OMPADAPT_PERSIST", "0".into()));
            1
        }
        Mode::PinAll(v) => {
            let pins: Vec<String> = regions.iter().filter(|(_, vs)| vs.contains(v)).map(|(n, _)| format!("{n}:{v}")).collect();
            env.push(("OMPADAPT_VARIANT", pins.join(";")));
            env.push(("OMPADAPT_PERSIST", "0".into()));
            1
        }
        Mode::PinOne { function, ordinal, variant } => {
            let Some(name) = resolve_one(regions, function, *ordinal) else { return (None, Vec::new(), 0) };
            env.push(("OMPADAPT_VARIANT", format!("{name}:{variant}")));
            env.push(("OMPADAPT_PERSIST", "0".into()));
            1
        }
        Mode::Runtime(n) => *n as usize,
    };
    let mut found = Vec::new();
    for _ in 0..runs {
        let mut c = run_command(p, exe, &d, team, &env);
        let got = run(&mut c, crate::check::RUN_LIMIT);
        if got.stdout != stock.stdout || got.code != stock.code {
            return (Some((got, shell_line(&c))), report_regions(&report), runs);
        }
        found = report_regions(&report);
    }
    (None, found, runs)
}

fn mode_tag(m: &Mode) -> String {
    let clean = |s: &str| s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' }).collect::<String>();
    match m {
        Mode::Discover => "discover".into(),
        Mode::PinAll(v) => format!("all-{}", clean(v)),
        Mode::PinOne { function, ordinal, variant } => format!("one-{function}-{ordinal}-{}", clean(variant)),
        Mode::Runtime(_) => "runtime".into(),
    }
}

/// The modes a build with `regions` is checked in, after the first run.
pub fn modes(regions: &Regions) -> Vec<Mode> {
    let mut variants: Vec<String> = Vec::new();
    for (_, vs) in regions {
        for v in vs {
            if !variants.contains(v) {
                variants.push(v.clone());
            }
        }
    }
    let mut out: Vec<Mode> = variants.into_iter().map(Mode::PinAll).collect();
    let pairs: usize = regions.iter().map(|(_, vs)| vs.len()).sum();
    if regions.len() > 1 && pairs <= MAX_SINGLE_PINS {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for (name, vs) in regions {
            let function = name.split('@').next().unwrap_or(name).to_string();
            let ordinal = *seen.entry(function.clone()).and_modify(|k| *k += 1).or_insert(0);
            for v in vs {
                out.push(Mode::PinOne { function: function.clone(), ordinal, variant: v.clone() });
            }
        }
    }
    out.push(Mode::Runtime(3));
    out
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(12)..].join("\n")
}

/// Stock's output with `team` threads, from two runs: `Err` says why it cannot be the
/// reference (a failing or nondeterministic stock run is the generator's bug, not ompadapt's).
pub fn stock_output(p: &Program, exe: &Path, dir: &Path, team: u32) -> Result<Outcome, String> {
    let d = scratch(dir, &format!("stock-{team}"));
    let first = run(&mut run_command(p, exe, &d, team, &[]), RUN_LIMIT);
    if !first.ok() {
        return Err(format!("stock run failed ({}): {}", first.status(), tail(&first.stderr)));
    }
    let second = run(&mut run_command(p, exe, &d, team, &[]), RUN_LIMIT);
    if second.stdout != first.stdout || second.code != first.code {
        return Err("stock printed different outputs in two runs".into());
    }
    Ok(first)
}

fn check_build(p: &Program, dir: &Path, b: &Built, team: u32, expected: &Outcome, c: &mut Checked) {
    let (diff, regions, n) = run_mode(p, &b.exe, dir, team, &Mode::Discover, &Vec::new(), expected);
    c.runs += n;
    if team == 2 {
        c.adaptive.insert(b.build, regions.len());
    }
    let mut record = |mode: Mode, found: Option<(Outcome, String)>| {
        if let Some((got, command)) = found {
            c.differences.push(Difference { build: b.build, team, mode, stock: expected.clone(), got, command });
        }
    };
    record(Mode::Discover, diff);
    for m in modes(&regions) {
        let (diff, _, n) = run_mode(p, &b.exe, dir, team, &m, &regions, expected);
        c.runs += n;
        record(m, diff);
    }
}

/// Builds and checks `p` in `dir` with each team of `teams`.
pub fn check(p: &Program, dir: &Path, teams: &[u32]) -> Checked {
    let (_, built) = build_all(p, dir, &Build::adaptive(p));
    let mut c = Checked { builds: built.iter().map(|b| b.command.clone()).collect(), ..Default::default() };
    if !built[0].outcome.ok() {
        c.stock_failed = Some(format!("stock build failed ({}): {}", built[0].outcome.status(), tail(&built[0].outcome.stderr)));
        return c;
    }
    for b in &built[1..] {
        if b.outcome.ok() {
            c.remarks.insert(b.build, count_remarks(&b.outcome.stderr));
        } else {
            c.build_failures.push((b.build, format!("{}: {}", b.outcome.status(), tail(&b.outcome.stderr))));
        }
    }
    for &team in teams {
        let expected = match stock_output(p, &built[0].exe, dir, team) {
            Ok(e) => e,
            Err(why) => {
                c.stock_nondeterministic = why.contains("different outputs");
                c.stock_failed = (!c.stock_nondeterministic).then_some(why);
                return c;
            }
        };
        c.runs += 2;
        for b in built[1..].iter().filter(|b| b.outcome.ok()) {
            check_build(p, dir, b, team, &expected, &mut c);
        }
    }
    c
}
