//! Zero-source-change mode on unmodified programs: every program of tests/auto_corpus/
//! (HeCBench-style OpenMP offload codes, each checking itself against its serial loops) is built
//! with stock clang-19 and with `-fplugin=libompadapt.so -fplugin-arg-ompadapt-auto=<kinds>`,
//! and every adaptive run must print exactly what the stock build prints:
//! - under the forced-sequence runtime (tests/programs/variants/forced_runtime.c) with each
//!   variant pinned, alternating and rotating sequences, and a pseudo-random one, for the kinds
//!   `cpu,gpu` and `cpu,gpu,thread_limit[64:256:64]`;
//! - under the real runtime, several runs sharing one store, whose report must list every
//!   eligible construct of the source as a region `<function>@<file>:<line>` (and none of the
//!   asynchronous ones, which stay as written) with its automatic features;
//! - through scripts/rebuild-and-compare.sh, which must also catch a program whose output
//!   differs.
//! The programs are compiled in their own directory with a relative source name (`main.c`), as
//! their Makefiles do, so region names carry `main.c`.

use ompadapt_tests::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

const KINDS: [&str; 2] = ["cpu,gpu", "cpu,gpu,thread_limit[64:256:64]"];
/// Variant names the runtime reports for the kinds above.
const VARIANT_NAMES: [&[&str]; 2] =
    [&["cpu", "gpu"], &["cpu", "gpu", "thread_limit=64", "thread_limit=128", "thread_limit=192", "thread_limit=256"]];

fn corpus_dir() -> PathBuf {
    source("auto_corpus")
}

/// One corpus program: its directory name and its source (`main.c` or `main.cpp`).
#[derive(Clone, Debug)]
struct Program {
    name: String,
    dir: PathBuf,
    source: String,
}

fn programs() -> Vec<Program> {
    let mut v: Vec<Program> = std::fs::read_dir(corpus_dir())
        .expect("tests/auto_corpus")
        .filter_map(|e| {
            let dir = e.ok()?.path();
            let source = ["main.c", "main.cpp"].into_iter().find(|s| dir.join(s).is_file())?;
            Some(Program { name: dir.file_name()?.to_string_lossy().into_owned(), dir: dir.clone(), source: source.to_string() })
        })
        .collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(v.len() >= 10, "the corpus has {} programs", v.len());
    v
}

/// Programs whose kernels use device data that their own function does not show mapped (a
/// caller's `target data`, a constructor's `target enter data`): their `cpu` variant runs the
/// host version on the device data like every other.
const HIDDEN_DATA_ENV: [&str; 2] = ["caller_data_env", "particles_class"];

/// The lines of the constructs zero-source-change mode must make adaptive: offloading `target`
/// directives (written as `#pragma omp target`, `_Pragma("omp target`, or through the corpus'
/// `OMP_OFFLOAD(` macro), not `target data`/`enter`/`exit`/`update`, without `nowait` or
/// `depend`; and the lines of those it must leave alone.
fn expected_regions(p: &Program) -> (BTreeSet<usize>, BTreeSet<usize>) {
    let text = std::fs::read_to_string(p.dir.join(&p.source)).unwrap();
    let (mut adaptive, mut left) = (BTreeSet::new(), BTreeSet::new());
    for (i, line) in text.lines().enumerate() {
        let l = line.trim_start();
        let directive = if let Some(r) = l.strip_prefix("#pragma omp target") {
            r
        } else if let Some(r) = l.strip_prefix("_Pragma(\"omp target") {
            r
        } else if let Some(r) = l.strip_prefix("OMP_OFFLOAD(") {
            r
        } else {
            continue;
        };
        let first = directive.split(|c: char| !c.is_alphanumeric() && c != '_').find(|w| !w.is_empty()).unwrap_or("");
        if ["data", "enter", "exit", "update"].contains(&first) {
            continue;
        }
        if directive.contains("nowait") || directive.contains("depend(") {
            left.insert(i + 1);
        } else {
            adaptive.insert(i + 1);
        }
    }
    (adaptive, left)
}

/// `<function>@<file>:<line>` → line, checking the shape.
fn region_line(p: &Program, region: &str) -> usize {
    let (function, place) =
        region.split_once('@').unwrap_or_else(|| panic!("{}: region name '{region}' is not <function>@<file>:<line>", p.name));
    assert!(!function.is_empty(), "{}: region '{region}' names no function", p.name);
    let (file, line) = place.rsplit_once(':').unwrap_or_else(|| panic!("{}: region '{region}' has no line", p.name));
    assert_eq!(file, p.source, "{}: region '{region}' names the source as given to the compiler", p.name);
    line.parse().unwrap_or_else(|_| panic!("{}: region '{region}': '{line}' is not a line", p.name))
}

/// Builds of the corpus shared by the tests of this file (one process: built once, two at a
/// time, kept under CARGO_TARGET_TMPDIR).
struct Builds {
    dir: PathBuf,
    forced: PathBuf,
    /// Stdout of each program's stock build.
    stock_out: BTreeMap<String, String>,
    /// What the compiler said for each (program, build) adaptive build (`auto0`, `pass1`, ...):
    /// the pass's remarks, among them why a feature is missing.
    remarks: BTreeMap<(String, String), String>,
}

impl Builds {
    fn exe(&self, p: &Program, build: &str) -> PathBuf {
        self.dir.join(format!("{}.{build}", p.name))
    }
}

/// The adaptive builds: the frontend plugin's zero-source-change mode (`auto`), and the pass
/// alone (`pass`: pass-only mode, `-fpass-plugin` with the kinds in `OMPADAPT_AUTO`).
const MODES: [&str; 2] = ["auto", "pass"];

/// Compiles one program as its Makefile does: in its own directory, `main.c` by its name.
/// `build`: `stock`, or a mode of [`MODES`] and the index of its kinds (`auto0`, `pass1`).
fn compile_program(p: &Program, exe: &Path, build: &str) -> Run {
    let cc = if p.source.ends_with(".cpp") { "clang++-19" } else { CLANG };
    let mut c = Command::new(cc);
    c.current_dir(&p.dir).args(["-O2", "-fopenmp", HOST_OFFLOAD]).env_remove("OMPADAPT_AUTO");
    let kinds = |mode: &str| build.strip_prefix(mode).and_then(|k| k.parse::<usize>().ok()).map(|k| KINDS[k]);
    if let Some(kinds) = kinds("auto") {
        c.arg(format!("-fplugin={}", plugin().display()))
            .arg(format!("-fplugin-arg-ompadapt-auto={kinds}"))
            .arg("-fplugin-arg-ompadapt-remarks");
    } else if let Some(kinds) = kinds("pass") {
        c.arg(format!("-fpass-plugin={}", pass_plugin().display()))
            .env("OMPADAPT_AUTO", kinds)
            // DWARF 4: valgrind 3.19 (the memcheck test) cannot read clang-19's default DWARF 5 of C++
            .args(["-gline-tables-only", "-gdwarf-4", "-Rpass=ompadapt", "-Rpass-missed=ompadapt", "-Rpass-analysis=ompadapt"]);
    }
    c.arg(&p.source).arg("-o").arg(exe).arg("-lm");
    run(&mut c)
}

/// Runs `f` on every item, two at a time (the machine has two cores).
fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<R>>> = items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                *results[i].lock().unwrap() = Some(r);
            });
        }
    });
    results.into_iter().map(|m| m.into_inner().unwrap().expect("every item ran")).collect()
}

fn builds() -> &'static Builds {
    static BUILDS: OnceLock<Builds> = OnceLock::new();
    BUILDS.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("auto_corpus");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let forced = forced_runtime(&dir);
        let names: Vec<String> = std::iter::once("stock".to_string())
            .chain(MODES.iter().flat_map(|m| (0..KINDS.len()).map(move |k| format!("{m}{k}"))))
            .collect();
        let jobs: Vec<(Program, String)> = programs().into_iter().flat_map(|p| names.iter().map(move |b| (p.clone(), b.clone()))).collect();
        let results = parallel(&jobs, |(p, b)| compile_program(p, &dir.join(format!("{}.{b}", p.name)), b));
        let mut remarks = BTreeMap::new();
        for ((p, b), out) in jobs.iter().zip(&results) {
            out.expect_ok(&format!("compiling {}/{} ({b})", p.name, p.source));
            if b != "stock" {
                remarks.insert((p.name.clone(), b.clone()), out.stderr.clone());
            }
        }
        let mut stock_out = BTreeMap::new();
        for p in programs() {
            let exe = dir.join(format!("{}.stock", p.name));
            let out = run(Command::new(&exe).current_dir(&dir));
            out.expect_ok(&format!("{} (stock build)", p.name));
            assert!(out.stdout.ends_with("PASS\n"), "{}: {}", p.name, out.stdout);
            stock_out.insert(p.name.clone(), out.stdout);
        }
        Builds { dir, forced, stock_out, remarks }
    })
}

/// What the forced runtime printed besides the program.
#[derive(Default)]
struct Forced {
    /// (region, variant) of each execution (`FORCED` lines).
    choices: Vec<(String, usize)>,
    /// Executions whose variant the runtime refused (`UNAVAILABLE` lines).
    unavailable: usize,
}

/// Stdout without the forced runtime's `FORCED` and `UNAVAILABLE` lines, and those lines.
fn split_forced(stdout: &str) -> (String, Forced) {
    let mut program = String::new();
    let mut forced = Forced::default();
    for l in stdout.lines() {
        if let Some(r) = l.strip_prefix("FORCED ") {
            let kv: BTreeMap<&str, &str> = r.split_whitespace().filter_map(|x| x.split_once('=')).collect();
            forced.choices.push((kv["region"].to_string(), kv["variant"].parse().unwrap()));
        } else if l.starts_with("UNAVAILABLE ") {
            forced.unavailable += 1;
        } else {
            program.push_str(l);
            program.push('\n');
        }
    }
    (program, forced)
}

fn sequences(nvariants: usize) -> Vec<String> {
    let mut s: Vec<String> = (0..nvariants).map(|v| v.to_string()).collect();
    s.push("0,1".into());
    s.push("1,0".into());
    if nvariants > 2 {
        s.push((0..nvariants).map(|v| v.to_string()).collect::<Vec<_>>().join(","));
        s.push((0..nvariants).rev().map(|v| v.to_string()).collect::<Vec<_>>().join(","));
    }
    s.push(random_sequence(nvariants as u64 * 7 + 1, 37, nvariants));
    s
}

#[test]
fn every_variant_sequence_prints_what_the_stock_build_prints() {
    let b = builds();
    let mut checked = 0;
    for (mode, p) in MODES.iter().flat_map(|m| programs().into_iter().map(move |p| (*m, p))) {
        let (adaptive, left) = expected_regions(&p);
        for k in 0..KINDS.len() {
            let exe = b.exe(&p, &format!("{mode}{k}"));
            let nvariants = VARIANT_NAMES[k].len();
            let mut variants_ran: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
            for seq in sequences(nvariants) {
                let out = run(Command::new(&exe)
                    .current_dir(&b.dir)
                    .env("OMPADAPT_RUNTIME", &b.forced)
                    .env("OMPADAPT_TEST_SEQUENCE", &seq)
                    .env_remove("OMPADAPT_TEST_QUIET"));
                let what = format!("{} built with {mode}={}, variants {seq}", p.name, KINDS[k]);
                out.expect_ok(&what);
                let (stdout, forced) = split_forced(&out.stdout);
                assert_eq!(stdout, b.stock_out[&p.name], "{what}: output differs from the stock build");
                // Every corpus program maps its data (in view or not): no variant is ever refused.
                let hidden = if HIDDEN_DATA_ENV.contains(&p.name.as_str()) { " (data mapped outside the kernel's function)" } else { "" };
                assert_eq!(forced.unavailable, 0, "{what}: a variant was refused{hidden}");
                for (region, v) in forced.choices {
                    let line = region_line(&p, &region);
                    assert!(adaptive.contains(&line), "{what}: region '{region}' is not an eligible construct ({adaptive:?})");
                    assert!(!left.contains(&line), "{what}: the asynchronous construct at line {line} must stay as written");
                    variants_ran.entry(line).or_default().insert(v);
                }
                checked += 1;
            }
            // Every eligible construct ran adaptively, and every variant ran in each of them
            // (the pinned sequences alone give each variant once per construct).
            let ran: BTreeSet<usize> = variants_ran.keys().copied().collect();
            assert_eq!(ran, adaptive, "{} {mode}={}: the adaptive regions", p.name, KINDS[k]);
            for (line, vs) in &variants_ran {
                assert_eq!(vs.len(), nvariants, "{} {mode}={}: line {line} ran variants {vs:?}", p.name, KINDS[k]);
            }
        }
    }
    eprintln!("{checked} forced runs identical to the stock builds");
}

fn read_report(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

#[test]
fn the_real_runtime_keeps_results_and_reports_every_region_with_its_features() {
    let b = builds();
    let runs = 3;
    // Variant names explored anywhere in the corpus, per kinds.
    let mut explored: Vec<BTreeSet<String>> = vec![BTreeSet::new(); KINDS.len()];
    for (mode, p) in MODES.iter().flat_map(|m| programs().into_iter().map(move |p| (*m, p))) {
        let (adaptive, _) = expected_regions(&p);
        for k in 0..KINDS.len() {
            let exe = b.exe(&p, &format!("{mode}{k}"));
            let store = b.dir.join(format!("store-{}-{mode}{k}", p.name));
            let _ = std::fs::remove_dir_all(&store);
            for r in 0..runs {
                let report = b.dir.join(format!("report-{}-{mode}{k}-{r}.json", p.name));
                let out = run(Command::new(&exe)
                    .current_dir(&b.dir)
                    .env_remove("OMPADAPT_RUNTIME")
                    .env("OMPADAPT_DIR", &store)
                    .env("OMPADAPT_REPORT", format!("json:{}", report.display())));
                let what = format!("{} built with {mode}={}, run {}", p.name, KINDS[k], r + 1);
                out.expect_ok(&what);
                assert_eq!(out.stdout, b.stock_out[&p.name], "{what}: output differs from the stock build");
                assert!(!out.stderr.contains("ompadapt: error"), "{what}: {}", out.stderr);
                let json = read_report(&report);
                let regions = json["regions"].as_array().expect("regions");
                let lines: BTreeSet<usize> = regions.iter().map(|r| region_line(&p, r["region"].as_str().unwrap())).collect();
                assert_eq!(lines, adaptive, "{what}: the report's regions");
                // a template's instantiations are regions of their own (sum<float>@f.cpp:9, ...)
                let names: BTreeSet<&str> = regions.iter().map(|r| r["region"].as_str().unwrap()).collect();
                assert_eq!(names.len(), regions.len(), "{what}: region names are unique");
                for region in regions {
                    let name = region["region"].as_str().unwrap();
                    let variants: Vec<&str> = region["variants"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
                    assert!(
                        variants.iter().all(|v| VARIANT_NAMES[k].contains(v)) && variants.len() >= 2,
                        "{what}: {name} has variants {variants:?}"
                    );
                    assert!(region["executions"].as_u64().unwrap() > 0, "{what}: {name} never ran");
                    check_features(&what, name, region, &b.remarks[&(p.name.clone(), format!("{mode}{k}"))]);
                    for t in region["timings"].as_array().unwrap() {
                        if t["exploring_runs"].as_u64().unwrap_or(0) > 0 {
                            explored[k].insert(t["variant"].as_str().unwrap().to_string());
                        }
                    }
                }
            }
        }
    }
    for k in 0..KINDS.len() {
        let all: BTreeSet<String> = VARIANT_NAMES[k].iter().map(|s| s.to_string()).collect();
        assert_eq!(explored[k], all, "auto={}: every variant was explored somewhere in the corpus", KINDS[k]);
    }
}

/// The features a region of zero-source-change mode reports (`features(auto)`): a trip count
/// per worksharing loop, the bytes the launch maps, and the static features of its code. Where
/// the pass cannot compute a trip count or the bytes mapped (a bound no slice reaches, map sizes
/// only known inside the launch), the feature is missing and the compilation's remarks must say
/// why for that region.
fn check_features(what: &str, name: &str, region: &Value, remarks: &str) {
    let features: Vec<&str> = region["features"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    for f in ["ops", "flops", "comparisons", "memory_accesses", "loop_depth", "calls"] {
        assert!(features.contains(&f), "{what}: {name} lacks the static feature {f}: {features:?}");
    }
    let explained = |feature: &str| remarks.lines().any(|l| l.contains(&format!("region '{name}': no {feature}")));
    if !features.iter().any(|f| f.starts_with("trip_count(")) {
        assert!(explained("trip_count"), "{what}: {name} has no trip count and no remark says why: {features:?}\n{remarks}");
        eprintln!("{what}: {name}: no trip count, as the compiler's remark says");
    }
    if !features.contains(&"bytes_mapped") {
        assert!(explained("bytes_mapped"), "{what}: {name} has no bytes_mapped and no remark says why: {features:?}\n{remarks}");
    }
}

#[test]
fn rebuild_and_compare_passes_on_the_corpus() {
    plugin();
    let mut c = Command::new(workspace_root().join("scripts/rebuild-and-compare.sh"));
    c.args(["--runs", "2", "--jobs", "2", "--kinds", "cpu,gpu"]).arg("--plugin").arg(plugin());
    let expected = programs().len();
    let out = run(c.arg(corpus_dir()));
    out.expect_ok("scripts/rebuild-and-compare.sh on the corpus");
    assert!(out.stdout.contains(&format!("{expected} identical, 0 differing")), "{}", out.stdout);
    // The table lists each program with both adaptive runs identical and its regions.
    assert_eq!(out.stdout.lines().filter(|l| l.contains(" ok ") && l.contains(" 2/2 ")).count(), expected, "{}", out.stdout);
}

#[test]
fn rebuild_and_compare_catches_a_difference() {
    let dir = scratch();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    // Prints its process id: no two runs agree.
    std::fs::write(
        src.join("pid.c"),
        "#include <stdio.h>\n#include <unistd.h>\nint main(void) {\n  int x = 0;\n#pragma omp target map(tofrom: x)\n  x = 1;\n  printf(\"%d %d\\n\", x, (int)getpid());\n  return 0;\n}\n",
    )
    .unwrap();
    std::fs::write(src.join("same.c"), "#include <stdio.h>\nint main(void) { puts(\"same\"); return 0; }\n").unwrap();
    let out = run(Command::new(workspace_root().join("scripts/rebuild-and-compare.sh"))
        .args(["--runs", "1", "--plugin"])
        .arg(plugin())
        .arg(&src));
    assert_eq!(out.status.code(), Some(1), "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("1 identical, 1 differing"), "{}", out.stdout);
    // --help documents the options; a bad option is a usage error.
    let help = run(Command::new(workspace_root().join("scripts/rebuild-and-compare.sh")).arg("--help"));
    help.expect_ok("--help");
    for opt in ["--kinds", "--target", "--runs", "--plugin", "nvptx64"] {
        assert!(help.stdout.contains(opt), "--help must mention {opt}");
    }
    let bad = run(Command::new(workspace_root().join("scripts/rebuild-and-compare.sh")).arg("--no-such-option"));
    assert_eq!(bad.status.code(), Some(2));
}

/// Memory checked: every program with each region pinned to `cpu` (the real runtime's copies
/// around the host version) runs under valgrind's memcheck without an error — no byte written
/// or read outside what the program allocated, no uninitialised value deciding a branch — and
/// prints what the stock build prints. (AddressSanitizer cannot build offloading programs with
/// clang 19: the host plugin's device image is linked with the sanitizer's runtime, which a
/// shared object cannot hold; valgrind works on libomptarget's host offload as it is.)
#[test]
fn the_cpu_variant_under_memcheck() {
    if run(Command::new("valgrind").arg("--version")).stdout.is_empty() {
        panic!("valgrind is missing: scripts/bootstrap.sh installs it");
    }
    let b = builds();
    // both adaptive builds: the frontend's and pass-only mode's
    let programs: Vec<(Program, &str)> = programs().into_iter().flat_map(|p| MODES.map(|m| (p.clone(), m))).collect();
    let results = parallel(&programs, |(p, mode)| {
        let store = b.dir.join(format!("memcheck-{}-{mode}", p.name));
        let out = run(Command::new("valgrind")
            .args(["--error-exitcode=99", "-q"])
            .arg(b.exe(p, &format!("{mode}0")))
            .current_dir(&b.dir)
            .env_remove("OMPADAPT_RUNTIME")
            .env("OMPADAPT_DIR", &store)
            .env("OMPADAPT_PERSIST", "0")
            .env("OMPADAPT_VARIANT", "cpu"));
        (p.name.clone(), out)
    });
    for (name, out) in results {
        out.expect_ok(&format!("{name} pinned cpu under memcheck"));
        assert_eq!(out.stdout, b.stock_out[&name], "{name} pinned cpu under memcheck: output differs from the stock build");
    }
}
