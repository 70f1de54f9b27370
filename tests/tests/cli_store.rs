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
