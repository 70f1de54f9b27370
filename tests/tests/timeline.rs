//! The timeline of region executions (`OMPADAPT_TRACE`) of a real program compiled with
//! clang-19 + the plugin (tests/programs/timeline.c: two regions with controlled costs, one
//! run by two OpenMP threads at once): the file is Chrome trace-event JSON, it counts what the
//! report counts (per region, per variant, exploring and decided), its durations are at least
//! the controlled costs, `ompadapt trace` prints the same totals and `--html` draws every
//! execution; the cap counts what it drops; a link at the trace's path is replaced, never
//! followed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use ompadapt_tests::*;
use serde_json::Value;

fn build(dir: &Path) -> PathBuf {
    let exe = dir.join("timeline");
    compile(&source("programs/timeline.c"), &exe, &["-O2"]).expect_ok("compiling timeline.c");
    exe
}

fn ompadapt(args: &[&str]) -> Run {
    let bin = lib_dir().join("ompadapt");
    assert!(bin.exists(), "{} is missing: run `cargo build --release` first", bin.display());
    run(Command::new(bin).args(args))
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}

/// Runs the program `reps` times over its loop with a trace and a JSON report (no store, no
/// drift re-measurement: every measurement stays in the report's timings).
fn traced_run(exe: &Path, dir: &Path, reps: u32, extra: &[(&str, &str)]) -> (Run, PathBuf, PathBuf) {
    let (trace, report) = (dir.join("trace.json"), dir.join("report.json"));
    let (t, r) = (trace.display().to_string(), format!("json:{}", report.display()));
    let mut env = vec![("OMPADAPT_TRACE", t.as_str()), ("OMPADAPT_REPORT", r.as_str()), ("OMPADAPT_PERSIST", "0"), ("OMPADAPT_DRIFT", "0")];
    env.extend_from_slice(extra);
    let mut c = Command::new(exe);
    c.arg(reps.to_string()).current_dir(dir).env("OMPADAPT_DIR", dir.join(".ompadapt"));
    for (k, v) in env {
        c.env(k, v);
    }
    let out = run(&mut c);
    out.expect_ok("the traced run");
    (out, trace, report)
}

/// The complete events of a trace, checked for the trace-event fields.
fn executions(trace: &Value) -> Vec<&Value> {
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    let xs: Vec<&Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    for e in &xs {
        for field in ["name", "cat", "ts", "dur", "pid", "tid", "args"] {
            assert!(!e[field].is_null(), "{field} missing in {e}");
        }
        assert!(e["ts"].as_f64().unwrap() >= 0.0 && e["dur"].as_f64().unwrap() >= 0.0, "{e}");
        assert!(e["args"]["mode"] == "exploring" || e["args"]["mode"] == "decided", "{e}");
    }
    xs
}

/// (region, variant) -> executions, from the report's timings.
fn report_variant_counts(report: &Value) -> BTreeMap<(String, String), u64> {
    let mut out = BTreeMap::new();
    for r in report["regions"].as_array().unwrap() {
        for t in r["timings"].as_array().unwrap() {
            let n = t["exploring_runs"].as_u64().unwrap() + t["model_runs"].as_u64().unwrap();
            *out.entry((r["region"].as_str().unwrap().to_owned(), t["variant"].as_str().unwrap().to_owned())).or_default() += n;
        }
    }
    out.retain(|_, n| *n > 0);
    out
}

/// The controlled cost of an execution, µs (see timeline.c).
fn cost_us(e: &Value) -> f64 {
    let a = &e["args"];
    match (e["name"].as_str().unwrap(), a["variant"].as_str().unwrap()) {
        ("scale", v) => {
            let n = a["features"]["n"].as_f64().unwrap();
            if v == "lin" {
                n
            } else {
                400.0 - n
            }
        }
        ("mix", v) => {
            let i = ["a", "b", "c"].iter().position(|x| *x == v).unwrap() as f64;
            if a["features"]["k"].as_f64().unwrap() == 0.0 {
                20.0 + 30.0 * i
            } else {
                80.0 - 30.0 * i
            }
        }
        (r, _) => panic!("unexpected region {r}"),
    }
}

/// Executions of one thread never overlap (the program nests no region), and each lasts at
/// least its controlled cost.
fn check_times(xs: &[&Value]) {
    let mut by_tid: BTreeMap<i64, Vec<(f64, f64)>> = BTreeMap::new();
    for e in xs {
        let (ts, dur) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
        assert!(dur >= 0.99 * cost_us(e), "shorter than its controlled cost ({} µs): {e}", cost_us(e));
        by_tid.entry(e["tid"].as_i64().unwrap()).or_default().push((ts, dur));
    }
    for (tid, mut spans) in by_tid {
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        for w in spans.windows(2) {
            assert!(w[1].0 >= w[0].0 + w[0].1 - 0.002, "thread {tid}: {w:?} overlap");
        }
    }
}

#[test]
fn the_trace_counts_what_the_report_counts_and_ompadapt_trace_draws_it() {
    let _timing = timing_lock();
    let dir = scratch();
    let d = dir.path();
    let exe = build(d);
    let (_, trace_path, report_path) = traced_run(&exe, d, 12, &[]);
    let (trace, report) = (read_json(&trace_path), read_json(&report_path));
    assert_eq!(trace["displayTimeUnit"], "ns");
    assert_eq!(trace["otherData"]["format"], "ompadapt-trace");
    let xs = executions(&trace);

    // per region: executions, exploring and decided, as the report says
    for r in report["regions"].as_array().unwrap() {
        let name = r["region"].as_str().unwrap();
        let mine: Vec<&&Value> = xs.iter().filter(|e| e["name"] == name).collect();
        assert_eq!(mine.len() as u64, r["executions"].as_u64().unwrap(), "executions of {name}");
        let exploring = mine.iter().filter(|e| e["args"]["mode"] == "exploring").count() as u64;
        assert_eq!(exploring, r["exploring"].as_u64().unwrap(), "exploring executions of {name}");
        assert_eq!(mine.len() as u64 - exploring, r["chosen_by_model"].as_u64().unwrap(), "decided executions of {name}");
        assert!(exploring > 0 && r["chosen_by_model"].as_u64().unwrap() > 0, "{name} explored, then was decided");
        // the trace times every execution; the region still times one in OMPADAPT_SAMPLE (16)
        // of its decided ones per thread
        let timed: u64 = r["timings"].as_array().unwrap().iter().map(|t| t["model_timed"].as_u64().unwrap()).sum();
        assert!(timed <= r["chosen_by_model"].as_u64().unwrap() / 16 + 2, "{name}: {timed} decided executions timed");
    }
    assert_eq!(xs.len() as u64, 12 * 12);
    // per variant, as the report's timings count them
    let mut per_variant: BTreeMap<(String, String), u64> = BTreeMap::new();
    for e in &xs {
        *per_variant.entry((e["name"].as_str().unwrap().into(), e["args"]["variant"].as_str().unwrap().into())).or_default() += 1;
    }
    assert_eq!(per_variant, report_variant_counts(&report));
    check_times(&xs);

    // threads: `mix` ran on two, and every thread has a name
    let tids = |region: &str| xs.iter().filter(|e| e["name"] == region).map(|e| e["tid"].as_i64().unwrap()).collect::<BTreeSet<_>>();
    assert_eq!(tids("mix").len(), 2, "mix ran on two threads");
    let named: BTreeSet<i64> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .map(|e| e["tid"].as_i64().unwrap())
        .collect();
    assert!(tids("mix").union(&tids("scale")).all(|t| named.contains(t)), "every thread is named: {named:?}");
    assert!(trace["traceEvents"].as_array().unwrap().iter().any(|e| e["name"] == "process_name"));

    check_cli(&trace_path, &xs, d);
}

/// `ompadapt trace` prints the trace's totals; `--html` draws one box per execution.
fn check_cli(trace_path: &Path, xs: &[&Value], d: &Path) {
    let t = trace_path.to_str().unwrap();
    let json: Value = serde_json::from_str(&ompadapt(&["--json", "trace", t]).expect_ok("ompadapt --json trace").stdout).unwrap();
    assert_eq!(json["executions"].as_u64().unwrap(), xs.len() as u64);
    let text = ompadapt(&["trace", t]).expect_ok("ompadapt trace").stdout.clone();
    for r in json["regions"].as_array().unwrap() {
        let name = r["region"].as_str().unwrap();
        let mine: Vec<&&Value> = xs.iter().filter(|e| e["name"] == name).collect();
        assert_eq!(r["executions"].as_u64().unwrap(), mine.len() as u64);
        let total: f64 = mine.iter().map(|e| e["dur"].as_f64().unwrap()).sum();
        assert!((r["total_us"].as_f64().unwrap() - total).abs() < 1e-6 * total.max(1.0), "{r}");
        assert!(text.contains(&format!("region '{name}': {} executions", mine.len())), "{text}");
        for v in r["variants"].as_array().unwrap() {
            let n = mine.iter().filter(|e| e["args"]["variant"] == v["variant"]).count() as u64;
            assert_eq!(v["executions"].as_u64().unwrap(), n, "{r}");
        }
    }
    let page = d.join("timeline.html");
    ompadapt(&["trace", "--html", page.to_str().unwrap(), t]).expect_ok("ompadapt trace --html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches(r#"class="exec""#).count(), xs.len(), "one box per execution");
    assert!(!html.contains("http://") && !html.contains("https://") && !html.contains(" src="), "self-contained");
    // past --max-boxes, boxes stand for several executions and still count them all
    ompadapt(&["trace", "--html", page.to_str().unwrap(), "--max-boxes", "10", t]).expect_ok("ompadapt trace --html --max-boxes");
    let html = std::fs::read_to_string(&page).unwrap();
    let counts: Vec<u64> = html.split(r#"class="exec" data-n=""#).skip(1).map(|s| s[..s.find('"').unwrap()].parse().unwrap()).collect();
    assert_eq!(counts.iter().sum::<u64>(), xs.len() as u64);
    assert!(counts.len() < xs.len(), "{} boxes for {} executions", counts.len(), xs.len());
}

/// Runs the program `reps` times over its loop with the store in `store` (no drift
/// re-measurement, nothing from the environment's ompadapt settings), and `env`.
fn stored_run(exe: &Path, dir: &Path, store: &Path, reps: u32, env: &[(&str, &str)]) -> Run {
    let mut c = Command::new(exe);
    c.arg(reps.to_string()).current_dir(dir).env("OMPADAPT_DIR", store).env("OMPADAPT_DRIFT", "0");
    for var in ["OMPADAPT_REPORT", "OMPADAPT_VARIANT", "OMPADAPT_TRACE", "OMPADAPT_MODEL"] {
        c.env_remove(var);
    }
    c.envs(env.iter().copied());
    let out = run(&mut c);
    out.expect_ok(&format!("the run {env:?}"));
    out
}

/// A variant's first execution in the process is cold whatever chose it. A second run starts
/// trained (the first saved its model) and decides from its first execution; a third pins
/// `scale` to `rev`. In each, every (region, variant) that ran has exactly one cold execution,
/// `scale`'s (one thread) is its variant's first and decided, and `ompadapt trace` leaves the
/// cold ones out of the means it prints.
#[test]
fn a_first_decided_execution_is_cold_and_left_out_of_the_mean() {
    let dir = scratch();
    let d = dir.path();
    let exe = build(d);
    let store = d.join(".ompadapt");
    stored_run(&exe, d, &store, 10, &[]);
    for (what, pin) in [("trained", None), ("pinned", Some("scale:rev"))] {
        let path = d.join(format!("{what}.trace.json"));
        let t = path.display().to_string();
        let mut env = vec![("OMPADAPT_TRACE", t.as_str())];
        env.extend(pin.map(|p| ("OMPADAPT_VARIANT", p)));
        stored_run(&exe, d, &store, 6, &env);
        let trace = read_json(&path);
        let mut xs = executions(&trace);
        xs.sort_by(|a, b| a["ts"].as_f64().unwrap().total_cmp(&b["ts"].as_f64().unwrap()));
        let mut by: BTreeMap<(String, String), Vec<&Value>> = BTreeMap::new();
        for e in &xs {
            by.entry((e["name"].as_str().unwrap().into(), e["args"]["variant"].as_str().unwrap().into())).or_default().push(e);
        }
        for ((region, variant), evs) in &by {
            let cold = evs.iter().filter(|e| e["args"]["cold"] == true).count();
            assert_eq!(cold, 1, "{what}: {region}/{variant} has {cold} cold executions of {}", evs.len());
            if region == "scale" {
                let first = evs[0];
                assert!(first["args"]["cold"] == true && first["args"]["mode"] == "decided", "{what}: {first}");
                let want = if pin.is_some() { "fixed" } else { "explored" };
                assert_eq!(first["args"]["decision"], want, "{what}: {first}");
            }
        }
        assert!(xs.iter().all(|e| e["args"]["mode"] == "decided"), "{what}: every execution decided");
        let summary: Value = serde_json::from_str(&ompadapt(&["--json", "trace", &t]).expect_ok("ompadapt --json trace").stdout).unwrap();
        for r in summary["regions"].as_array().unwrap() {
            let region = r["region"].as_str().unwrap();
            for v in r["variants"].as_array().unwrap().iter().filter(|v| v["executions"].as_u64() > Some(0)) {
                let evs = &by[&(region.to_owned(), v["variant"].as_str().unwrap().to_owned())];
                let warm: Vec<f64> = evs.iter().filter(|e| e["args"]["cold"] != true).map(|e| e["dur"].as_f64().unwrap()).collect();
                assert_eq!(v["cold"], 1, "{what}: {v}");
                if warm.is_empty() {
                    continue;
                }
                let mean = warm.iter().sum::<f64>() / warm.len() as f64;
                assert!((v["mean_us"].as_f64().unwrap() - mean).abs() <= 1e-6 * mean.max(1.0), "{what}: {v}, warm mean {mean}");
            }
        }
        let text = ompadapt(&["trace", &t]).expect_ok("ompadapt trace").stdout.clone();
        assert!(text.contains("cold);") || text.contains("(all cold)"), "{text}");
    }
}

#[test]
fn the_cap_counts_the_executions_it_drops() {
    let dir = scratch();
    let d = dir.path();
    let exe = build(d);
    let (out, trace_path, report_path) = traced_run(&exe, d, 20, &[("OMPADAPT_TRACE_MAX", "100")]);
    let (trace, report) = (read_json(&trace_path), read_json(&report_path));
    let total: u64 = report["regions"].as_array().unwrap().iter().map(|r| r["executions"].as_u64().unwrap()).sum();
    assert_eq!(total, 20 * 12);
    let xs = executions(&trace);
    // the main thread alone runs more than 100 executions: it takes the whole cap
    assert_eq!(xs.len(), 100);
    let dropped = trace["otherData"]["dropped"].as_u64().unwrap();
    assert_eq!(dropped, total - 100);
    assert_eq!((trace["otherData"]["events"].as_u64(), trace["otherData"]["max_events"].as_u64()), (Some(100), Some(100)));
    let lines: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with("ompadapt:")).collect();
    assert_eq!(lines.len(), 1, "one line:\n{}", out.stderr);
    assert!(lines[0].contains(&format!("{dropped} more were not recorded (OMPADAPT_TRACE_MAX=100)")), "{}", lines[0]);
    let size = std::fs::metadata(&trace_path).unwrap().len();
    assert!(size < 8192 + 100 * 400, "{size} bytes for 100 events");
    let text = ompadapt(&["trace", trace_path.to_str().unwrap()]).expect_ok("ompadapt trace").stdout.clone();
    assert!(text.contains(&format!("100 executions on")) && text.contains(&format!("{dropped} dropped")), "{text}");
}

#[test]
fn a_link_at_the_trace_path_is_replaced_not_followed() {
    let dir = scratch();
    let d = dir.path();
    let exe = build(d);
    let victim = d.join("victim.txt");
    std::fs::write(&victim, "victim's file\n").unwrap();
    std::os::unix::fs::symlink(&victim, d.join("trace.json")).unwrap();
    let (_, trace_path, _) = traced_run(&exe, d, 2, &[]);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "victim's file\n", "the trace went through the link");
    assert!(std::fs::symlink_metadata(&trace_path).unwrap().file_type().is_file(), "a regular file replaced the link");
    assert_eq!(executions(&read_json(&trace_path)).len(), 2 * 12);
}
