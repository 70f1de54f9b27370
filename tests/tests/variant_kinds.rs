//! Variant kinds generated from one ordinary construct (`#pragma omp adaptation ...
//! variants(<kinds>)`), executed under host offload. Every variant of every program checks its
//! result against the serial loop (the programs exit 2 on the first wrong element). Sequences
//! of variants are forced with a stand-in runtime (tests/programs/variants/forced_runtime.c,
//! loaded through OMPADAPT_RUNTIME) so that every interleaving is reproducible; the real runtime
//! runs them too, exploring on its own.

use ompadapt_tests::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn build(name: &str, dir: &Path, extra: &[&str]) -> PathBuf {
    let exe = dir.join(format!("{name}{}", extra.join("").replace('-', "_")));
    let src = source(&format!("programs/variants/{name}.c"));
    let mut flags = vec!["-lm"];
    flags.extend_from_slice(extra);
    let out = compile(&src, &exe, &flags);
    out.expect_ok(&format!("compiling {name}.c {extra:?}"));
    assert!(!out.stderr.contains("warning"), "{name}.c: {}", out.stderr);
    exe
}

fn forced(exe: &Path, dir: &Path, lib: &Path, sequence: &str, extra: &[(&str, &str)]) -> Run {
    let mut env = vec![("OMPADAPT_RUNTIME", lib.to_str().unwrap()), ("OMPADAPT_TEST_SEQUENCE", sequence)];
    env.extend_from_slice(extra);
    let out = run_program(exe, dir, &env);
    out.expect_ok(&format!("{} with variants {sequence}", exe.display()));
    out
}

/// Launch lines of LIBOMPTARGET_INFO: (kernel line suffix, blocks, threads).
fn launches(stderr: &str) -> Vec<(String, u32, u32)> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.split("Launching kernel ").nth(1)?;
            let kernel = rest.split_whitespace().next()?.to_string();
            let blocks = rest.split(" with ").nth(1)?.split_whitespace().next()?.parse().ok()?;
            let threads = rest.split(" blocks and ").nth(1)?.split_whitespace().next()?.parse().ok()?;
            Some((kernel, blocks, threads))
        })
        .collect()
}

#[test]
fn stencil_in_target_data_is_exact_under_every_variant_sequence() {
    let dir = scratch();
    let lib = forced_runtime(dir.path());
    let mut sequences: Vec<String> = ["0", "1", "0,1", "1,0", "0,0,1", "1,1,0", "0,1,1", "1,0,0"].iter().map(|s| s.to_string()).collect();
    sequences.extend((1..=4).map(|seed| random_sequence(seed, 40, 2)));
    for opt in ["-O0", "-O1", "-O2", "-O3"] {
        let exe = build("stencil_target_data", dir.path(), &[opt]);
        for s in &sequences {
            let out = forced(&exe, dir.path(), &lib, s, &[]);
            assert!(out.stdout.contains("RESULT max_error=0"), "{opt} {s}: {}", out.stdout);
        }
    }
    // Each variant really ran: the plain kernel launches 40 times, the adaptive one once per
    // gpu step, never for a cpu step.
    let exe = build("stencil_target_data", dir.path(), &["-O2"]);
    for s in ["0", "1", "0,1,1", &random_sequence(9, 40, 2)] {
        let out = forced(&exe, dir.path(), &lib, s, &[("LIBOMPTARGET_INFO", "-1")]);
        let seq: Vec<&str> = s.split(',').collect();
        let gpu_steps = (0..40).filter(|k| seq[k % seq.len()] == "1").count();
        assert_eq!(launches(&out.stderr).len(), 40 + gpu_steps, "{s}");
    }
}

#[test]
fn stencil_in_target_data_is_exact_with_the_real_runtime() {
    let dir = scratch();
    let exe = build("stencil_target_data", dir.path(), &["-O2"]);
    for n in ["2048", "300"] {
        let mut c = Command::new(&exe);
        c.arg(n).current_dir(dir.path()).env("OMPADAPT_DIR", dir.path().join(".ompadapt"));
        let out = run(&mut c);
        out.expect_ok("stencil with the real runtime");
        assert!(out.stdout.contains("RESULT max_error=0"), "{}", out.stdout);
    }
}

#[test]
fn launch_kinds_set_threads_and_teams_at_run_time() {
    let dir = scratch();
    let lib = forced_runtime(dir.path());
    for opt in ["-O0", "-O2"] {
        let exe = build("launch_kinds", dir.path(), &[opt]);
        let out = forced(&exe, dir.path(), &lib, "0,1,2,3,4,5,6,7,8", &[("LIBOMPTARGET_INFO", "-1")]);
        // model_output: cpu, gpu by index, the numeric kinds by their value.
        let outputs: Vec<String> = records(&out.stdout, "OK").iter().map(|r| r["model_output"].clone()).collect();
        assert_eq!(outputs, ["0", "1", "64", "128", "192", "256", "2", "4", "6"], "{opt}");
        // The cpu variant launches nothing; every other variant launches once, with its values.
        let l = launches(&out.stderr);
        let threads: Vec<u32> = l.iter().map(|x| x.2).collect();
        let blocks: Vec<u32> = l.iter().map(|x| x.1).collect();
        assert_eq!(l.len(), 8, "{opt}: {}", out.stderr);
        for t in [64, 128, 192, 256] {
            assert!(threads.contains(&t), "{opt}: thread_limit={t} must reach the launch: {threads:?}");
        }
        assert_eq!(&blocks[5..], &[2, 4, 6], "{opt}: num_teams reach the launch");
        assert_eq!(threads[0], threads[5], "{opt}: num_teams variants keep the compiled thread count");
    }
}

#[test]
fn launch_kinds_are_explored_by_the_real_runtime() {
    let dir = scratch();
    let exe = build("launch_kinds", dir.path(), &["-O2"]);
    let mut c = Command::new(&exe);
    c.args(["3000", "40"]).current_dir(dir.path()).env("OMPADAPT_PERSIST", "0").env("OMPADAPT_REPORT", "1");
    let out = run(&mut c);
    out.expect_ok("launch kinds with the real runtime (each call checks its result)");
    let seen: BTreeSet<String> = records(&out.stdout, "OK").iter().map(|r| r["model_output"].clone()).collect();
    assert_eq!(seen.len(), 9, "every variant explored: {seen:?}");
    // The report names variants by their decoded values.
    assert!(out.stderr.contains("thread_limit=128") && out.stderr.contains("num_teams=4"), "{}", out.stderr);
}

#[test]
fn coschedule_fractions_are_exact_plain_and_in_target_data() {
    let dir = scratch();
    let lib = forced_runtime(dir.path());
    for opt in ["-O0", "-O2"] {
        let exe = build("coschedule", dir.path(), &[opt]);
        for s in ["0,1,2,3,4,5", "5,4,3,2,1,0", "2,2,0,3,1,4", "6,6,6,6,6,6", &random_sequence(3, 12, 7)] {
            let out = forced(&exe, dir.path(), &lib, s, &[]);
            assert_eq!(records(&out.stdout, "OK").len(), 7, "{opt} {s}: {}", out.stdout);
        }
    }
    // f = 0 launches nothing, f = 1 runs nothing on the host, 0.5 launches the device part.
    let exe = build("coschedule", dir.path(), &["-O2"]);
    let only = |seq: &str| {
        let out = forced(&exe, dir.path(), &lib, seq, &[("LIBOMPTARGET_INFO", "-1")]);
        launches(&out.stderr).iter().filter(|l| l.0.contains("vadd")).count()
    };
    assert_eq!(only("1"), 0, "coschedule=0 offloads nothing");
    assert_eq!(only("3"), 6, "coschedule=0.5 offloads its part");
    assert_eq!(only("5"), 6, "coschedule=1 offloads everything");
}

#[test]
fn parallel_for_kinds_set_team_and_schedule() {
    let dir = scratch();
    let lib = forced_runtime(dir.path());
    for opt in ["-O0", "-O2"] {
        let exe = build("parallel_for_kinds", dir.path(), &[opt]);
        let out = forced(&exe, dir.path(), &lib, "0,1,2,3,4,5,6,7", &[("OMP_NUM_THREADS", "4")]);
        let r = records(&out.stdout, "OK");
        let col = |k: &str| r.iter().map(|x| x[k].clone()).collect::<Vec<_>>().join(",");
        assert_eq!(col("team"), "1,1,2,3,4,4,4,4", "{opt}: serial, num_threads[1:3:1], then the default team");
        assert_eq!(col("schedule"), "1,1,1,1,1,2,2,3", "{opt}: static, dynamic x2, guided");
        assert_eq!(&col("chunk").split(',').collect::<Vec<_>>()[5..7], &["1", "64"], "{opt}: dynamic chunks");
        assert_eq!(col("restored"), "1,1,1,1,1,1,1,1", "{opt}: the program's schedule is restored");
    }
}

#[test]
fn nested_target_and_target_parallel_for_forms() {
    let dir = scratch();
    let lib = forced_runtime(dir.path());
    let exe = build("construct_forms", dir.path(), &["-O2"]);
    for s in ["0", "1", "2", "3", "4", "0,1,2,3,4,0", "4,3,2,1,0,1", &random_sequence(5, 12, 5)] {
        let out = forced(&exe, dir.path(), &lib, s, &[("OMPADAPT_TEST_QUIET", "1"), ("LIBOMPTARGET_INFO", "-1")]);
        assert!(out.stdout.contains("OK"), "{s}: {}", out.stdout);
        if s == "4,3,2,1,0,1" {
            let threads: BTreeSet<u32> = launches(&out.stderr).iter().map(|l| l.2).collect();
            let blocks: BTreeSet<u32> = launches(&out.stderr).iter().map(|l| l.1).collect();
            assert!(threads.contains(&32) && threads.contains(&16), "{threads:?}");
            assert!(blocks.contains(&3), "{blocks:?}");
        }
    }
}

/// The team-size formula is typed once (`ompadapt_abi::kinds::team_size`, which the runtime and
/// pass-only mode use); the generated code computes it in C (`__ompadapt_team_size` of the
/// lowering header, also precompiled into the loader). The two agree on a grid of teams, shares
/// and absolute sizes.
#[test]
fn the_team_size_formula_is_the_generated_codes() {
    let d = scratch();
    let src = d.path().join("formula.c");
    std::fs::write(
        &src,
        r#"
#include "ompadapt.h"
#include "ompadapt_lowering.h"
#include <stdio.h>
extern void omp_set_num_threads(int);
int main(void) {
  static const double shares[] = {0, 0.1, 0.125, 0.25, 0.3, 0.5, 0.75, 1};
  for (int max = 1; max <= 64; max++) {
    omp_set_num_threads(max);
    for (int program = 1; program <= 64; program += 7)
      for (int absolute = 0; absolute <= 9; absolute += 3)
        for (unsigned s = 0; s < sizeof shares / sizeof *shares; s++)
          printf("%d %g %d %d %d\n", absolute, shares[s], max, program, __ompadapt_team_size(absolute, shares[s], program));
  }
  return 0;
}
"#,
    )
    .unwrap();
    let exe = d.path().join("formula");
    let root = workspace_root();
    run(Command::new(CLANG)
        .args(["-O1", "-fopenmp", "-w"])
        .arg(format!("-I{}", root.join("runtime/include").display()))
        .arg(format!("-I{}", root.join("plugin/include").display()))
        .arg(&src)
        .arg("-o")
        .arg(&exe))
    .expect_ok("compiling the header's formula");
    let out = run(Command::new(&exe).env_remove("OMP_NUM_THREADS"));
    out.expect_ok("the header's formula");
    let mut checked = 0;
    for line in out.stdout.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let (absolute, share, max, program, c): (i32, f64, i32, i32, i32) =
            (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap(), f[3].parse().unwrap(), f[4].parse().unwrap());
        // the machine's default team (max) does not enter: a share is of the program's team
        let _ = max;
        assert_eq!(ompadapt_abi::kinds::team_size(absolute, share, program), c, "{line}");
        checked += 1;
    }
    assert!(checked > 10000, "{checked} cases");
}

/// README's `variants(cpu, gpu)` built without `-fopenmp-targets` (as a pkg-config line without
/// the offload flags does): both variants are one host code. The plugin warns at the directive,
/// the run's report says it again beside the region, and the program's results stay right.
#[test]
fn offload_variants_without_an_offload_target_are_said_to_be_one_code() {
    let dir = scratch();
    let exe = dir.path().join("offload_dispatch_host_only");
    let mut c = Command::new(CLANG);
    c.arg("-fopenmp").arg(format!("-fplugin={}", plugin().display())).arg(source("programs/offload_dispatch.c")).arg("-o").arg(&exe);
    let out = run(&mut c);
    out.expect_ok("compiling offload_dispatch.c without -fopenmp-targets");
    let at = out.stderr.lines().find(|l| l.contains("warning: no offload target in this compilation")).unwrap_or_else(|| panic!("{}", out.stderr));
    assert!(at.contains("offload_dispatch.c:11:"), "at the directive: {at}");
    let run = run_program(&exe, dir.path(), &[("OMPADAPT_REPORT", "1")]);
    run.expect_ok("offload_dispatch (checks its sums)");
    assert!(run.stderr.contains("built without an offload target") && run.stderr.contains("'cpu', 'gpu' ran the same host code"), "{}", run.stderr);
}
