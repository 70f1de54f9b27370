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
    let variants: Vec<String> = spec.split(';').find_map(|f| f.strip_prefix("variants=")).unwrap().split(',').map(str::to_owned).collect();
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
        // an untimed execution stays untimed
        let ticks = (cost(&variants[v], n) / ompadapt_rt::clock::ns_per_tick()).round() as u64;
        c.t0.backdate(ticks);
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

    /// The model's decision per feature vector, as the report gives it.
    fn model_decisions(&self) -> Vec<(f64, String)> {
        let rows = self.region()["decisions"].as_array().cloned().unwrap_or_default();
        rows.iter().map(|d| (d["features"][0].as_f64().unwrap(), d["decision"].as_str().unwrap_or("none").to_owned())).collect()
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
    for var in ["OMPADAPT_FROZEN", "OMPADAPT_EXPLORE_ONLY", "OMPADAPT_MODEL", "OMPADAPT_VARIANT", "OMPADAPT_PERSIST", "OMPADAPT_MIN_TRAIN"]
    {
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

/// The report of `run` and `ompadapt show --json` of the store it saved to say the same: the
/// region's location, features and variants, its model (kind, where it came from) and the
/// decision for every feature vector `show` lists.
#[track_caller]
fn agree(run: &ProgramRun, shown: &Value) {
    let region = run.region();
    let context = || format!("report: {region}\nshow: {shown}");
    assert_eq!(region["loc"], shown["location"], "{}", context());
    assert_eq!(names(&region["features"]), names(&shown["features"]), "{}", context());
    assert_eq!(names(&region["variants"]), names(&shown["variants"]), "{}", context());
    let model = &region["model"];
    let stored = &shown["stored_model"];
    if stored.is_null() {
        // no stored model of these variants: the run had none either, or (frozen) ran the
        // first variant, which `show` names
        let fixed = model["origin"] == "fixed variant";
        assert!(model.is_null() || fixed, "a model show does not know: {}", context());
        if fixed {
            for (n, v) in run.model_decisions() {
                assert_eq!(shown["frozen_run_variant"].as_str(), Some(v.as_str()), "n = {n}: {}", context());
            }
        }
        return;
    }
    assert_eq!(model["kind"], stored["kind"], "{}", context());
    assert_eq!(model["source"], stored["origin"], "{}", context());
    assert_eq!(names(&stored["variants"]), names(&region["variants"]), "{}", context());
    assert_eq!(shown["decided_by"], "the stored model, as a run uses it", "{}", context());
    let reported: std::collections::HashMap<String, String> = run.model_decisions().into_iter().map(|(n, v)| (n.to_string(), v)).collect();
    let vectors = shown["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), reported.len(), "the same feature vectors: {}", context());
    for v in vectors {
        let n = v["features"][0].as_f64().unwrap().to_string();
        assert_eq!(reported.get(&n).map(String::as_str), v["decision"].as_str(), "n = {n}: {}", context());
    }
}

/// A store with the first build's data: every size measured on both variants, a model trained
/// online once every size was measured (so it answers each with its measured best).
fn first_build(store: &Path) -> ProgramRun {
    let first = program(store, CPU_GPU, &SIZES, 4, &[("OMPADAPT_MIN_TRAIN", "16")]);
    let origin = first.region()["model"]["origin"].as_str().unwrap_or("none").to_owned();
    // trained in the run; trained again at exit where it measured more after that
    let in_run = origin.ends_with("in this run") || origin.contains("retrained in this run");
    assert!(in_run || origin.starts_with("trained at exit"), "{}", first.region());
    for (n, v) in first.model_decisions() {
        assert_eq!(v, if n < 2400.0 { "cpu" } else { "gpu" }, "n = {n}: {}", first.region());
    }
    first
}

/// The user's report: the region gains two thread limits and is rebuilt in place (the
/// directive two lines lower); one new size runs with every variant and the model trains on
/// it. The run says what changed; `show`, `list` and `evaluate` give the new location and
/// variants and count only what has them; a frozen run decides as `show` says. Then a build
/// without the default GPU variant: the measurements of removed variants and the model of four
/// variants are set aside, and a frozen run runs its first variant, saying why.
#[test]
fn a_changed_variant_set_is_one_answer_everywhere() {
    let _t = timing_lock();
    let dir = scratch();
    let store = dir.path().join("store");
    first_build(&store);
    let second = program(&store, WITH_LIMITS, &[25600.0], 8, &[]);
    let region = second.region();
    let changed = "its variants changed since the saved data (was cpu, gpu; now cpu, gpu, thread_limit=64, thread_limit=128): ";
    let note = region["saved_data"].as_str().unwrap_or_default();
    assert!(note.starts_with(changed) && note.ends_with("of the variants still present are used, the saved model is not"), "{region}");
    assert_eq!(second.stderr.matches(changed).count(), 1, "one line: {}", second.stderr);
    assert_eq!(region["model"]["feature_vectors"], 1, "trained on the one vector with every variant: {region}");
    let shown = ompadapt_json(&store, &["show", "saxpy"]);
    agree(&second, &shown);
    assert_eq!(shown["set_aside"]["earlier"]["location"], "saxpy.c:6", "the old definition is marked: {shown}");
    assert_eq!(shown["vectors"].as_array().unwrap().len(), 9, "the old sizes' cpu and gpu measurements are used: {shown}");
    let text = ompadapt(&store, &["show", "saxpy"]);
    assert!(text.contains("(saxpy.c:8)") && text.contains("earlier definition (older data): saxpy.c:6"), "{text}");
    let listed = ompadapt_json(&store, &["list"]);
    let summary = &listed["regions"][0];
    assert_eq!(summary["location"], "saxpy.c:8", "{summary}");
    assert_eq!(names(&summary["variants"]), names(&region["variants"]), "{summary}");
    assert_eq!((summary["feature_vectors"].as_u64(), summary["complete_vectors"].as_u64()), (Some(9), Some(1)), "{summary}");
    assert_eq!(summary["model"], region["model"]["kind"], "{summary}");
    let evaluated = ompadapt_json(&store, &["evaluate", "saxpy", "--shuffles", "1"]);
    assert_eq!(evaluated["regions"][0]["complete_vectors"], 1, "{evaluated}");
    // a frozen run decides what `show` says, at the old sizes too
    let mut all = SIZES.to_vec();
    all.push(25600.0);
    let frozen = program(&store, WITH_LIMITS, &all, 0, &[("OMPADAPT_FROZEN", "1")]);
    agree(&frozen, &ompadapt_json(&store, &["show", "saxpy"]));
    let shown_at: std::collections::HashMap<String, String> = shown["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["features"][0].as_f64().unwrap().to_string(), v["decision"].as_str().unwrap().to_owned()))
        .collect();
    for (n, v) in frozen.decisions() {
        assert_eq!(shown_at.get(&n.to_string()), Some(&v), "n = {n}: the frozen run ran what show says");
    }

    // the GPU's default variant and 64 threads go: their measurements and the model of four
    // variants are set aside; a frozen run says why it runs its first variant
    let third = "ompadapt1;model=saxpy;loc=saxpy.c:8;features=n;variants=cpu,thread_limit=128";
    let frozen = program(&store, third, &all, 0, &[("OMPADAPT_FROZEN", "1")]);
    let line = frozen.stderr.lines().find(|l| l.contains("its variants changed")).unwrap_or_else(|| panic!("{}", frozen.stderr));
    assert!(
        line.contains("(was cpu, gpu, thread_limit=64, thread_limit=128; now cpu, thread_limit=128)")
            && line.contains("of variants it no longer has (gpu, thread_limit=64) are kept on disk but not used, the saved model is not")
            && line.ends_with("always running its first variant 'cpu'"),
        "{line}"
    );
    assert_eq!(frozen.stderr.lines().filter(|l| l.contains("saxpy")).count(), 1, "one line: {}", frozen.stderr);
    let shown = ompadapt_json(&store, &["show", "saxpy"]);
    agree(&frozen, &shown);
    let aside = &shown["set_aside"];
    assert!(aside["measurements_of_removed_variants"].as_u64() > Some(0), "{shown}");
    assert_eq!(names(&aside["removed_variants"]).len(), 2, "{shown}");
    assert_eq!(names(&aside["model"]["variants"]).len(), 4, "the model of four variants, not used: {shown}");
    let text = ompadapt(&store, &["show", "saxpy"]);
    assert!(text.contains("set aside (not counted, not used): ") && text.contains("stored model: none of the current variants"), "{text}");
    let listed = ompadapt(&store, &["list"]);
    assert!(listed.contains("measurements of variants it no longer has (gpu, thread_limit=64)"), "{listed}");
    let evaluated = ompadapt(&store, &["evaluate", "saxpy", "--shuffles", "1"]);
    assert!(evaluated.contains("set aside (an earlier definition, not evaluated)"), "{evaluated}");
}

/// `ompadapt train --model dtree,2` stores a decision tree; a frozen run uses it (it refitted
/// the region's own model before), and decides what `show` says.
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
    assert_eq!(model["origin"], "stored model (frozen), trained offline by `ompadapt train`", "{model}");
    agree(&frozen, &ompadapt_json(&store, &["show", "saxpy"]));
    for (n, v) in frozen.decisions() {
        assert_eq!(v, if n < 2400.0 { "cpu" } else { "gpu" }, "n = {n}");
    }
}

/// For every state of the model — not trained, trained online in a run, trained at exit on
/// saved data, loaded, trained offline by `ompadapt train`, frozen — the run's report and `show`
/// on the store it saved to agree (the definition change is above).
#[test]
fn report_and_show_agree_in_every_model_state() {
    let _t = timing_lock();
    let dir = scratch();
    // not trained: data collection only
    let store = dir.path().join("explored");
    let explored = program(&store, CPU_GPU, &SIZES, 3, &[("OMPADAPT_EXPLORE_ONLY", "1")]);
    assert!(explored.region()["model"].is_null());
    let shown = ompadapt_json(&store, &["show", "saxpy"]);
    assert!(shown["stored_model"].is_null(), "{shown}");
    agree(&explored, &shown);
    // saved data, no model: nothing trained at start-up (the measured table decides), a model
    // trained at exit on the saved data and this run's: stored, so show shows it
    let deferred = program(&store, CPU_GPU, &SIZES, 1, &[]);
    let region = deferred.region();
    assert!(region["startup"].as_str().is_some_and(|s| s.starts_with("no stored model of its variants")), "{region}");
    assert_eq!(region["model"]["origin"], "trained at exit on everything measured (the next run loads it)", "{region}");
    let shown = ompadapt_json(&store, &["show", "saxpy"]);
    assert_eq!(shown["stored_model"]["origin"], "exit", "{shown}");
    agree(&deferred, &shown);
    // the next run loads that model: trained on exactly the saved data, nothing trained
    let loaded = program(&store, CPU_GPU, &SIZES, 1, &[]);
    let region = loaded.region();
    assert!(region["startup"].as_str().is_some_and(|s| s.starts_with("loaded the stored model, trained on exactly")), "{region}");
    assert_eq!((region["model"]["source"].as_str(), region["model"]["train_ns"].as_u64()), (Some("exit"), Some(0)), "{region}");
    agree(&loaded, &ompadapt_json(&store, &["show", "saxpy"]));
    // frozen, on the model trained at exit
    let frozen = program(&store, CPU_GPU, &SIZES, 0, &[("OMPADAPT_FROZEN", "1")]);
    assert_eq!(frozen.region()["model"]["source"], "exit");
    agree(&frozen, &ompadapt_json(&store, &["show", "saxpy"]));
    // trained offline, then frozen
    ompadapt(&store, &["train", "saxpy", "--model", "rfc,5,2"]);
    let frozen = program(&store, CPU_GPU, &SIZES, 0, &[("OMPADAPT_FROZEN", "1")]);
    assert_eq!(frozen.region()["model"]["source"], "offline");
    agree(&frozen, &ompadapt_json(&store, &["show", "saxpy"]));
    // trained online in a fresh store, then frozen
    let store = dir.path().join("online");
    let online = first_build(&store);
    agree(&online, &ompadapt_json(&store, &["show", "saxpy"]));
    let frozen = program(&store, CPU_GPU, &SIZES, 0, &[("OMPADAPT_FROZEN", "1")]);
    agree(&frozen, &ompadapt_json(&store, &["show", "saxpy"]));
    // a frozen run without any stored model runs the first variant, as show says
    let store = dir.path().join("nothing");
    program(&store, CPU_GPU, &SIZES, 3, &[("OMPADAPT_EXPLORE_ONLY", "1")]);
    let frozen = program(&store, CPU_GPU, &SIZES, 0, &[("OMPADAPT_FROZEN", "1")]);
    assert!(frozen.stderr.contains("OMPADAPT_FROZEN=1 but no stored model"), "{}", frozen.stderr);
    agree(&frozen, &ompadapt_json(&store, &["show", "saxpy"]));
}
