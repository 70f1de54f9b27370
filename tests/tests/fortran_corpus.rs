//! Fortran through pass-only mode (tests/fortran_corpus/): each program is built by stock
//! flang-new-19 and by flang-new-19 with `-fpass-plugin=libompadapt_pass.so` (no frontend plugin
//! exists for Fortran: the pass alone makes its parallel regions adaptive), and:
//! - each `! expect: <procedure> adaptive` names a procedure whose parallel region is a region
//!   of the run's report (flang-19 gives a region's code the procedure's location, so
//!   procedures, not lines, identify them), each `! expect: <procedure> left <reason>` one that
//!   stays as written with the compiler's remark giving that reason;
//! - with every region pinned to each host variant, and under the real runtime three times with
//!   one store (which it learns from across the runs), the program prints what stock prints
//!   (the corpus prints the same for every team of an adaptive region).

use ompadapt_tests::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const FLANG: &str = "flang-new-19";
const HOST_VARIANTS: [&str; 5] = ["serial", "threads=0.125", "threads=0.25", "threads=0.5", "threads=1"];

struct Program {
    name: String,
    source: PathBuf,
    adaptive: BTreeSet<String>,
    left: BTreeMap<String, String>,
}

fn programs() -> Vec<Program> {
    let root = source("fortran_corpus");
    let mut v: Vec<Program> = std::fs::read_dir(&root)
        .expect("tests/fortran_corpus")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "f90").then_some(())?;
            let text = std::fs::read_to_string(&path).ok()?;
            let (mut adaptive, mut left) = (BTreeSet::new(), BTreeMap::new());
            for line in text.lines() {
                let Some(expect) = line.strip_prefix("! expect: ") else { continue };
                let (procedure, what) = expect.split_once(' ')?;
                match what.trim().strip_prefix("left ") {
                    Some(reason) => left.insert(procedure.to_string(), reason.trim().to_string()),
                    None => adaptive.insert(procedure.to_string()).then_some(String::new()),
                };
            }
            Some(Program { name: path.file_stem()?.to_string_lossy().into_owned(), source: path, adaptive, left })
        })
        .collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(v.len() >= 3, "the corpus has {} programs", v.len());
    v
}

fn have_flang() -> bool {
    let ok = Command::new(FLANG).arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(ok, "{FLANG} is missing: scripts/bootstrap.sh installs flang-19");
    ok
}

/// Builds `p` stock and in pass-only mode; returns the pass build's remarks.
fn build(p: &Program, dir: &Path) -> String {
    let mut stock = Command::new(FLANG);
    stock.args(["-O2", "-fopenmp"]).arg(&p.source).arg("-o").arg(dir.join(format!("{}.stock", p.name)));
    run(&mut stock).expect_ok(&format!("{}: stock build", p.name));
    let mut pass = Command::new(FLANG);
    pass.args(["-O2", "-fopenmp", "-g", "-Rpass=ompadapt", "-Rpass-missed=ompadapt"])
        .arg(format!("-fpass-plugin={}", pass_plugin().display()))
        .env_remove("OMPADAPT_AUTO")
        .arg(&p.source)
        .arg("-o")
        .arg(dir.join(format!("{}.pass", p.name)));
    let out = run(&mut pass);
    out.expect_ok(&format!("{}: pass-only build", p.name));
    out.stderr
}

fn run_in(exe: &Path, dir: &Path, env: &[(&str, &str)]) -> Run {
    run_isolated(exe, dir, env)
}

fn report(path: &Path) -> Vec<Value> {
    let Ok(text) = std::fs::read_to_string(path) else { return Vec::new() };
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["regions"].as_array().unwrap().clone()
}

fn procedure_of(region: &Value) -> String {
    region["region"].as_str().unwrap().split('@').next().unwrap().to_string()
}

#[test]
fn fortran_regions_adapt_and_print_what_stock_prints() {
    if !have_flang() {
        return;
    }
    let dir = scratch();
    for p in programs() {
        let remarks = build(&p, dir.path());
        let stock = run_in(&dir.path().join(format!("{}.stock", p.name)), dir.path(), &[]).stdout;
        let exe = dir.path().join(format!("{}.pass", p.name));
        // regions and remarks where the annotations say
        let d = scratch();
        let json = d.path().join("r.json");
        let out = run_in(&exe, d.path(), &[("OMPADAPT_REPORT", &format!("json:{}", json.display()))]);
        assert_eq!(out.stdout, stock, "{}: the first run", p.name);
        let regions: BTreeSet<String> = report(&json).iter().map(procedure_of).collect();
        assert_eq!(regions, p.adaptive, "{}: the regions are the annotated procedures\n{remarks}", p.name);
        for procedure in &p.adaptive {
            assert!(
                remarks.lines().any(|l| l.contains("[OMPADAPT150]")
                    && l.contains(&format!("region '{procedure}@"))
                    && l.contains(&format!("{}.f90:", p.name))),
                "{}: no OMPADAPT150 remark for {procedure}:\n{remarks}",
                p.name
            );
        }
        for (procedure, reason) in &p.left {
            assert!(
                remarks
                    .lines()
                    .any(|l| l.contains(&format!("region '{procedure}@")) && l.contains("left as written") && l.contains(reason.as_str())),
                "{}: no remark 'left as written' with '{reason}' for {procedure}:\n{remarks}",
                p.name
            );
        }
        // every region pinned to each variant
        for v in HOST_VARIANTS {
            let d = scratch();
            let json = d.path().join("r.json");
            let out = run_in(
                &exe,
                d.path(),
                &[("OMPADAPT_VARIANT", v), ("OMPADAPT_PERSIST", "0"), ("OMPADAPT_REPORT", &format!("json:{}", json.display()))],
            );
            assert_eq!(out.stdout, stock, "{} pinned to {v}", p.name);
            for r in report(&json) {
                for t in r["timings"].as_array().unwrap() {
                    let ran = t["exploring_runs"].as_u64().unwrap() + t["model_runs"].as_u64().unwrap();
                    let variant = t["variant"].as_str().unwrap();
                    let same_team = ompadapt_rt::team::team_size(variant, 2) == ompadapt_rt::team::team_size(v, 2);
                    assert!(ran == 0 || same_team, "{}: {} pinned to {v} ran {variant} {ran} times", p.name, r["region"]);
                }
            }
        }
        // the real runtime, three runs with one store: it learns across them
        let d = scratch();
        for run_no in 1..=3 {
            let json = d.path().join(format!("r{run_no}.json"));
            let out = run_in(&exe, d.path(), &[("OMPADAPT_REPORT", &format!("json:{}", json.display()))]);
            assert_eq!(out.stdout, stock, "{} run {run_no}", p.name);
            if run_no > 1 {
                for r in report(&json) {
                    assert!(
                        r["loaded_samples"].as_u64().unwrap_or(0) > 0,
                        "{} run {run_no}: {} loaded nothing from the store",
                        p.name,
                        r["region"]
                    );
                }
            }
        }
    }
}
