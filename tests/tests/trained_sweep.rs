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
        let doc = labelled_run(&adaptive, dir.path(), &report, Some(&expected), || Ok(()))?;
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

/// The host build (`-DHOST_LOOP`: a host `parallel for` per step, team-size variants): with two
/// threads three of its four `threads=F` variants give the serial variant's team. They are
/// unavailable before the saved data is taken in, so a trained run assesses it once as this
/// machine runs it and neither explores nor retrains (it retrained in every run while they
/// became unavailable after the data was in); and its part of the store is execution counts
/// alone: the unavailable variants are recorded once, not by every run.
#[test]
fn a_trained_host_sweep_retrains_nothing_and_writes_only_counts() {
    let _timing = timing_lock();
    let dir = scratch();
    let adaptive = dir.path().join("adaptive");
    compile(&source_file(), &adaptive, &["-O2", "-DHOST_LOOP", "-fplugin-arg-ompadapt-auto"])
        .expect_ok("lu_sweep.c -DHOST_LOOP, auto mode");
    let report = dir.path().join("report.json");
    let store = dir.path().join(".ompadapt");
    let parts = |d: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> =
            walk(d).into_iter().filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("part-"))).collect();
        v.sort();
        v
    };
    with_retries(3, || {
        let _ = std::fs::remove_dir_all(&store);
        for _ in 0..8 {
            sweep(&adaptive, dir.path(), &[]);
        }
        let before = parts(&store);
        // an own run of the whole-run trial neither loads nor saves: it writes no part
        let doc = labelled_run(&adaptive, dir.path(), &report, None, || match parts(&store) {
            now if now == before => Ok(()),
            now => Err(format!("an own run of the whole-run trial writes nothing; new parts: {now:?}")),
        })?;
        let r = &doc["regions"][0];
        if r["exploring"].as_u64() != Some(0) || r["retrains"].as_u64() != Some(0) {
            return Err(format!(
                "the trained run must explore and retrain nothing: exploring {}, retrains {}",
                r["exploring"], r["retrains"]
            ));
        }
        let new: Vec<PathBuf> = parts(&store).into_iter().filter(|p| !before.contains(p)).collect();
        let [part] = new.as_slice() else { return Err(format!("one part expected from the trained run, found {new:?}")) };
        let f: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(part).unwrap()).unwrap();
        let has = |k: &str| f[k].as_array().is_some_and(|a| !a.is_empty()) || (k == "model_trained" && !f[k].is_null());
        if ["samples", "unavailable", "teams", "model_trained"].iter().any(|k| has(k)) || !has("monitored") {
            return Err(format!("the trained run's part holds more than execution counts: {f}"));
        }
        Ok(())
    });
}

/// The report of the next run of `exe` that runs its labels: a trained program's runs of the
/// whole-run trial (docs/runtime.md) may run the program's own variant instead, at most
/// [`REFRESH`](ompadapt_rt::whole_run::REFRESH) in a row; each of those is checked by
/// `own_run`. Every run's checksum must be `expected` where given.
fn labelled_run(
    exe: &Path,
    dir: &Path,
    report: &Path,
    expected: Option<&str>,
    mut own_run: impl FnMut() -> Result<(), String>,
) -> Result<serde_json::Value, String> {
    for _ in 0..=ompadapt_rt::whole_run::REFRESH {
        let got = sweep(exe, dir, &[("OMPADAPT_REPORT", &format!("json:{}", report.display()))]);
        if let Some(want) = expected {
            assert_eq!(got, want, "a trained run computes what stock computes");
        }
        let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
        if doc["whole_run"]["side"] != "own" {
            return Ok(doc);
        }
        own_run()?;
    }
    Err(format!("no labelled run in {} runs", ompadapt_rt::whole_run::REFRESH + 1))
}

/// Every file below `d`.
fn walk(d: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
