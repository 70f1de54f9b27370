//! Zero-source-change mode on CPU-only OpenMP (tests/cpu_corpus/): every program is built with
//! stock clang-19 and with `-fplugin-arg-ompadapt-auto` (the default kinds: `serial` and shares
//! of the team for host parallel regions, `cpu,gpu` for target constructs), and:
//! - each `#pragma omp` line annotated `// expect: adaptive` is a region of the run's report,
//!   each `// expect: left <reason>` gets the compiler's remark with that reason and is none;
//! - with every region pinned to each variant, the output equals stock's with the same team
//!   size (`OMP_NUM_THREADS`), bit for bit: a floating-point reduction's result depends on the
//!   team, and that is the only difference a variant may make;
//! - programs whose output does not depend on any team (`team-size invariant` in their first
//!   comment) print stock's output under pseudo-random variant sequences per execution of every
//!   region (the forced-sequence runtime) and under the real runtime, runs sharing one store.

use ompadapt_tests::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// What `-fplugin-arg-ompadapt-auto` (no list) gives a host parallel region.
const HOST_VARIANTS: [&str; 5] = ["serial", "threads=0.125", "threads=0.25", "threads=0.5", "threads=1"];
/// Team sizes the pinned runs are checked at (the program's default team): with more than two
/// threads libomp may add a floating-point reduction's partial results in any order (an atomic
/// reduction), so stock is not deterministic there; team-size invariant programs go further.
const TEAMS: [u32; 1] = [2];
const INVARIANT_TEAMS: [u32; 3] = [2, 3, 4];

struct Program {
    name: String,
    dir: PathBuf,
    source: String,
    invariant: bool,
    /// The program's other translation units (every other `.c`/`.cpp` of its folder).
    others: Vec<String>,
    /// `// expect: adaptive` lines, and `// expect: left <reason>` lines with the reason.
    adaptive: BTreeSet<usize>,
    left: BTreeMap<usize, String>,
}

impl Program {
    fn offloads(&self) -> bool {
        self.name == "offload_mix"
    }
    fn compiler(&self) -> &'static str {
        if self.source.ends_with(".cpp") {
            "clang++-19"
        } else {
            CLANG
        }
    }
}

fn programs() -> Vec<Program> {
    let root = source("cpu_corpus");
    let mut v: Vec<Program> = std::fs::read_dir(&root)
        .expect("tests/cpu_corpus")
        .filter_map(|e| {
            let dir = e.ok()?.path();
            let source = ["main.c", "main.cpp"].into_iter().find(|s| dir.join(s).is_file())?.to_string();
            let text = std::fs::read_to_string(dir.join(&source)).ok()?;
            let (mut adaptive, mut left) = (BTreeSet::new(), BTreeMap::new());
            for (i, line) in text.lines().enumerate() {
                let Some((_, expect)) = line.split_once("// expect: ") else { continue };
                match expect.trim().strip_prefix("left ") {
                    Some(reason) => left.insert(i + 1, reason.trim().to_string()),
                    None => adaptive.insert(i + 1).then_some(String::new()),
                };
            }
            let invariant = text.lines().next().is_some_and(|l| l.contains("team-size invariant"));
            let mut others: Vec<String> = std::fs::read_dir(&dir)
                .ok()?
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|f| f != &source && (f.ends_with(".c") || f.ends_with(".cpp")))
                .collect();
            others.sort();
            Some(Program { name: dir.file_name()?.to_string_lossy().into_owned(), dir, source, invariant, others, adaptive, left })
        })
        .collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(v.len() >= 10, "the corpus has {} programs", v.len());
    v
}

/// The two adaptive builds of each program: the frontend plugin's zero-source-change mode
/// (`-fplugin-arg-ompadapt-auto`) and the pass alone (pass-only mode: `-fpass-plugin`, no
/// frontend; `-gline-tables-only` gives its regions `function@file:line` names). Both must find
/// the same regions, leave the same ones as written, and print what stock prints.
const ADAPTIVE: [&str; 2] = ["auto", "pass"];

/// The builds, made once for every test of this file.
struct Builds {
    dir: PathBuf,
    forced: PathBuf,
    /// What the compiler said for each program's adaptive builds (remarks), by program and build.
    remarks: BTreeMap<(String, &'static str), String>,
}

impl Builds {
    fn exe(&self, p: &Program, build: &str) -> PathBuf {
        self.dir.join(format!("{}.{build}", p.name))
    }
}

fn build(p: &Program, exe: &Path, mode: &str) -> Run {
    let mut c = Command::new(p.compiler());
    c.current_dir(&p.dir).args(["-O2", "-fopenmp", "-Wl,-rpath,/usr/lib/llvm-19/lib"]);
    if p.offloads() {
        c.arg(HOST_OFFLOAD);
    }
    match mode {
        "auto" => {
            c.arg(format!("-fplugin={}", plugin().display()));
            c.args(["-fplugin-arg-ompadapt-auto", "-fplugin-arg-ompadapt-remarks"]);
        }
        "pass" => {
            c.arg(format!("-fpass-plugin={}", pass_plugin().display())).env_remove("OMPADAPT_AUTO");
            c.args(["-gline-tables-only", "-Rpass=ompadapt", "-Rpass-missed=ompadapt"]);
        }
        _ => {}
    }
    c.arg(&p.source).args(&p.others).arg("-o").arg(exe);
    run(&mut c)
}

fn builds() -> &'static Builds {
    static B: OnceLock<Builds> = OnceLock::new();
    B.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cpu_corpus");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let forced = forced_runtime(&dir);
        let mut remarks = BTreeMap::new();
        for p in programs() {
            build(&p, &dir.join(format!("{}.stock", p.name)), "stock").expect_ok(&format!("{}: stock build", p.name));
            for mode in ADAPTIVE {
                let out = build(&p, &dir.join(format!("{}.{mode}", p.name)), mode);
                out.expect_ok(&format!("{}: {mode} build", p.name));
                remarks.insert((p.name.clone(), mode), out.stderr.clone());
            }
        }
        Builds { dir, forced, remarks }
    })
}

fn run_in(exe: &Path, dir: &Path, env: &[(&str, &str)]) -> Run {
    run_isolated(exe, dir, env)
}

/// Stock's output with `team` threads.
fn stock(p: &Program, team: u32) -> String {
    static CACHE: OnceLock<std::sync::Mutex<BTreeMap<(String, u32), String>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(s) = cache.lock().unwrap().get(&(p.name.clone(), team)) {
        return s.clone();
    }
    let b = builds();
    let d = scratch();
    let out = run_in(&b.exe(p, "stock"), d.path(), &[("OMP_NUM_THREADS", &team.to_string())]).stdout;
    let again = run_in(&b.exe(p, "stock"), d.path(), &[("OMP_NUM_THREADS", &team.to_string())]).stdout;
    assert_eq!(out, again, "{}: stock is not deterministic with {team} threads", p.name);
    cache.lock().unwrap().insert((p.name.clone(), team), out.clone());
    out
}

/// The team a variant runs with when the program's is `team` (as the generated code computes it).
fn team_of(variant: &str, team: u32) -> u32 {
    ompadapt_rt::team::team_size(variant, team).expect("a team-size variant")
}

/// Why the runtime ran regions of a JSON report as written (their calls into other translation
/// units were not cleared by the program's summaries), by region name.
fn held_of(report: &Path) -> BTreeMap<String, String> {
    let Ok(text) = std::fs::read_to_string(report) else { return BTreeMap::new() };
    let doc: Value = serde_json::from_str(&text).unwrap();
    let regions = doc["regions"].as_array().unwrap();
    regions.iter().filter_map(|r| Some((r["region"].as_str()?.to_string(), r["held"].as_str()?.to_string()))).collect()
}

/// The regions of a JSON report, by name: the variants that ran (executions per variant). A
/// program with no adaptive region never loads the runtime: no report, no region. A region the
/// runtime ran as written (see [`held_of`]) is none.
fn regions_of(report: &Path) -> BTreeMap<String, BTreeMap<String, u64>> {
    let Ok(text) = std::fs::read_to_string(report) else { return BTreeMap::new() };
    let doc: Value = serde_json::from_str(&text).unwrap();
    let mut out = BTreeMap::new();
    for r in doc["regions"].as_array().unwrap().iter().filter(|r| r["held"].is_null()) {
        let mut ran: BTreeMap<String, u64> = BTreeMap::new();
        for t in r["timings"].as_array().unwrap() {
            let n = t["exploring_runs"].as_u64().unwrap() + t["model_runs"].as_u64().unwrap();
            *ran.entry(t["variant"].as_str().unwrap().to_string()).or_default() += n;
        }
        out.insert(r["region"].as_str().unwrap().to_string(), ran);
    }
    out
}

fn line_of(region: &str) -> usize {
    region.rsplit_once(':').and_then(|(_, l)| l.split('#').next()?.parse().ok()).unwrap_or_else(|| panic!("region name '{region}'"))
}

#[test]
fn regions_and_remarks_are_where_the_annotations_say() {
    let b = builds();
    for mode in ADAPTIVE {
        for p in programs() {
            if mode == "pass" && p.offloads() {
                continue; // pass-only mode does not make offload launches adaptive yet
            }
            let remarks = &b.remarks[&(p.name.clone(), mode)];
            let d = scratch();
            let report = d.path().join("report.json");
            run_in(&b.exe(&p, mode), d.path(), &[("OMP_NUM_THREADS", "2"), ("OMPADAPT_REPORT", &format!("json:{}", report.display()))]);
            let regions = regions_of(&report);
            let lines: BTreeSet<usize> = regions.keys().map(|r| line_of(r)).collect();
            for r in regions.keys() {
                let (function, place) = r.split_once('@').unwrap_or_else(|| panic!("{} ({mode}): region '{r}'", p.name));
                assert!(
                    !function.is_empty() && place.starts_with(&p.source),
                    "{} ({mode}): region '{r}' is <function>@{}:<line>",
                    p.name,
                    p.source
                );
            }
            assert_eq!(lines, p.adaptive, "{} ({mode}): the regions of the run are the annotated constructs\n{remarks}", p.name);
            // left as written by the compiler (a remark), or by the runtime where the region calls
            // other translation units (the report says why)
            let held = held_of(&report);
            for (line, reason) in &p.left {
                let reason = reason.trim_matches('\'');
                let said = remarks
                    .lines()
                    .any(|l| l.contains(&format!("{}:{line}:", p.source)) && l.contains("left as written") && l.contains(reason));
                let held_here = held.iter().any(|(r, why)| line_of(r) == *line && why.contains(reason));
                assert!(
                    said || held_here,
                    "{}:{line} ({mode}): no remark 'left as written' nor a held region with '{reason}':\n{remarks}\n{held:?}",
                    p.name
                );
            }
        }
    }
}

/// Every region pinned to each host variant: stock's output with that variant's team.
#[test]
fn pinned_variants_print_what_stock_prints_with_the_same_team() {
    let b = builds();
    for (mode, p) in ADAPTIVE.iter().flat_map(|m| programs().into_iter().map(move |p| (*m, p))) {
        let has_regions = p.adaptive.iter().any(|_| true);
        let teams: &[u32] = if p.invariant { &INVARIANT_TEAMS } else { &TEAMS };
        for &team in teams {
            for v in HOST_VARIANTS {
                let d = scratch();
                let report = d.path().join("report.json");
                let env = [
                    ("OMP_NUM_THREADS", team.to_string()),
                    ("OMPADAPT_VARIANT", v.to_string()),
                    ("OMPADAPT_REPORT", format!("json:{}", report.display())),
                    ("OMPADAPT_PERSIST", "0".to_string()),
                ];
                let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
                let out = run_in(&b.exe(&p, mode), d.path(), &env);
                let expected_team = if has_regions { team_of(v, team) } else { team };
                assert_eq!(
                    out.stdout,
                    stock(&p, expected_team),
                    "{} ({mode}) pinned to {v} with OMP_NUM_THREADS={team}: stock with {expected_team} threads prints otherwise",
                    p.name
                );
                // the pin reached every host region: only its team ran there (a share that gives
                // another variant's team here runs as that variant)
                for (region, ran) in regions_of(&report) {
                    let host = ran.keys().any(|k| HOST_VARIANTS.contains(&k.as_str()));
                    if !host {
                        continue;
                    }
                    for (variant, n) in ran.iter().filter(|(_, n)| **n > 0) {
                        assert_eq!(
                            team_of(variant, team),
                            team_of(v, team),
                            "{} ({mode}): {region} pinned to {v} ran {variant} {n} times",
                            p.name
                        );
                    }
                }
            }
        }
    }
}

/// Team-size invariant programs under variant sequences per execution: every region takes a
/// pseudo-random variant at each execution.
#[test]
fn random_variant_sequences_print_what_stock_prints() {
    let b = builds();
    for (mode, p) in ADAPTIVE.iter().flat_map(|m| programs().into_iter().filter(|p| p.invariant).map(move |p| (*m, p))) {
        let expected = stock(&p, 2);
        for seed in 1..=4u64 {
            let d = scratch();
            let seq = random_sequence(seed, 400, HOST_VARIANTS.len());
            let forced = b.forced.display().to_string();
            let env = [("OMP_NUM_THREADS", "2"), ("OMPADAPT_RUNTIME", forced.as_str()), ("OMPADAPT_TEST_SEQUENCE", seq.as_str())];
            let out = run_in(&b.exe(&p, mode), d.path(), &env);
            // the forced-sequence runtime says what it chose on stdout
            let printed: String = out.stdout.lines().filter(|l| !l.starts_with("FORCED ")).map(|l| format!("{l}\n")).collect();
            assert!(out.stdout.contains("FORCED region="), "{} ({mode}): the sequence reached no region", p.name);
            assert_eq!(printed, expected, "{} ({mode}) under sequence seed {seed}", p.name);
        }
    }
}

/// The real runtime, three runs sharing one store (exploring, training, deciding): the output
/// of team-size invariant programs is stock's; the others' differs at most in the last digits of
/// floating-point sums (their teams change per execution).
#[test]
fn the_real_runtime_prints_what_stock_prints() {
    let b = builds();
    for (mode, p) in ADAPTIVE.iter().flat_map(|m| programs().into_iter().map(move |p| (*m, p))) {
        let d = scratch();
        for run_no in 1..=3 {
            let out = run_in(&b.exe(&p, mode), d.path(), &[("OMP_NUM_THREADS", "2")]);
            if p.invariant {
                assert_eq!(out.stdout, stock(&p, 2), "{} ({mode}) run {run_no}", p.name);
            } else {
                assert_close(&out.stdout, &stock(&p, 2), &format!("{} ({mode}) run {run_no}", p.name));
            }
        }
    }
}

/// Equal but for floating-point numbers within a relative 1e-9.
fn assert_close(got: &str, want: &str, what: &str) {
    let words = |s: &str| s.split(|c: char| c.is_whitespace() || c == '=').map(str::to_string).collect::<Vec<_>>();
    let (g, w) = (words(got), words(want));
    assert_eq!(g.len(), w.len(), "{what}: {got} vs {want}");
    for (a, b) in g.iter().zip(&w) {
        if a == b {
            continue;
        }
        match (a.parse::<f64>(), b.parse::<f64>()) {
            (Ok(x), Ok(y)) if (x - y).abs() <= 1e-9 * y.abs().max(1e-300) => {}
            _ => panic!("{what}: '{a}' vs '{b}' in\n{got}\nvs stock\n{want}"),
        }
    }
}

/// The explicit list form adapts both kinds of construct in one build; a schedule variant is
/// dropped, with a remark, where the loop names its own schedule.
#[test]
fn one_list_for_both_kinds_of_construct() {
    let p = programs().into_iter().find(|p| p.name == "offload_mix").unwrap();
    let s = programs().into_iter().find(|p| p.name == "schedules").unwrap();
    let dir = scratch();
    let plugin = format!("-fplugin={}", plugin().display());
    let flag = "-fplugin-arg-ompadapt-auto=cpu,gpu,serial,threads[0.5:1:0.5],schedule(dynamic)";
    let mut c = Command::new(CLANG);
    c.current_dir(&p.dir).args(["-O2", "-fopenmp", HOST_OFFLOAD, &plugin, flag]).arg(&p.source).arg("-o").arg(dir.path().join("mix"));
    run(&mut c).expect_ok("offload_mix with one list");
    let report = dir.path().join("r.json");
    run_in(&dir.path().join("mix"), dir.path(), &[("OMP_NUM_THREADS", "2"), ("OMPADAPT_REPORT", &format!("json:{}", report.display()))]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let kinds: BTreeSet<String> = doc["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["variants"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect::<Vec<_>>().join(","))
        .collect();
    assert!(kinds.contains("cpu,gpu"), "target constructs take the target kinds: {kinds:?}");
    assert!(kinds.contains("serial,threads=0.5,threads=1,schedule=dynamic"), "host loops take the host kinds: {kinds:?}");
    let mut c = Command::new(CLANG);
    c.current_dir(&s.dir)
        .args(["-O2", "-fopenmp", &plugin, flag, "-fplugin-arg-ompadapt-remarks"])
        .arg(&s.source)
        .arg("-o")
        .arg(dir.path().join("sched"));
    let out = run(&mut c);
    out.expect_ok("schedules with a schedule kind");
    assert_eq!(
        out.stderr
            .lines()
            .filter(|l| l.contains("variant kind 'schedule' dropped for this construct: the loop names its schedule"))
            .count(),
        2,
        "{}",
        out.stderr
    );
}

/// An orphaned region called inside another parallel region runs as written and is not recorded:
/// its executions in the report are those of the calls from outside.
#[test]
fn an_orphaned_region_inside_a_parallel_region_is_not_recorded() {
    let b = builds();
    let p = programs().into_iter().find(|p| p.name == "nested_calls").unwrap();
    for mode in ADAPTIVE {
        let d = scratch();
        let report = d.path().join("report.json");
        run_in(&b.exe(&p, mode), d.path(), &[("OMP_NUM_THREADS", "2"), ("OMPADAPT_REPORT", &format!("json:{}", report.display()))]);
        let regions = regions_of(&report);
        let scale = regions.iter().find(|(r, _)| r.starts_with("scale@")).unwrap_or_else(|| panic!("{mode}: scale is a region")).1;
        assert_eq!(scale.values().sum::<u64>(), 20, "{mode}: the 20 calls outside the parallel region, not the 2 inside it: {scale:?}");
    }
}
