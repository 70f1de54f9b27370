//! A region's identity includes what it is: its variants, features and location. The runtime
//! (with its report) and every `ompadapt` command give one answer on the same store, also after
//! a region's definition changed under existing data, after `ompadapt train`, in a frozen run
//! and for every state of the model.
//!
//! The "program" is this test binary itself, re-run with `OMPADAPT_TEST_IDENTITY` set to a
//! region descriptor: it drives the runtime's C ABI with controlled costs (each execution's
//! start is backdated by its variant's cost), so every decision is known.

use std::os::raw::{c_char, c_void};
use std::path::{Path, PathBuf};
use std::process::Command;

use ompadapt_tests::*;
use serde_json::Value;

const CHILD: &str = "OMPADAPT_TEST_IDENTITY";

/// The region before the rebuild: CPU or GPU.
const CPU_GPU: &str = "ompadapt1;model=saxpy;loc=saxpy.c:6;features=n;variants=cpu,gpu";
/// After it: two GPU thread limits more, the directive two lines lower.
const WITH_LIMITS: &str = "ompadapt1;model=saxpy;loc=saxpy.c:8;features=n;variants=cpu,gpu,thread_limit=64,thread_limit=128";

/// Sizes the first build measured.
const SIZES: [f64; 8] = [100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0, 12800.0];

/// Cost of a variant at size `n`, in ns: the CPU wins below n = 2400 (five to ten times faster
/// at the small sizes), the GPU above; 128 threads beat 64 beat the default.
fn cost(variant: &str, n: f64) -> f64 {
    match variant {
        "cpu" => 1_000.0 + 10.0 * n,
        "gpu" => 22_600.0 + n,
        "thread_limit=64" => 17_000.0 + n,
        "thread_limit=128" => 14_000.0 + n,
        other => panic!("no cost for {other}"),
    }
}

/// The child: runs the region `$OMPADAPT_TEST_IDENTITY` on the sizes of
/// `$OMPADAPT_TEST_SIZES`, `$OMPADAPT_TEST_REPS` rounds, then once more per size printing
/// `DECISION n=<n> variant=<name>`.
#[test]
fn identity_child() {
    let Ok(spec) = std::env::var(CHILD) else { return };
    let variants: Vec<String> =
        spec.split(';').find_map(|f| f.strip_prefix("variants=")).unwrap().split(',').map(str::to_owned).collect();
    let sizes: Vec<f64> = std::env::var("OMPADAPT_TEST_SIZES").unwrap().split(',').map(|s| s.parse().unwrap()).collect();
    let reps: usize = std::env::var("OMPADAPT_TEST_REPS").unwrap().parse().unwrap();
    let text = std::ffi::CString::new(spec).unwrap();
    let mut slot: *mut c_void = std::ptr::null_mut();
    let mut execute = |n: f64| -> usize {
        let mut c = ompadapt_rt::Ctx::zeroed();
        unsafe {
            ompadapt_rt::ompadapt_begin(&mut slot, text.as_ptr() as *const c_char, -1, -1, -1, [n].as_ptr(), 1, &mut c);
        }
        let v = c.variant as usize;
        // the start time is in the low 60 bits (0: not timed); the flags above stay
        const START: u64 = (1 << 60) - 1;
        if c.t0 & START != 0 {
            let ticks = (cost(&variants[v], n) / ompadapt_rt::clock::ns_per_tick()).round() as u64;
            c.t0 -= ticks.min(c.t0 & START);
        }
        unsafe { ompadapt_rt::ompadapt_end(&mut c) };
        v
    };
    for _ in 0..reps {
        for &n in &sizes {
            execute(n);
        }
    }
    for &n in &sizes {
        let v = execute(n);
        println!("DECISION n={n} variant={}", variants[v]);
    }
}

/// One run of the "program" on `store`: its stdout, stderr, and the JSON report.
struct ProgramRun {
    stdout: String,
    stderr: String,
    report: Value,
}

impl ProgramRun {
    fn decisions(&self) -> Vec<(f64, String)> {
        records(&self.stdout, "DECISION").into_iter().map(|r| (r["n"].parse().unwrap(), r["variant"].clone())).collect()
    }

    fn region(&self) -> &Value {
        &self.report["regions"][0]
    }
}

fn program(store: &Path, spec: &str, sizes: &[f64], reps: usize, env: &[(&str, &str)]) -> ProgramRun {
    let report = store.with_extension("report.json");
    let _ = std::fs::remove_file(&report);
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", "identity_child", "--nocapture", "--test-threads=1"])
        .env(CHILD, spec)
        .env("OMPADAPT_TEST_SIZES", sizes.iter().map(f64::to_string).collect::<Vec<_>>().join(","))
        .env("OMPADAPT_TEST_REPS", reps.to_string())
        .env("OMPADAPT_DIR", store)
        .env("OMPADAPT_PROGRAM", "identity-test")
        .env("OMPADAPT_REPORT", format!("json:{}", report.display()))
        // every execution measured as it is (no cold first execution), every trained one timed
        .env("OMPADAPT_WARMUP", "0")
        .env("OMPADAPT_SAMPLE", "1");
    for var in ["OMPADAPT_FROZEN", "OMPADAPT_EXPLORE_ONLY", "OMPADAPT_MODEL", "OMPADAPT_VARIANT", "OMPADAPT_PERSIST", "OMPADAPT_MIN_TRAIN"] {
        c.env_remove(var);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    let r = run(&mut c);
    r.expect_ok("the program");
    let text = std::fs::read_to_string(&report).unwrap_or_else(|e| panic!("no report ({e}): {}", r.stderr));
    ProgramRun { stdout: r.stdout, stderr: r.stderr, report: serde_json::from_str(&text).unwrap() }
}

fn ompadapt_bin() -> PathBuf {
    let p = lib_dir().join("ompadapt");
    assert!(p.exists(), "{} is missing: run `cargo build --release` first", p.display());
    p
}

#[track_caller]
fn ompadapt(store: &Path, args: &[&str]) -> String {
    let r = run(Command::new(ompadapt_bin()).arg("--dir").arg(store).args(args).env_remove("OMPADAPT_DIR"));
    r.expect_ok(&format!("ompadapt {args:?}"));
    r.stdout
}

#[track_caller]
fn ompadapt_json(store: &Path, args: &[&str]) -> Value {
    let mut a = vec!["--json"];
    a.extend_from_slice(args);
    let out = ompadapt(store, &a);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}):\n{out}"))
}

fn names(v: &Value) -> Vec<String> {
    v.as_array().unwrap_or_else(|| panic!("not a list: {v}")).iter().map(|x| x.as_str().unwrap().to_owned()).collect()
}

/// A store with the first build's data: every size measured on both variants, a model
/// trained online.
fn first_build(store: &Path) -> ProgramRun {
    let first = program(store, CPU_GPU, &SIZES, 3, &[]);
    let origin = first.region()["model"]["origin"].as_str().unwrap_or("none").to_owned();
    assert!(origin.ends_with("in this run") || origin.contains("retrained in this run"), "{}", first.region());
    for (n, v) in first.decisions() {
        assert_eq!(v, if n < 2400.0 { "cpu" } else { "gpu" }, "n = {n}");
    }
    first
}

/// The user's report: the region gains two thread limits and is rebuilt in place; one new
/// size runs with every variant. Everything then describes the new definition: the run says
/// what changed, `show`, `list` and `evaluate` show the new location and variants, count only
/// the new definition's vectors and set the old model aside; a frozen run decides as `show`.
#[test]
fn a_changed_variant_set_is_one_answer_everywhere() {
    let _t = timing_lock();
    let dir = scratch();
    let store = dir.path().join("store");
    first_build(&store);
    let second = program(&store, WITH_LIMITS, &[25600.0], 4, &[]);
    eprintln!("{}", second.stderr);
    let region = second.region();
    assert_eq!(names(&region["variants"]), ["cpu", "gpu", "thread_limit=64", "thread_limit=128"]);

    let shown = ompadapt_json(&store, &["show", "saxpy"]);
    eprintln!("{}", ompadapt(&store, &["show", "saxpy"]));
    assert_eq!(shown["location"], "saxpy.c:8", "{shown}");
    assert_eq!(names(&shown["variants"]), names(&region["variants"]), "{shown}");
    let listed = ompadapt_json(&store, &["list"]);
    let summary = &listed["regions"][0];
    assert_eq!(summary["location"], "saxpy.c:8", "{summary}");
    assert_eq!(names(&summary["variants"]), names(&region["variants"]), "{summary}");
    assert_eq!(summary["complete_vectors"], 1, "{summary}");
    let evaluated = ompadapt_json(&store, &["evaluate", "saxpy", "--shuffles", "1"]);
    assert_eq!(evaluated["regions"][0]["complete_vectors"], 1, "{evaluated}");
}

/// `ompadapt train --model dtree,2` stores a decision tree; a frozen run uses it.
#[test]
fn a_frozen_run_uses_the_model_train_stored() {
    let _t = timing_lock();
    let dir = scratch();
    let store = dir.path().join("store");
    program(&store, CPU_GPU, &SIZES, 3, &[("OMPADAPT_EXPLORE_ONLY", "1")]);
    ompadapt(&store, &["train", "saxpy", "--model", "dtree,2"]);
    let listed = ompadapt_json(&store, &["list"]);
    assert_eq!(listed["regions"][0]["model"], "decision tree (max depth 2)");
    let frozen = program(&store, CPU_GPU, &SIZES, 0, &[("OMPADAPT_FROZEN", "1")]);
    let model = &frozen.region()["model"];
    assert_eq!(model["kind"], "decision tree (max depth 2)", "{model}\n{}", frozen.stderr);
}

/// A run that trains at start-up from saved data: the report and `show` say the same.
#[test]
fn a_model_trained_at_start_up_is_what_show_shows() {
    let _t = timing_lock();
    let dir = scratch();
    let store = dir.path().join("store");
    program(&store, CPU_GPU, &SIZES, 3, &[("OMPADAPT_EXPLORE_ONLY", "1")]);
    let second = program(&store, CPU_GPU, &SIZES, 1, &[]);
    let model = &second.region()["model"];
    assert_eq!(model["origin"], "trained at start-up from saved data", "{model}");
    let shown = ompadapt_json(&store, &["show", "saxpy"]);
    assert!(!shown["stored_model"].is_null(), "the run's model is not what show shows: {shown}");
}
