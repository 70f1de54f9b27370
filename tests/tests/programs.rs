//! Real OpenMP programs compiled with clang-19 -fopenmp, host offload and -fplugin=libompadapt.so:
//! results must equal a serial loop for every variant, and learned decisions must be right.

use ompadapt_tests::*;
use std::collections::BTreeSet;

fn build(name: &str, dir: &std::path::Path, extra: &[&str]) -> std::path::PathBuf {
    let exe = dir.join(name);
    let src = source(&format!("programs/{name}.c"));
    let out = compile(&src, &exe, extra);
    out.expect_ok(&format!("compiling {name}.c"));
    // Clang must see every directive the plugin re-emits as intended.
    assert!(!out.stderr.contains("extra tokens at the end"), "{name}.c: {}", out.stderr);
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
    let threads: BTreeSet<u32> = records(&out.stdout, "RUN").iter().map(|r| r["threads"].parse().unwrap()).collect();
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

/// Ok if every decision printed is the cheaper variant.
fn check_decisions(stdout: &str) -> Result<(), String> {
    let d = decisions(stdout);
    if d.len() != 8 {
        return Err(format!("expected 8 decisions:\n{stdout}"));
    }
    match d.iter().find(|(n, v)| *v != cheaper(*n)) {
        Some((n, v)) => Err(format!("n={n}: chose {v}, the cheaper is {}", cheaper(*n))),
        None => Ok(()),
    }
}

#[test]
fn controlled_costs_are_learned_per_feature_value() {
    let _timing = timing_lock();
    let dir = scratch();
    let exe = build("controlled_cost", dir.path(), &["-O2"]);
    with_retries(3, || {
        let out = run_program(&exe, dir.path(), &[("OMPADAPT_PERSIST", "0")]);
        out.expect_ok("controlled_cost");
        check_decisions(&out.stdout)
    });
}

#[test]
fn a_second_run_starts_trained_from_persisted_data() {
    let _timing = timing_lock();
    let dir = scratch();
    let exe = build("controlled_cost", dir.path(), &["-O2"]);
    with_retries(3, || {
        let store = dir.path().join(".ompadapt");
        let _ = std::fs::remove_dir_all(&store);
        let train = run_program(&exe, dir.path(), &[]);
        train.expect_ok("training run");
        check_decisions(&train.stdout)?;
        assert!(store.exists(), "the training run must persist its samples under OMPADAPT_DIR");
        // `query` explores nothing: every decision it prints comes from what the first run stored.
        let mut c = std::process::Command::new(&exe);
        c.arg("query").current_dir(dir.path()).env("OMPADAPT_DIR", &store);
        let query = run(&mut c);
        query.expect_ok("query run");
        check_decisions(&query.stdout).map_err(|e| format!("run from persisted data: {e}"))
    });
}

#[test]
fn explicit_link_with_lompadapt_rt_uses_the_linked_runtime() {
    let _timing = timing_lock();
    let dir = scratch();
    let lib = lib_dir();
    let exe = build(
        "controlled_cost",
        dir.path(),
        &["-O2", &format!("-L{}", lib.display()), "-lompadapt_rt", &format!("-Wl,-rpath,{}", lib.display())],
    );
    // A runtime path that cannot load: only the linked runtime can make the program learn.
    with_retries(3, || {
        let env = [("OMPADAPT_PERSIST", "0"), ("OMPADAPT_RUNTIME", "/nonexistent/libompadapt_rt.so")];
        let out = run_program(&exe, dir.path(), &env);
        out.expect_ok("controlled_cost linked with -lompadapt_rt");
        assert!(!out.stderr.contains("cannot use the runtime"), "{}", out.stderr);
        check_decisions(&out.stdout)
    });
}

#[test]
fn without_a_runtime_the_program_runs_its_first_variant() {
    let dir = scratch();
    let exe = build("listing4", dir.path(), &["-O2"]);
    let out = run_program(&exe, dir.path(), &[("OMPADAPT_RUNTIME", "/nonexistent/libompadapt_rt.so")]);
    out.expect_ok("listing4 without a runtime (results are still checked)");
    let threads: BTreeSet<u32> = records(&out.stdout, "RUN").iter().map(|r| r["threads"].parse().unwrap()).collect();
    assert_eq!(threads, BTreeSet::from([64]), "the first variant's value, which the generated code sets before asking the runtime");
    let complaints = out.stderr.lines().filter(|l| l.contains("cannot use the runtime library")).count();
    assert_eq!(complaints, 1, "exactly one line says why:\n{}", out.stderr);
}

#[test]
fn model_output_reaches_members_elements_and_dereferences() {
    let dir = scratch();
    let exe = build("output_targets", dir.path(), &["-O2"]);
    let report = dir.path().join("report.json");
    let spec = format!("json:{}", report.display());
    let env = [("OMPADAPT_PERSIST", "0"), ("OMP_NUM_TEAMS", "3"), ("OMPADAPT_REPORT", spec.as_str())];
    let out = run_program(&exe, dir.path(), &env);
    out.expect_ok("output_targets (every value is one of its region's variants)");
    assert!(out.stdout.contains("RESULT ok"), "{}", out.stdout);
    assert!(!out.stderr.contains("malformed"), "{}", out.stderr);
    let rows: Vec<Vec<f64>> =
        out.stdout.lines().filter_map(|l| l.strip_prefix("OUT ")).map(|l| l.split(' ').map(|x| x.parse().unwrap()).collect()).collect();
    assert_eq!(rows.len(), 300);
    let distinct = |col: usize| rows.iter().map(|r| r[col].to_string()).collect::<BTreeSet<_>>();
    // Two feature vectors explore all 128 thread counts each within 256 executions.
    let threads = distinct(0);
    assert_eq!(threads.len(), 128, "{threads:?}");
    assert_eq!(distinct(1), BTreeSet::from(["0.25".into(), "0.5".into(), "1.75".into()]));
    assert_eq!(distinct(2), BTreeSet::from(["0".into(), "1".into()]), "1.75 into a short is 1");
    assert_eq!(distinct(3).len(), 5, "[-1:1:0.5]: {:?}", distinct(3));
    // omp_num_teams is what a teams construct started there would get (OMP_NUM_TEAMS).
    let rep: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let deref = rep["regions"].as_array().unwrap().iter().find(|r| r["region"] == "deref").expect("region deref");
    assert_eq!(deref["features"], serde_json::json!(["k % 3", "omp_num_teams"]));
    let timings = deref["timings"].as_array().unwrap();
    assert!(!timings.is_empty() && timings.iter().all(|t| t["features"][1] == 3.0), "{deref}");
}
