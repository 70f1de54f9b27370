//! Liao et al.'s `declare adaptation` in real programs under host offload (libomptarget's host
//! plugin: separate device memory, so a data region that disagrees with the kernel's variant
//! gives wrong results), every result checked by the program, decisions checked on the
//! runtime's JSON report.

use ompadapt_tests::*;
use serde_json::Value;
use std::path::Path;

fn build_c(name: &str, dir: &Path) -> std::path::PathBuf {
    let exe = dir.join(name);
    let out = compile(&source(&format!("programs/{name}.c")), &exe, &["-O2"]);
    out.expect_ok(&format!("compiling {name}.c"));
    assert!(!out.stderr.contains("warning"), "{name}.c: {}", out.stderr);
    exe
}

/// Runs `exe` with a JSON report; returns its output and the report.
fn run_json(exe: &Path, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (Run, Value) {
    let report = dir.join("report.json");
    let _ = std::fs::remove_file(&report);
    let spec = format!("json:{}", report.display());
    let mut all: Vec<(&str, &str)> = vec![("OMPADAPT_REPORT", &spec)];
    all.extend_from_slice(env);
    let mut c = std::process::Command::new(exe);
    c.current_dir(dir).env("OMPADAPT_DIR", dir.join(".ompadapt")).args(args);
    for (k, v) in &all {
        c.env(k, v);
    }
    let out = run(&mut c);
    out.expect_ok(&exe.display().to_string());
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&report).expect("report written")).unwrap();
    (out, json)
}

fn region<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["regions"].as_array().unwrap().iter().find(|r| r["region"] == name).unwrap_or_else(|| panic!("no region {name} in {report:#}"))
}

fn region_starting<'a>(report: &'a Value, prefix: &str) -> Vec<&'a Value> {
    report["regions"].as_array().unwrap().iter().filter(|r| r["region"].as_str().unwrap().starts_with(prefix)).collect()
}

/// Exploring executions recorded per variant (cumulative over runs).
fn explored(r: &Value) -> Vec<u64> {
    let n = r["variants"].as_array().unwrap().len();
    let mut out = vec![0; n];
    for t in r["timings"].as_array().unwrap() {
        let v = r["variants"].as_array().unwrap().iter().position(|x| *x == t["variant"]).unwrap();
        out[v] += t["exploring_runs"].as_u64().unwrap();
    }
    out
}

#[test]
fn figure_7_data_regions_follow_the_primary_across_runs() {
    let dir = scratch();
    let exe = build_c("declare_sw", dir.path());
    let mut before = vec![0u64; 3];
    let mut pinned_runs = Vec::new();
    for run in 0..5 {
        let (out, rep) = run_json(&exe, dir.path(), &["40", "40"], &[]);
        assert!(out.stdout.contains("RESULT ok"), "run {run}: {}\n{}", out.stdout, out.stderr);
        let p = region(&rep, "scoring_loop");
        assert_eq!(p["min_train"], 3, "min_sample_points(1) x 3 variants");
        let now = explored(p);
        let grew: Vec<usize> = (0..3).filter(|&v| now[v] > before[v]).collect();
        let trained = p["model"].is_object() && run > 0 && p["chosen_by_model"].as_u64().unwrap() > 0;
        // One variant for the whole run: the one the first associated region fixed.
        let ran = if grew.len() == 1 {
            grew[0]
        } else {
            assert!(trained && grew.is_empty(), "run {run}: variants {grew:?} grew ({before:?} -> {now:?})");
            // trained at start-up: the model's decision for the vector, also pinned
            let d = p["decisions"][0]["decision"].as_str().unwrap().to_string();
            p["variants"].as_array().unwrap().iter().position(|x| *x == d.as_str()).unwrap()
        };
        pinned_runs.push(ran);
        before = now;
        let assoc = region_starting(&rep, "scoring_loop<-");
        assert_eq!(assoc.len(), 2, "enter and exit data");
        for a in assoc {
            assert_eq!(a["declared"]["use_model"], "scoring_loop");
            let runs: Vec<u64> = a["declared"]["runs"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
            let want = if ran == 2 { vec![1, 0] } else { vec![0, 1] };
            assert_eq!(runs, want, "run {run}: primary ran variant {ran}, {} ran {runs:?}", a["region"]);
        }
    }
    // Runs without a model explore the variants in turn (the least measured first).
    assert_eq!(&pinned_runs[..3], &[0, 1, 2], "{pinned_runs:?}");
    assert_eq!(pinned_runs[3], pinned_runs[4], "a trained model decides the same in every run");

    // Outside the declared range [32:100]: counted, said once.
    let (out, rep) = run_json(&exe, dir.path(), &["64", "64"], &[]);
    assert!(out.stdout.contains("RESULT ok"));
    let p = region(&rep, "scoring_loop");
    assert_eq!(p["declared"]["outside_range"], 127, "every execution with nDiag = 127");
    assert_eq!(out.stderr.matches("outside its declared range [32, 100]").count(), 1, "{}", out.stderr);
}

#[test]
fn figure_6_fine_grained_with_the_openmp_context_as_a_feature() {
    let dir = scratch();
    let exe = build_c("declare_fine", dir.path());
    let (out, rep) = run_json(&exe, dir.path(), &[], &[("OMPADAPT_PERSIST", "0")]);
    assert!(out.stdout.contains("RESULT ok"), "{}", out.stderr);
    let threads: f64 = out.stdout.lines().find_map(|l| l.strip_prefix("THREADS ")).unwrap().trim().parse().unwrap();
    let r = &rep["regions"][0];
    assert!(r["region"].as_str().unwrap().starts_with("declare@declare_fine.c:"), "{}", r["region"]);
    assert_eq!(r["features"], serde_json::json!(["n", "omp_num_threads"]));
    assert_eq!(r["variants"].as_array().unwrap().len(), 3);
    assert_eq!(r["min_train"], 9, "min_sample_points(3) x 3 variants");
    assert!(r["model"]["kind"].as_str().unwrap().contains("forest"), "{}", r["model"]);
    // Every size explored every variant (serial, CPU threads, offload), with the thread count
    // as the second feature.
    for t in r["timings"].as_array().unwrap() {
        assert_eq!(t["features"][1].as_f64().unwrap(), threads);
        assert!(t["exploring_runs"].as_u64().unwrap() + t["model_runs"].as_u64().unwrap() >= 1, "{t}");
    }
    assert_eq!(r["timings"].as_array().unwrap().len(), 9, "3 sizes x 3 variants");
}

#[test]
fn associated_region_without_a_primary_says_so_once_and_runs_plain() {
    let dir = scratch();
    let exe = build_c("declare_orphan", dir.path());
    let out = run_program(&exe, dir.path(), &[("OMPADAPT_PERSIST", "0")]);
    out.expect_ok("declare_orphan");
    assert!(out.stdout.contains("RESULT ok"));
    let lines: Vec<&str> = out.stderr.lines().filter(|l| l.contains("names no primary region")).collect();
    assert_eq!(lines.len(), 2, "one line per associated region, not per execution:\n{}", out.stderr);
    assert!(lines[0].starts_with("ompadapt: warning: region 'nowhere<-declare_orphan.c:8'"), "{}", lines[0]);
}

#[test]
fn a_thousand_and_one_variants_compile_and_adapt() {
    let dir = scratch();
    let exe = build_c("many_variants", dir.path());
    let out = run_program(&exe, dir.path(), &[("OMPADAPT_PERSIST", "0")]);
    out.expect_ok("many_variants");
    assert!(!out.stderr.contains("malformed"), "{}", out.stderr);
    let values: std::collections::BTreeSet<String> =
        out.stdout.lines().filter_map(|l| l.strip_prefix("VALUE ")).map(String::from).collect();
    // Round-robin over two feature vectors: 550 executions each, each a distinct variant.
    assert_eq!(values.len(), 550);
    assert!(values.iter().all(|v| v.parse::<f64>().is_ok_and(|x| (0.0..=1.0).contains(&x))));
}

#[test]
fn cplusplus_templates_members_lambdas_and_a_header_in_two_units() {
    let dir = scratch();
    let plugin = plugin();
    let objs: Vec<std::path::PathBuf> = ["unit_a", "unit_b"]
        .iter()
        .map(|u| {
            let obj = dir.path().join(format!("{u}.o"));
            let mut c = std::process::Command::new("clang++-19");
            c.args(["-O2", "-fopenmp", HOST_OFFLOAD, "-c"])
                .arg(format!("-fplugin={}", plugin.display()))
                .arg(source(&format!("programs/cxx/{u}.cpp")))
                .arg("-o")
                .arg(&obj);
            let out = run(&mut c);
            out.expect_ok(u);
            assert!(!out.stderr.contains("warning"), "{u}: {}", out.stderr);
            obj
        })
        .collect();
    let exe = dir.path().join("cxxprog");
    let mut link = std::process::Command::new("clang++-19");
    link.args(["-fopenmp", HOST_OFFLOAD]).args(&objs).arg("-o").arg(&exe);
    run(&mut link).expect_ok("linking");
    let (out, rep) = run_json(&exe, dir.path(), &[], &[("OMPADAPT_PERSIST", "0")]);
    assert!(out.stdout.contains("RESULT ok"), "{}\n{}", out.stdout, out.stderr);
    // The header's unnamed primary is one region for both units (float and double calls).
    let scale = region_starting(&rep, "declare@kernels.hpp:");
    assert_eq!(scale.len(), 1);
    assert_eq!(scale[0]["executions"], 16, "8 calls from each unit");
    assert_eq!(region(&rep, "relax")["executions"], 8);
    let reduce = region(&rep, "reduce");
    assert_eq!(reduce["executions"], 8);
    // features shown as written; the scoped enum's value is its underlying value (1)
    assert_eq!(reduce["features"], serde_json::json!(["v.size()", "mode"]));
    assert!(reduce["timings"].as_array().unwrap().iter().all(|t| t["features"][1] == 1.0));
}
