//! The three ways issue 41 found a region observing what a variant changes, each a program of
//! tests/programs/holes/ in C (and in Fortran where flang-19 can run it): every program is built
//! stock and in both adaptive builds (C: the frontend plugin's zero-source-change mode and the
//! pass alone; Fortran: the pass alone), and
//! - with every region pinned to each variant any region of the program has (`OMPADAPT_VARIANT`),
//! - under the real runtime, three runs sharing one store,
//!
//! prints exactly what stock prints at the same team size. The shapes: `declare target` globals a
//! kernel writes and reads (the `cpu` variant must see the device's copy, also when it runs
//! first); reductions whose private copy is updated other than through the reduction's operator
//! (left as written); `num_threads` (the base of the team variants). Fortran has no program for
//! the first: flang-19 cannot link `-fopenmp-targets`, and a `declare target` module variable
//! crashes its stock build's host fallback. A Fortran program with a `target` construct links
//! libomptarget and runs with `OMP_TARGET_OFFLOAD=DISABLED` (flang-19 builds no offload image);
//! such programs are named `target_*.f90`.

use ompadapt_tests::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const FLANG: &str = "flang-new-19";

fn holes() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(source("programs/holes"))
        .expect("tests/programs/holes")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c" || x == "f90"))
        .collect();
    v.sort();
    v
}

/// Whether `src` is Fortran with a `target` construct: built against libomptarget without an
/// offload image, run with offloading disabled.
fn fortran_target(src: &Path) -> bool {
    src.extension().is_some_and(|x| x == "f90") && std::fs::read_to_string(src).is_ok_and(|t| t.to_lowercase().contains("!$omp target"))
}

fn build(src: &Path, exe: &Path, mode: &str) -> Run {
    let fortran = src.extension().is_some_and(|x| x == "f90");
    let mut c = Command::new(if fortran { FLANG } else { CLANG });
    c.args(["-O2", "-fopenmp", "-g"]).env_remove("OMPADAPT_AUTO");
    if !fortran {
        c.arg(HOST_OFFLOAD).arg("-Wl,-rpath,/usr/lib/llvm-19/lib");
    }
    if fortran {
        // flang writes a module's .mod file where it runs: beside the executable, not the sources
        c.arg("-J").arg(exe.parent().unwrap());
    }
    if fortran_target(src) {
        c.args(["-L/usr/lib/llvm-19/lib", "-lomptarget", "-Wl,-rpath,/usr/lib/llvm-19/lib"]);
    }
    match mode {
        "auto" => {
            c.arg(format!("-fplugin={}", plugin().display())).arg("-fplugin-arg-ompadapt-auto");
        }
        "pass" => {
            c.arg(format!("-fpass-plugin={}", pass_plugin().display()));
        }
        _ => {}
    }
    c.arg(src).arg("-o").arg(exe);
    run(&mut c)
}

fn run_in(exe: &Path, dir: &Path, env: &[(&str, &str)]) -> Run {
    let disabled = exe.file_name().is_some_and(|n| n.to_string_lossy().starts_with("target_"));
    let mut all: Vec<(&str, &str)> = if disabled { vec![("OMP_TARGET_OFFLOAD", "DISABLED")] } else { Vec::new() };
    all.extend_from_slice(env);
    run_isolated(exe, dir, &all)
}

/// Every variant some region of the program has, from one run's report (none without a
/// report: a program with no adaptive region never starts the runtime).
fn variants(exe: &Path, dir: &Path) -> BTreeSet<String> {
    let json = dir.join("report.json");
    run_in(exe, dir, &[("OMPADAPT_REPORT", &format!("json:{}", json.display()))]);
    let Ok(text) = std::fs::read_to_string(&json) else { return BTreeSet::new() };
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["regions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["variants"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn every_variant_prints_what_stock_prints() {
    let scratch = scratch();
    for src in holes() {
        let name = src.file_name().unwrap().to_string_lossy().into_owned();
        let fortran = name.ends_with(".f90");
        let stock_exe = scratch.path().join(format!("{name}.stock"));
        build(&src, &stock_exe, "stock").expect_ok(&format!("{name}: stock build"));
        let stock = run_in(&stock_exe, scratch.path(), &[]).stdout;
        let modes: &[&str] = if fortran { &["pass"] } else { &["auto", "pass"] };
        for mode in modes {
            let exe = scratch.path().join(format!("{name}.{mode}"));
            build(&src, &exe, mode).expect_ok(&format!("{name}: {mode} build"));
            let dir = tempfile::tempdir().unwrap();
            let variants = variants(&exe, dir.path());
            // a program the model keeps whole as written says so in its text
            let as_written = std::fs::read_to_string(&src).unwrap().contains("holes: every region left as written");
            assert_eq!(variants.is_empty(), as_written, "{name} ({mode}): adaptive regions {variants:?}");
            for v in &variants {
                let d = tempfile::tempdir().unwrap();
                let out = run_in(&exe, d.path(), &[("OMPADAPT_VARIANT", v)]);
                assert_eq!(out.stdout, stock, "{name} ({mode}) pinned to {v}");
            }
            let d = tempfile::tempdir().unwrap();
            for k in 0..3 {
                let out = run_in(&exe, d.path(), &[]);
                assert_eq!(out.stdout, stock, "{name} ({mode}) under the runtime, run {k}");
            }
        }
    }
}

/// The regions the analysis must leave as written stay so in both builds, with the reason.
#[test]
fn reductions_combined_otherwise_stay_as_written() {
    let scratch = scratch();
    for src in holes().into_iter().filter(|p| p.file_stem().is_some_and(|s| s == "reduction_updates")) {
        let fortran = src.extension().is_some_and(|x| x == "f90");
        let modes: &[&str] = if fortran { &["pass"] } else { &["auto", "pass"] };
        for mode in modes {
            let mut c = Command::new(if fortran { FLANG } else { CLANG });
            c.args(["-O2", "-fopenmp", "-g", "-c", "-Rpass-missed=ompadapt"]).env_remove("OMPADAPT_AUTO");
            match *mode {
                "auto" => c.arg(format!("-fplugin={}", plugin().display())).arg("-fplugin-arg-ompadapt-auto"),
                _ => c.arg(format!("-fpass-plugin={}", pass_plugin().display())),
            };
            c.arg(&src).arg("-o").arg(scratch.path().join("r.o"));
            let out = run(&mut c);
            out.expect_ok("compile");
            let operators = ["(+)", "(*)"];
            for op in operators {
                assert!(
                    out.stderr
                        .lines()
                        .any(|l| l.contains("[OMPADAPT146]") && l.contains(&format!("other than the reduction's operator {op}"))),
                    "{} ({mode}): no OMPADAPT146 for the {op} reduction updated otherwise:\n{}",
                    src.display(),
                    out.stderr
                );
            }
        }
    }
}

/// Every mix of variants over a program's regions (each region pinned on its own, the others to
/// another variant): a launch's copies must not depend on what an earlier launch ran as.
#[test]
fn every_mix_of_two_variants_prints_what_stock_prints() {
    let scratch = scratch();
    let src = source("programs/holes/pointer_to_pointer.c");
    let stock_exe = scratch.path().join("p2p.stock");
    build(&src, &stock_exe, "stock").expect_ok("stock build");
    let stock = run_in(&stock_exe, scratch.path(), &[]).stdout;
    for mode in ["auto", "pass"] {
        let exe = scratch.path().join(format!("p2p.{mode}"));
        build(&src, &exe, mode).expect_ok(&format!("{mode} build"));
        let json = scratch.path().join(format!("{mode}.json"));
        run_in(&exe, scratch.path(), &[("OMPADAPT_REPORT", &format!("json:{}", json.display()))]);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let regions: Vec<String> = doc["regions"].as_array().unwrap().iter().map(|r| r["region"].as_str().unwrap().to_string()).collect();
        assert_eq!(regions.len(), 2, "{mode}: the two launches are regions: {regions:?}");
        for (first, second) in [("gpu", "cpu"), ("cpu", "gpu"), ("cpu", "cpu"), ("gpu", "gpu")] {
            let pin = format!("{}:{first};{}:{second}", regions[0], regions[1]);
            let d = tempfile::tempdir().unwrap();
            let out = run_in(&exe, d.path(), &[("OMPADAPT_VARIANT", &pin)]);
            assert_eq!(out.stdout, stock, "{mode} pinned {pin}");
        }
    }
}

/// `threads=1` is the team the program asked for — the `num_threads` clause's, also above the
/// machine's default team — and the program's own push never reaches the runtime's start-up
/// region: an OMPT tool (tests/programs/tools/team_sizes.c) prints the team each region asked
/// for. The regions: `num_threads(n)` with n = 3, then `num_threads(1)`.
#[test]
fn threads_one_is_the_clause_team() {
    let scratch = scratch();
    let tool = scratch.path().join("team_sizes.so");
    run(Command::new(CLANG).args(["-shared", "-fPIC", "-o"]).arg(&tool).arg(source("programs/tools/team_sizes.c"))).expect_ok("the tool");
    let src = source("programs/holes/num_threads.c");
    let teams = |exe: &Path, variant: &str| -> String {
        let d = tempfile::tempdir().unwrap();
        let mut env = vec![("OMP_TOOL_LIBRARIES", tool.to_str().unwrap()), ("OMPADAPT_PERSIST", "0")];
        if !variant.is_empty() {
            env.push(("OMPADAPT_VARIANT", variant));
        }
        let out = run_in(exe, d.path(), &env);
        out.stderr.lines().find_map(|l| l.strip_prefix("teams:")).expect("the tool's line").trim().to_string()
    };
    let stock = scratch.path().join("nt.stock");
    build(&src, &stock, "stock").expect_ok("stock build");
    assert_eq!(teams(&stock, ""), "3 1", "stock at OMP_NUM_THREADS=2");
    for mode in ["auto", "pass"] {
        let exe = scratch.path().join(format!("nt.{mode}"));
        build(&src, &exe, mode).expect_ok(&format!("{mode} build"));
        // the first region the runtime's start-up parallel region (the default team), then the
        // program's two at the clause's teams
        assert_eq!(teams(&exe, "threads=1"), "2 3 1", "{mode} pinned to threads=1");
        assert_eq!(teams(&exe, "serial"), "2 1 1", "{mode} pinned to serial");
    }
}
