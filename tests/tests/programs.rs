//! Real OpenMP programs compiled with clang-19 -fopenmp, host offload and -fplugin=libompadapt.so:
//! results must equal a serial loop for every variant, and learned decisions must be right.

use ompadapt_tests::*;
use std::collections::BTreeSet;

fn build(name: &str, dir: &std::path::Path, extra: &[&str]) -> std::path::PathBuf {
    let exe = dir.join(name);
    let src = source(&format!("programs/{name}.c"));
    compile(&src, &exe, extra).expect_ok(&format!("compiling {name}.c"));
    exe
}

#[test]
fn listing3_metadirective_runs_both_variants_with_correct_results() {
    let dir = scratch();
    for opt in ["-O0", "-O2"] {
        let exe = build("listing3", dir.path(), &[opt]);
        let out = run_program(&exe, dir.path(), &[("OMPADAPT_PERSIST", "0")]);
        out.expect_ok("listing3 (checks every result against a serial loop)");
        let runs = records(&out.stdout, "RUN");
        assert_eq!(runs.len(), 12);
        let variants: BTreeSet<&str> = runs.iter().map(|r| r["variant"].as_str()).collect();
        assert_eq!(variants, BTreeSet::from(["0", "1"]), "both cpu and gpu must have run ({opt})");
    }
}

#[test]
fn listing4_thread_limit_variants_reach_the_program() {
    let dir = scratch();
    let exe = build("listing4", dir.path(), &["-O2"]);
    let out = run_program(&exe, dir.path(), &[("OMPADAPT_PERSIST", "0")]);
    out.expect_ok("listing4");
    let threads: BTreeSet<u32> =
        records(&out.stdout, "RUN").iter().map(|r| r["threads"].parse().unwrap()).collect();
    let expected: BTreeSet<u32> = (1..=16).map(|i| 64 * i).collect();
    assert_eq!(threads, expected, "exploration must deliver each of the 16 thread counts");
}

#[test]
fn single_region_form_dispatches_between_host_and_offload() {
    let dir = scratch();
    for opt in ["-O0", "-O2"] {
        let exe = build("offload_dispatch", dir.path(), &[opt]);
        for mode in [None, Some("MANDATORY")] {
            let env: Vec<(&str, &str)> = match mode {
                Some(m) => vec![("OMPADAPT_PERSIST", "0"), ("OMP_TARGET_OFFLOAD", m)],
                None => vec![("OMPADAPT_PERSIST", "0")],
            };
            let out = run_program(&exe, dir.path(), &env);
            out.expect_ok("offload_dispatch");
            let runs = records(&out.stdout, "RUN");
            assert_eq!(runs.len(), 8);
            let mut seen = BTreeSet::new();
            for r in &runs {
                let n: usize = r["of"].parse().unwrap();
                let on_host: usize = r["on_host"].parse().unwrap();
                match r["variant"].as_str() {
                    // cpu: the host version of the outlined region, on the initial device.
                    "0" => assert_eq!(on_host, n, "cpu variant must not offload ({opt}, {mode:?})"),
                    // gpu: the offload, run by libomptarget's host plugin (not the initial device).
                    "1" => assert_eq!(on_host, 0, "gpu variant must offload ({opt}, {mode:?})"),
                    v => panic!("unexpected variant {v}"),
                }
                seen.insert(r["variant"].clone());
            }
            assert_eq!(seen.len(), 2, "both variants must have run");
            assert!(!out.stderr.contains("pass did not run"), "{}", out.stderr);
        }
    }
}

fn decisions(stdout: &str) -> Vec<(u32, u32)> {
    records(stdout, "DECISION").iter().map(|r| (r["n"].parse().unwrap(), r["variant"].parse().unwrap())).collect()
}

/// The cheaper variant of tests/programs/controlled_cost.c for feature n.
fn cheaper(n: u32) -> u32 {
    u32::from(n > 500)
}

#[test]
fn controlled_costs_are_learned_per_feature_value() {
    let dir = scratch();
    let exe = build("controlled_cost", dir.path(), &["-O2"]);
    let out = run_program(&exe, dir.path(), &[("OMPADAPT_PERSIST", "0")]);
    out.expect_ok("controlled_cost");
    let d = decisions(&out.stdout);
    assert_eq!(d.len(), 8);
    for (n, v) in d {
        assert_eq!(v, cheaper(n), "wrong decision for n={n}:\n{}", out.stdout);
    }
}

#[test]
fn a_second_run_starts_trained_from_persisted_data() {
    let dir = scratch();
    let exe = build("controlled_cost", dir.path(), &["-O2"]);
    run_program(&exe, dir.path(), &[]).expect_ok("training run");
    assert!(dir.path().join(".ompadapt").exists(), "the training run must persist its samples under OMPADAPT_DIR");
    // `query` explores nothing: every decision it prints comes from what the first run stored.
    let mut c = std::process::Command::new(&exe);
    c.arg("query").current_dir(dir.path()).env("OMPADAPT_DIR", dir.path().join(".ompadapt"));
    let query = run(&mut c);
    query.expect_ok("query run");
    let d = decisions(&query.stdout);
    assert_eq!(d.len(), 8);
    for (n, v) in d {
        assert_eq!(v, cheaper(n), "a run that starts from persisted data must decide right away (n={n})");
    }
}
