//! `ompadapt` on the store of a real program compiled with clang-19 + the plugin: a program
//! explores (no training), `ompadapt train` trains offline and stores the model, the store is
//! exported and imported into a fresh store, and a frozen run of the program from either store
//! makes the same, right decisions; a copy of the program at another path does too once the
//! archive is imported under its `--executable`. `show` draws the region.

use std::path::{Path, PathBuf};
use std::process::Command;

use ompadapt_tests::*;

fn ompadapt_bin() -> PathBuf {
    let p = lib_dir().join("ompadapt");
    assert!(p.exists(), "{} is missing: run `cargo build --release` first", p.display());
    p
}

#[track_caller]
fn ompadapt(store: &Path, args: &[&str]) -> String {
    let r = run(Command::new(ompadapt_bin()).arg("--dir").arg(store).args(args));
    r.expect_ok(&format!("ompadapt {args:?}"));
    r.stdout
}

fn decisions(stdout: &str) -> Vec<(String, String)> {
    records(stdout, "DECISION").into_iter().map(|r| (r["n"].clone(), r["variant"].clone())).collect()
}

/// The program's `query` run, frozen (the stored model, never exploring), from `store`: it
/// refits the model `train` stored (a depth-2 tree; the region asks for `auto`).
fn query(exe: &Path, cwd: &Path, store: &Path) -> Run {
    let mut c = Command::new(exe);
    c.arg("query").current_dir(cwd).env_remove("OMPADAPT_REPORT").env_remove("OMPADAPT_MODEL").env("OMPADAPT_DIR", store);
    c.env("OMPADAPT_FROZEN", "1");
    run(&mut c)
}

#[test]
fn a_model_trained_offline_and_moved_to_a_fresh_store_decides_the_same() {
    let _t = timing_lock();
    let dir = scratch();
    let exe = dir.path().join("controlled_cost");
    compile(&source("programs/controlled_cost.c"), &exe, &["-O2"]).expect_ok("compile");
    with_retries(3, || {
        let store = dir.path().join(".ompadapt");
        let _ = std::fs::remove_dir_all(&store);
        // data collection only: the program never trains; three runs, so that each pair has
        // several measurements (their median is robust to a preempted one)
        for _ in 0..3 {
            run_program(&exe, dir.path(), &[("OMPADAPT_EXPLORE_ONLY", "1")]).expect_ok("exploring run");
        }
        let listed: serde_json::Value = serde_json::from_str(&ompadapt(&store, &["--json", "list"])).unwrap();
        let region = &listed["regions"][0];
        if region["region"] != "cost" || !region["model"].is_null() || region["complete_vectors"].as_u64() < Some(6) {
            return Err(format!("after exploring: {region}"));
        }
        let out = ompadapt(&store, &["train", "cost", "--model", "dtree,2"]);
        assert!(out.contains("stored as the region's model"), "{out}");
        let svg = dir.path().join("cost.svg");
        ompadapt(&store, &["show", "cost", "--svg", svg.to_str().unwrap()]);
        assert!(std::fs::metadata(&svg).map(|m| m.len()).unwrap_or(0) > 5000, "a picture");

        let archive = dir.path().join("cost.archive.json");
        ompadapt(&store, &["export", "-o", archive.to_str().unwrap()]);
        let fresh = dir.path().join("fresh-store");
        let _ = std::fs::remove_dir_all(&fresh);
        ompadapt(&fresh, &["import", archive.to_str().unwrap()]);

        let here = query(&exe, dir.path(), &store);
        let there = query(&exe, dir.path(), &fresh);
        here.expect_ok("frozen query on the original store");
        there.expect_ok("frozen query on the imported store");
        let (a, b) = (decisions(&here.stdout), decisions(&there.stdout));
        assert_eq!(a.len(), 8, "{}", here.stdout);
        assert_eq!(a, b, "the imported store decides as the original\n{}\n{}", here.stderr, there.stderr);
        // a copy of the program at another path (another machine's install) has another
        // identity: imported under --executable, it finds what it was sent
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let copy = elsewhere.join("controlled_cost");
        std::fs::copy(&exe, &copy).unwrap();
        let third = dir.path().join("third-store");
        let _ = std::fs::remove_dir_all(&third);
        ompadapt(&third, &["import", archive.to_str().unwrap(), "--executable", copy.to_str().unwrap()]);
        let moved = query(&copy, dir.path(), &third);
        moved.expect_ok("frozen query of the copy");
        assert_eq!(decisions(&moved.stdout), a, "the copy decides as the original\n{}", moved.stderr);
        assert!(!moved.stderr.contains("no stored model"), "{}", moved.stderr);
        // and without --executable the copy finds nothing (its identity differs)
        let lost = query(&copy, dir.path(), &fresh);
        assert!(lost.stderr.contains("no stored model"), "the copy's identity is its path: {}", lost.stderr);

        // and the decisions are the right ones on the trained sizes (lin below 500, rev above)
        for (n, v) in a.iter().take(6) {
            let n: i32 = n.parse().unwrap();
            let want = if n < 500 { "0" } else { "1" };
            if v != want {
                return Err(format!("n = {n}: variant {v}, want {want} (a disturbed measurement?)"));
            }
        }
        Ok(())
    });
}

/// Runs `exe ARGS` in `cwd` with a team of `threads` (`OMP_NUM_THREADS`), its store in `store`
/// and none of the environment's ompadapt settings; it must succeed.
fn run_with_team(exe: &Path, cwd: &Path, store: &Path, threads: u32, args: &[&str]) -> Run {
    let mut c = Command::new(exe);
    c.args(args).current_dir(cwd).env("OMPADAPT_DIR", store).env("OMP_NUM_THREADS", threads.to_string());
    for var in ["OMPADAPT_REPORT", "OMPADAPT_VARIANT", "OMPADAPT_MODEL", "OMPADAPT_RUNTIME", "OMP_SCHEDULE"] {
        c.env_remove(var);
    }
    let out = run(&mut c);
    out.expect_ok(&format!("{} {args:?} on {threads} threads", exe.display()));
    out
}

const HOST_VARIANTS: [&str; 5] = ["serial", "threads=0.125", "threads=0.25", "threads=0.5", "threads=1"];

/// Zero-source-change mode's host region on a team of 2: `threads=0.125`, `0.25` and `0.5` run
/// serial's one thread, so the run measures `serial` and `threads=1` only. A measurement counts
/// for every variant of its team: `list` counts every vector complete, `show` says which
/// variants were one team and prints their times and its payoff line, `evaluate` scores every
/// vector. Data of a run with a team of 8 (where 0.25 and 0.5 are 2 and 4 threads) added to
/// the store makes them different teams: only the vector that run measured whole is complete,
/// and `evaluate` says why the others are not. Counts only, no timing decides anything here.
#[test]
fn variants_of_one_team_are_one_measurement() {
    let dir = scratch();
    let exe = dir.path().join("host_teams");
    compile(&source("programs/host_teams.c"), &exe, &["-O2", "-fplugin-arg-ompadapt-auto"]).expect_ok("compile");
    let store = dir.path().join(".ompadapt");
    let sizes = ["1000", "2000", "4000", "8000", "12000", "16000", "24000", "32000"];
    let args: Vec<&str> = std::iter::once("6").chain(sizes).collect();
    let out = run_with_team(&exe, dir.path(), &store, 2, &args);
    assert!(out.stdout.contains("DONE sum="), "{}", out.stdout);

    let listed: serde_json::Value = serde_json::from_str(&ompadapt(&store, &["--json", "list"])).unwrap();
    let region = &listed["regions"][0];
    let name = region["region"].as_str().unwrap().to_owned();
    assert_eq!(region["variants"], serde_json::json!(HOST_VARIANTS), "{region}");
    assert_eq!(region["feature_vectors"], 8, "{region}");
    assert_eq!(region["complete_vectors"], 8, "every vector: serial's measurement counts for its team\n{region}");
    assert_eq!(region["same_team"], serde_json::json!([["serial", "threads=0.125", "threads=0.25", "threads=0.5"]]), "{region}");

    let shown: serde_json::Value = serde_json::from_str(&ompadapt(&store, &["--json", "show", &name])).unwrap();
    let vectors = shown["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), 8);
    for v in vectors {
        let t = &v["times_ns"];
        assert!(t["serial"].is_number() && t["threads=1"].is_number(), "{v}");
        for share in ["threads=0.125", "threads=0.25", "threads=0.5"] {
            assert_eq!(t[share], t["serial"], "{share} is serial's team: {v}");
        }
    }
    assert!(!shown["payoff"].is_null(), "a payoff over complete vectors: {shown}");
    let text = ompadapt(&store, &["show", &name]);
    assert!(
        text.contains("one team: serial, threads=0.125, threads=0.25, threads=0.5 ran 1 thread with a team of 2 in every recorded run"),
        "{text}"
    );
    assert!(text.contains("(8 with every variant measured)"), "{text}");

    let evaluated: serde_json::Value = serde_json::from_str(&ompadapt(&store, &["--json", "evaluate", &name, "--shuffles", "1"])).unwrap();
    let r = &evaluated["regions"][0];
    assert_eq!(r["complete_vectors"], 8, "{r}");
    assert!(r["error"].is_null() && r["unmeasured"] == serde_json::json!([]), "{r}");
    let scores = r["scores"].as_array().unwrap();
    assert!(!scores.is_empty() && scores.iter().all(|s| s["decisions"].as_u64() > Some(0)), "{r}");

    // a run with a team of 8 on another size, its data imported into the store
    let other = dir.path().join("team-of-8");
    run_with_team(&exe, dir.path(), &other, 8, &["8", "3000"]);
    let archive = dir.path().join("team-of-8.json");
    ompadapt(&other, &["export", "-o", archive.to_str().unwrap()]);
    ompadapt(&store, &["import", archive.to_str().unwrap()]);
    let listed: serde_json::Value = serde_json::from_str(&ompadapt(&store, &["--json", "list"])).unwrap();
    let region = &listed["regions"][0];
    assert_eq!(region["feature_vectors"], 9, "{region}");
    assert_eq!(region["complete_vectors"], 1, "only the vector the team of 8 measured whole\n{region}");
    assert_eq!(region["same_team"], serde_json::json!([["serial", "threads=0.125"]]), "one thread with 2 and with 8: {region}");
    let evaluated: serde_json::Value = serde_json::from_str(&ompadapt(&store, &["--json", "evaluate", &name, "--shuffles", "1"])).unwrap();
    let unmeasured = evaluated["regions"][0]["unmeasured"].as_array().unwrap().clone();
    let missing: Vec<&str> = unmeasured.iter().map(|u| u["variant"].as_str().unwrap()).collect();
    assert_eq!(missing, ["threads=0.25", "threads=0.5"], "{unmeasured:?}");
    for u in &unmeasured {
        assert_eq!((u["measured"].as_u64(), u["vectors"].as_u64()), (Some(1), Some(9)), "{u}");
        let why = u["why"].as_str().unwrap();
        assert!(why.contains("with a team of 2") && why.contains("with a team of 8") && why.contains("'serial'"), "{why}");
    }
}

/// A region whose runs measured one variant of two on every vector (one execution per vector):
/// `evaluate` scores nothing, says which variant is missing and why, and fails.
#[test]
fn evaluate_says_why_it_scores_nothing() {
    let dir = scratch();
    let exe = dir.path().join("host_teams");
    compile(&source("programs/host_teams.c"), &exe, &["-O2", "-fplugin-arg-ompadapt-auto"]).expect_ok("compile");
    let store = dir.path().join(".ompadapt");
    run_with_team(&exe, dir.path(), &store, 2, &["1", "1000", "2000", "4000", "8000", "16000"]);
    let r = run(Command::new(ompadapt_bin()).arg("--dir").arg(&store).args(["evaluate", "--shuffles", "1"]));
    assert!(!r.ok(), "nothing evaluated must fail: {}", r.stdout);
    assert!(
        r.stdout.contains(
            "not evaluated: no feature vector has every variant measured: 'threads=1' measured on 0 of 5 vectors (no run measured it there"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stderr.starts_with("ompadapt: error: nothing was evaluated") && r.stderr.lines().count() == 1, "{}", r.stderr);
}
