//! A trained sweep (issue 44 item 1): benchmarks/sweep/lu_sweep.c, an LU-like sweep that
//! launches one offloaded kernel per step on a shrinking trip count, rebuilt with
//! `-fplugin-arg-ompadapt-auto`. Once runs on one store have measured every vector it reaches,
//! a further run explores nothing: every launch is decided (by the model, or by the region's
//! own variant where it settled on it), none explores, the region does not retrain in the run,
//! and the factors are the stock build's. What such a run costs is measured by
//! benchmarks/sweep/run.sh, not here.

use ompadapt_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Trip counts 95 .. 1: 32 exact ones and the grid points above.
const N: &str = "96";

fn source_file() -> PathBuf {
    workspace_root().join("benchmarks/sweep/lu_sweep.c")
}

/// Runs `exe N` in `dir` with a store there and no ompadapt setting from the environment
/// (as `run_isolated` does); returns its checksum line.
fn sweep(exe: &Path, dir: &Path, env: &[(&str, &str)]) -> String {
    let mut c = Command::new(exe);
    c.arg(N).current_dir(dir).env("OMPADAPT_DIR", dir.join(".ompadapt")).env("OMP_NUM_THREADS", "2");
    for k in ["OMPADAPT_REPORT", "OMPADAPT_VARIANT", "OMPADAPT_RUNTIME", "OMP_SCHEDULE"] {
        c.env_remove(k);
    }
    c.envs(env.iter().copied());
    let out = run(&mut c);
    out.expect_ok(&format!("{} {N}", exe.display()));
    out.stdout.lines().find(|l| l.starts_with("lu_sweep ")).unwrap_or_else(|| panic!("no checksum in {}", out.stdout)).to_owned()
}

#[test]
fn a_trained_sweep_explores_nothing() {
    let _timing = timing_lock();
    let dir = scratch();
    let adaptive = dir.path().join("adaptive");
    compile(&source_file(), &adaptive, &["-O2", "-DRESIDENT", "-fplugin-arg-ompadapt-auto"]).expect_ok("lu_sweep.c, auto mode");
    let stock = dir.path().join("stock");
    run(Command::new(CLANG).args(["-O2", "-fopenmp", HOST_OFFLOAD, "-DRESIDENT"]).arg(source_file()).arg("-o").arg(&stock))
        .expect_ok("lu_sweep.c, stock");
    let expected = sweep(&stock, dir.path(), &[]);
    let report = dir.path().join("report.json");
    with_retries(3, || {
        let _ = std::fs::remove_dir_all(dir.path().join(".ompadapt"));
        for run in 0..8 {
            let got = sweep(&adaptive, dir.path(), &[]);
            if got != expected {
                return Err(format!("training run {run} computed {got}, stock {expected}"));
            }
        }
        let got = sweep(&adaptive, dir.path(), &[("OMPADAPT_REPORT", &format!("json:{}", report.display()))]);
        assert_eq!(got, expected, "the trained run computes what stock computes");
        let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        let r = &doc["regions"][0];
        let (exploring, chosen, executions) = (r["exploring"].as_u64(), r["chosen_by_model"].as_u64(), r["executions"].as_u64());
        let all_decided = r["decisions"].as_array().is_some_and(|d| !d.is_empty() && d.iter().all(|d| d["decision"].is_string()));
        if exploring != Some(0) || chosen != executions || executions != Some(95) || r["retrains"].as_u64() != Some(0) || !all_decided {
            return Err(format!(
                "the trained run must explore nothing and retrain nothing: exploring {exploring:?}, chosen by the model \
                 {chosen:?} of {executions:?}, retrains {}, every vector decided: {all_decided}",
                r["retrains"]
            ));
        }
        Ok(())
    });
}
