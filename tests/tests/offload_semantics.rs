//! The `cpu` variant ends in exactly the state the offload leaves: an unmodified program with
//! the shapes of real offload code (tests/programs/host_guard/offload_semantics.cpp: LULESH's
//! `target data` with `to`/`alloc` sections around kernels without maps and `declare target`
//! helpers writing through pointers, host arrays re-sent or read stale after device-only
//! writes, sub- and offset sections of enclosing mappings, `always from`, a class mapping its
//! data in its constructor, an attached pointer member) is built stock and in zero-source-change
//! mode, and every region pinned to `cpu` — all together and one at a time, the others `gpu` —
//! must print exactly what the stock build prints, with no region refusing `cpu`.

use ompadapt_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const SOURCE: &str = "programs/host_guard/offload_semantics.cpp";

fn build(dir: &Path, name: &str, opt: &str, adaptive: bool) -> PathBuf {
    let exe = dir.join(name);
    let mut c = Command::new(CLANG);
    c.args(["-x", "c++", opt, "-fopenmp", HOST_OFFLOAD, "-Wl,-rpath,/usr/lib/llvm-19/lib"]);
    if adaptive {
        c.arg(format!("-fplugin={}", plugin().display())).arg("-fplugin-arg-ompadapt-auto=cpu,gpu");
    }
    run(c.arg(source(SOURCE)).arg("-lstdc++").arg("-o").arg(&exe)).expect_ok(&format!("building {name}"));
    exe
}

/// The regions of a run's JSON report: name, whether `cpu` was refused, and the executions
/// whose copies were made (0 when the host version never ran).
fn regions(report: &Path) -> Vec<(String, bool, u64)> {
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    doc["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["region"].as_str().unwrap().to_string(),
                r.get("unavailable").is_some(),
                r["host_copies"]["executions"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn every_pin_prints_what_the_stock_build_prints() {
    let dir = scratch();
    let stock = build(dir.path(), "stock", "-O2", false);
    let expected = run_program(&stock, dir.path(), &[]);
    expected.expect_ok("the stock build");
    for opt in ["-O0", "-O2"] {
        let exe = build(dir.path(), &format!("adaptive{opt}"), opt, true);
        let report = dir.path().join(format!("all_cpu{opt}.json"));
        let pinned = |pin: &str, report: Option<&Path>| {
            let json = report.map(|r| format!("json:{}", r.display()));
            let mut env = vec![("OMPADAPT_PERSIST", "0"), ("OMPADAPT_VARIANT", pin)];
            if let Some(j) = &json {
                env.push(("OMPADAPT_REPORT", j));
            }
            let out = run_program(&exe, dir.path(), &env);
            let what = format!("{opt}, OMPADAPT_VARIANT='{pin}'");
            out.expect_ok(&what);
            assert_eq!(out.stdout, expected.stdout, "{what}: output differs from the stock build");
            assert!(!out.stderr.contains("unavailable") && !out.stderr.contains("OMPADAPT_VARIANT"), "{what}: {}", out.stderr);
        };
        pinned("gpu", None);
        pinned("cpu", Some(&report));
        let all = regions(&report);
        assert_eq!(all.len(), 12, "{all:?}");
        for (name, refused, copied) in &all {
            assert!(!refused && *copied > 0, "{opt}: region '{name}' did not run its host version with copies: {all:?}");
        }
        // one region at a time: it alone runs its host version (the pin reached it)
        for (k, (name, ..)) in all.iter().enumerate() {
            let one = dir.path().join(format!("one{opt}_{k}.json"));
            pinned(&format!("gpu;{name}:cpu"), Some(&one));
            for (other, _, copied) in regions(&one) {
                assert_eq!(copied > 0, other == *name, "{opt}, '{name}' pinned cpu: region '{other}' ran its host version {copied} times");
            }
        }
    }
}

/// The real runtime, three runs on one store: it explores both variants of every region (each
/// runs on the host at least once) and the output stays the stock build's.
#[test]
fn the_real_runtime_keeps_the_stock_output() {
    let dir = scratch();
    let stock = build(dir.path(), "stock", "-O2", false);
    let expected = run_program(&stock, dir.path(), &[]);
    let exe = build(dir.path(), "adaptive", "-O2", true);
    for round in 0..3 {
        let report = dir.path().join(format!("run{round}.json"));
        let json = format!("json:{}", report.display());
        let out = run_program(&exe, dir.path(), &[("OMPADAPT_REPORT", &json)]);
        out.expect_ok(&format!("run {round}"));
        assert_eq!(out.stdout, expected.stdout, "run {round}: output differs from the stock build");
        if round == 0 {
            let all = regions(&report);
            assert!(all.iter().all(|(_, refused, copied)| !refused && *copied > 0), "{all:?}");
        }
    }
}
