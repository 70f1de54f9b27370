//! The program's memo (API version 6, issue 44 item 4): the precompiled begin starts a trained
//! execution of a vector it ran lately without calling the runtime. What a program and its
//! report observe stays what the runtime alone gives: every execution counted once, every
//! trained execution running its vector's decision, a pin (`OMPADAPT_VARIANT`) obeyed, and the
//! timed samples drift detection needs still taken.

use ompadapt_tests::*;
use std::path::Path;

/// One region, 1 feature cycling over 4 values (so a one-entry memo would never hit) and one
/// with 4 features; prints, after the loop, how often each ran each variant per vector.
const SOURCE: &str = r#"#include <stdio.h>
static int c1[4][2], c4[4][2];
static void one(int a) {
  int v = 0;
#pragma omp begin adaptation model_name(memo_1) features(a) variants(x, y) min_train_data(8) model_output(v)
  c1[a][v]++;
#pragma omp end adaptation model_name(memo_1)
}
static void four(int a) {
  int v = 0;
#pragma omp begin adaptation model_name(memo_4) features(a, a + 1, a + 2, a * 3) variants(x, y) min_train_data(8) model_output(v)
  c4[a][v]++;
#pragma omp end adaptation model_name(memo_4)
}
int main(void) {
  for (int i = 0; i < 20000; ++i) {
    one(i & 3);
    four(i & 3);
  }
  for (int a = 0; a < 4; ++a) printf("RUNS region=1 a=%d x=%d y=%d\n", a, c1[a][0], c1[a][1]);
  for (int a = 0; a < 4; ++a) printf("RUNS region=4 a=%d x=%d y=%d\n", a, c4[a][0], c4[a][1]);
  return 0;
}
"#;

fn build(dir: &Path) -> std::path::PathBuf {
    let src = dir.join("memo.c");
    std::fs::write(&src, SOURCE).unwrap();
    let exe = dir.join("memo");
    compile(&src, &exe, &["-O2"]).expect_ok("memo.c");
    exe
}

fn report(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

/// Every execution is counted exactly once (20 000 per region), and the executions after
/// training ran their vector's decision: each vector ran one variant only, apart from the
/// executions before training.
#[test]
fn the_memo_counts_every_execution_and_runs_the_decisions() {
    let _timing = timing_lock();
    let d = scratch();
    let exe = build(d.path());
    let json = format!("json:{}", d.path().join("report.json").display());
    let out = run_isolated(&exe, d.path(), &[("OMPADAPT_REPORT", &json), ("OMPADAPT_PERSIST", "0"), ("OMPADAPT_LEARN", "0")]);
    let doc = report(d.path());
    for r in doc["regions"].as_array().unwrap() {
        assert_eq!(r["executions"].as_u64(), Some(20000), "{}: every execution counted once", r["name"]);
        let (exploring, chosen) = (r["exploring"].as_u64().unwrap(), r["chosen_by_model"].as_u64().unwrap());
        assert_eq!(exploring + chosen + r["unrecorded"].as_u64().unwrap(), 20000, "{r}");
        assert!(chosen > 19000, "{}: trained after a few executions: {chosen}", r["name"]);
    }
    for rec in records(&out.stdout, "RUNS") {
        let (x, y): (u64, u64) = (rec["x"].parse().unwrap(), rec["y"].parse().unwrap());
        assert_eq!(x + y, 5000, "{rec:?}");
        // exploration measures both variants a few times; everything after runs one of them
        assert!(x.min(y) < 50, "one variant per vector once trained: {rec:?}");
    }
}

/// A pin decides every execution, memo or not.
#[test]
fn a_pin_decides_every_execution() {
    let d = scratch();
    let exe = build(d.path());
    let out = run_isolated(&exe, d.path(), &[("OMPADAPT_VARIANT", "y"), ("OMPADAPT_PERSIST", "0")]);
    for rec in records(&out.stdout, "RUNS") {
        assert_eq!((rec["x"].as_str(), rec["y"].as_str()), ("0", "5000"), "{rec:?}");
    }
}

/// A program built for API version 5 (its loader asks for `ompadapt_rt_api_v5`) still finds
/// a table of that version in this runtime, with the same context.
#[test]
fn the_runtime_keeps_version_5s_table() {
    let out = run(std::process::Command::new("nm").arg("-D").arg(lib_dir().join("libompadapt_rt.so")));
    out.expect_ok("nm -D libompadapt_rt.so");
    for symbol in ["ompadapt_rt_api_v5", "ompadapt_rt_api_v6", "ompadapt_begin_v5", "ompadapt_end_v5"] {
        assert!(out.stdout.lines().any(|l| l.ends_with(&format!(" {symbol}"))), "{symbol} exported:\n{}", out.stdout);
    }
}
