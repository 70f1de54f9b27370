//! Pass-only mode end to end (docs/pass-only.md): a C program built with clang-19 and
//! `-fpass-plugin=libompadapt_pass.so` alone (no frontend plugin) has adaptive regions, learns
//! across runs and prints what stock prints under every pin; the kinds follow `OMPADAPT_AUTO`;
//! a translation unit the frontend plugin compiled without `-auto` gets no region it did not ask
//! for; LTO (full and thin) builds and adapts.

use ompadapt_tests::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const PROGRAM: &str = r#"
#include <stdio.h>
#include <stdlib.h>
void scale(int n, double *x, double a);
static double sum(int n, const double *x) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  double *x = malloc(sizeof(double) * n);
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    x[i] = i % 7;
  for (int r = 0; r < 30; r++)
    scale(n, x, r % 2 ? 0.5 : 2.0);
  /* integer-valued: exact in any order */
  printf("sum %.17g\n", sum(n, x));
  free(x);
  return 0;
}
"#;

const SCALE: &str = r#"
void scale(int n, double *x, double a) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    x[i] *= a;
}
"#;

fn write_sources(dir: &Path) {
    std::fs::write(dir.join("main.c"), PROGRAM).unwrap();
    std::fs::write(dir.join("scale.c"), SCALE).unwrap();
}

/// Compiles main.c and scale.c (each with `flags`) and links them into `exe`.
fn build(dir: &Path, exe: &str, flags: &[&str], env: &[(&str, &str)]) -> Run {
    let (mut objects, mut said) = (Vec::new(), String::new());
    for src in ["main.c", "scale.c"] {
        let obj = format!("{exe}.{src}.o");
        let mut c = Command::new(CLANG);
        c.current_dir(dir)
            .env_remove("OMPADAPT_AUTO")
            .args(["-O2", "-fopenmp", "-gline-tables-only", "-c"])
            .args(flags)
            .arg(src)
            .arg("-o")
            .arg(&obj);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = run(&mut c);
        if !out.ok() {
            return out;
        }
        said.push_str(&out.stderr);
        objects.push(obj);
    }
    let lto: Vec<&str> = flags.iter().copied().filter(|f| f.starts_with("-flto")).collect();
    let mut link = run(Command::new(CLANG)
        .current_dir(dir)
        .args(["-fopenmp", "-Wl,-rpath,/usr/lib/llvm-19/lib"])
        .args(&lto)
        .args(&objects)
        .arg("-o")
        .arg(exe));
    // what the compiler said, then the linker
    link.stderr = said + &link.stderr;
    link
}

fn run_exe(dir: &Path, exe: &str, store: &str, env: &[(&str, &str)]) -> (String, Vec<Value>) {
    let report = dir.join(format!("{exe}.{store}.json"));
    let _ = std::fs::remove_file(&report);
    let mut c = Command::new(dir.join(exe));
    c.current_dir(dir).env_remove("OMPADAPT_VARIANT").env_remove("OMPADAPT_RUNTIME").env("OMP_NUM_THREADS", "2");
    c.env("OMPADAPT_DIR", dir.join(store)).env("OMPADAPT_REPORT", format!("json:{}", report.display()));
    for (k, v) in env {
        c.env(k, v);
    }
    let out = run(&mut c);
    out.expect_ok(&format!("{exe} {env:?}"));
    let regions = std::fs::read_to_string(&report)
        .ok()
        .map(|t| serde_json::from_str::<Value>(&t).unwrap()["regions"].as_array().unwrap().clone())
        .unwrap_or_default();
    (out.stdout, regions)
}

fn names(regions: &[Value]) -> Vec<String> {
    let mut v: Vec<String> = regions.iter().map(|r| r["region"].as_str().unwrap().to_string()).collect();
    v.sort();
    v
}

#[test]
fn a_c_program_adapts_learns_and_prints_what_stock_prints() {
    let d = scratch();
    let dir = d.path();
    write_sources(dir);
    build(dir, "stock", &[], &[]).expect_ok("stock");
    let pass = format!("-fpass-plugin={}", pass_plugin().display());
    let out = build(dir, "pass", &[&pass, "-Rpass=ompadapt"], &[]);
    out.expect_ok("pass-only build");
    assert!(out.stderr.contains("[OMPADAPT150] region 'scale@scale.c:3'"), "{}", out.stderr);
    let (stock, _) = run_exe(dir, "stock", "s", &[]);
    let (first, regions) = run_exe(dir, "pass", "learn", &[]);
    assert_eq!(first, stock);
    assert_eq!(names(&regions), ["main@main.c:15", "scale@scale.c:3", "sum@main.c:7"]);
    let variants: Vec<&str> = regions[0]["variants"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(variants, ["serial", "threads=0.125", "threads=0.25", "threads=0.5", "threads=1"]);
    // learns across runs: the second run starts from the store
    for run_no in 2..=3 {
        let (out, regions) = run_exe(dir, "pass", "learn", &[]);
        assert_eq!(out, stock, "run {run_no}");
        let scale = regions.iter().find(|r| r["region"] == "scale@scale.c:3").unwrap();
        assert!(scale["loaded_samples"].as_u64().unwrap() > 0, "run {run_no}: {scale}");
        assert!(!scale["model"].is_null(), "run {run_no}: a model decides: {scale}");
    }
    // The features the runtime sees: the trip count the region's code stores, the static
    // features of its code (constants, which the region's table holds) each in its place.
    let scale = regions.iter().find(|r| r["region"] == "scale@scale.c:3").unwrap();
    let names: Vec<&str> = scale["features"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert_eq!(names, ["trip_count(loop1)", "ops", "flops", "comparisons", "memory_accesses", "loop_depth", "calls"], "{scale}");
    for t in scale["timings"].as_array().unwrap() {
        let f: Vec<f64> = t["features"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        let at = |name: &str| f[names.iter().position(|n| *n == name).unwrap()];
        assert_eq!(f.len(), names.len(), "{t}");
        // (the runtime keys its vectors on a grid of half powers of two: 2^16.5 for 100000)
        assert!((at("trip_count(loop1)") / 100000.0 - 1.0).abs() < 0.25, "{t}");
        // x[i] *= a: one multiplication, loads and stores (of the unoptimised IR the pass sees
        // at the start of the pipeline), one loop, no call
        assert_eq!((at("flops"), at("loop_depth"), at("calls")), (1.0, 1.0, 0.0), "{t}");
        assert!(at("memory_accesses") >= 2.0 && at("ops") >= at("flops") + at("memory_accesses"), "{t}");
    }
    for v in ["serial", "threads=0.125", "threads=0.25", "threads=0.5", "threads=1"] {
        let (out, regions) = run_exe(dir, "pass", &format!("pin-{v}"), &[("OMPADAPT_VARIANT", v), ("OMPADAPT_PERSIST", "0")]);
        assert_eq!(out, stock, "pinned to {v}");
        for r in &regions {
            for t in r["timings"].as_array().unwrap() {
                let ran = t["exploring_runs"].as_u64().unwrap() + t["model_runs"].as_u64().unwrap();
                let same = ompadapt_rt::team::team_size(t["variant"].as_str().unwrap(), 2) == ompadapt_rt::team::team_size(v, 2);
                assert!(ran == 0 || same, "{} pinned to {v} ran {}", r["region"], t["variant"]);
            }
        }
    }
}

#[test]
fn kinds_follow_ompadapt_auto_and_the_frontend_keeps_its_own() {
    let d = scratch();
    let dir = d.path();
    write_sources(dir);
    let pass = format!("-fpass-plugin={}", pass_plugin().display());
    build(dir, "listed", &[&pass], &[("OMPADAPT_AUTO", "serial,num_threads[1:2:1]")]).expect_ok("OMPADAPT_AUTO list");
    let (_, regions) = run_exe(dir, "listed", "l", &[]);
    let variants: Vec<&str> = regions[0]["variants"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(variants, ["serial", "num_threads=1", "num_threads=2"]);
    build(dir, "off", &[&pass], &[("OMPADAPT_AUTO", "off")]).expect_ok("OMPADAPT_AUTO=off");
    assert!(run_exe(dir, "off", "o", &[]).1.is_empty(), "off: no region");
    let bad = build(dir, "bad", &[&pass], &[("OMPADAPT_AUTO", "serail")]);
    bad.expect_ok("a bad OMPADAPT_AUTO is a warning");
    assert!(bad.stderr.contains("OMPADAPT_AUTO='serail': 'serail' is not a variant kind; did you mean 'serial'?"), "{}", bad.stderr);
    // the frontend without -auto: only what the source asks for (nothing here), even with the pass
    let plugin = format!("-fplugin={}", plugin().display());
    build(dir, "explicit", &[&plugin, &pass], &[]).expect_ok("frontend, explicit mode");
    assert!(run_exe(dir, "explicit", "e", &[]).1.is_empty(), "explicit mode: no region");
}

#[test]
fn lto_builds_adapt() {
    let d = scratch();
    let dir = d.path();
    write_sources(dir);
    build(dir, "stock", &[], &[]).expect_ok("stock");
    let (stock, _) = run_exe(dir, "stock", "s", &[]);
    let pass = format!("-fpass-plugin={}", pass_plugin().display());
    for lto in ["-flto", "-flto=thin"] {
        let exe = format!("lto{}", lto.len());
        build(dir, &exe, &[&pass, lto], &[]).expect_ok(lto);
        let (out, regions) = run_exe(dir, &exe, lto, &[]);
        assert_eq!(out, stock, "{lto}");
        assert_eq!(names(&regions), ["main@main.c:15", "scale@scale.c:3", "sum@main.c:7"], "{lto}");
    }
}
