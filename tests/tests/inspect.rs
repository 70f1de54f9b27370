//! `ompadapt inspect`: every construct's decision read back from the binary (adaptive with its
//! variants, or left as written with the remark's id, reason and place), for C in both builds
//! (zero-source-change and the pass alone), Fortran, and a shared library; names and places
//! follow one rule (docs/remarks.md, "Names and places"): equal in both builds, at the
//! directive's line, the place the compiler's remark gives; copies of one construct are said
//! once; `list` points to `inspect`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use ompadapt_tests::*;
use serde_json::Value;

fn ompadapt_bin() -> PathBuf {
    let p = lib_dir().join("ompadapt");
    assert!(p.exists(), "{} is missing: run `cargo build --release` first", p.display());
    p
}

/// `ompadapt inspect --json FILES`: the decisions of each file.
#[track_caller]
fn inspect(files: &[&Path]) -> Vec<Value> {
    let r = run(Command::new(ompadapt_bin()).arg("inspect").arg("--json").args(files));
    r.expect_ok("ompadapt inspect");
    let doc: Value = serde_json::from_str(&r.stdout).expect("inspect --json is JSON");
    doc["files"].as_array().expect("files").iter().map(|f| f["decisions"].clone()).collect()
}

/// (region, place, status, remark) of each decision.
fn rows(decisions: &Value) -> BTreeSet<(String, String, String, String)> {
    let s = |d: &Value, k: &str| d[k].as_str().unwrap_or_default().to_owned();
    decisions.as_array().unwrap().iter().map(|d| (s(d, "region"), s(d, "place"), s(d, "status"), s(d, "remark"))).collect()
}

/// (place, remark id, region) of each remark the compiler printed: `file:line:col: remark: [ID]
/// region 'R': ...` (clang), `remark: file:line:col: [ID] ...` (clang on IR input, where the pass
/// runs in an offload build with -fpass-plugin).
fn printed_remarks(stderr: &str) -> BTreeSet<(String, String, String)> {
    stderr
        .lines()
        .filter_map(|l| {
            let (place, rest) = match l.strip_prefix("remark: ") {
                Some(rest) => rest.split_once(": ")?,
                None => l.split_once(": remark: ")?,
            };
            let rest = rest.strip_prefix('[')?;
            let (id, rest) = rest.split_once("] region '")?;
            let (region, _) = rest.split_once("': ")?;
            // (the compiler prints the file as given, `./regions.c`; names and places drop `./`)
            Some((place.trim_start_matches("./").to_owned(), id.to_owned(), region.to_owned()))
        })
        .collect()
}

const REMARKS: [&str; 3] = ["-Rpass=ompadapt", "-Rpass-missed=ompadapt", "-Rpass-analysis=ompadapt"];

/// Builds `tests/programs/inspect/regions.c` in `dir` both ways; returns the executables and the
/// compilers' stderr.
fn build_both(dir: &Path) -> [(PathBuf, String); 2] {
    let src = dir.join("regions.c");
    std::fs::copy(source("programs/inspect/regions.c"), &src).unwrap();
    let auto = dir.join("auto");
    let mut flags = vec!["-O2", "-fplugin-arg-ompadapt-auto"];
    flags.extend(REMARKS);
    let a = run(Command::new(CLANG)
        .current_dir(dir)
        .arg("-fopenmp")
        .arg(HOST_OFFLOAD)
        .arg(format!("-fplugin={}", plugin().display()))
        .args(&flags)
        .arg("regions.c")
        .arg("-o")
        .arg(&auto));
    a.expect_ok("zero-source-change build");
    let pass = dir.join("pass");
    let p = run(Command::new(CLANG)
        .current_dir(dir)
        .args(["-fopenmp", HOST_OFFLOAD, "-O2", "-g"])
        .arg(format!("-fpass-plugin={}", pass_plugin().display()))
        .args(REMARKS)
        .arg("./regions.c")
        .arg("-o")
        .arg(&pass));
    p.expect_ok("pass-only build");
    [(auto, a.stderr), (pass, p.stderr)]
}

#[test]
fn c_regions_are_listed_alike_in_both_builds_at_their_directives() {
    let dir = scratch();
    let builds = build_both(dir.path());
    let mut listed = Vec::new();
    for (exe, stderr) in &builds {
        let decisions = &inspect(&[exe])[0];
        let rows = rows(decisions);
        let want = [
            ("main@regions.c:17", "regions.c:17:5", "adaptive", "OMPADAPT150"),
            ("thread_sum@regions.c:9", "regions.c:9:1", "as-written", "OMPADAPT141"),
            ("main@regions.c:20", "regions.c:20:1", "adaptive", "OMPADAPT100"),
        ];
        for (region, place, status, remark) in want {
            assert!(
                rows.contains(&(region.into(), place.into(), status.into(), remark.into())),
                "{}: no {region} at {place} {status} {remark} in {rows:#?}",
                exe.display()
            );
        }
        // the launch's own constructs are named after the function the directive is in
        assert!(rows.iter().any(|r| r.0 == "main@regions.c:20" && r.3 == "OMPADAPT153"), "{rows:#?}");
        // every decision is where the compiler's remark about it is, under the same name
        let printed = printed_remarks(stderr);
        for (region, place, _, remark) in &rows {
            assert!(
                printed.contains(&(place.clone(), remark.clone(), region.clone())),
                "{region} {remark} at {place} not among the remarks {printed:#?}"
            );
        }
        // an adaptive region's variants, a left one's reason
        // (the launch's own constructs share its name: its adaptive decision first)
        let all = decisions.as_array().unwrap();
        let of = |region: &str| all.iter().filter(|d| d["region"] == region).min_by_key(|d| d["status"] == "as-written").unwrap().clone();
        assert_eq!(
            of("main@regions.c:17")["variants"],
            serde_json::json!(["serial", "threads=0.125", "threads=0.25", "threads=0.5", "threads=1"])
        );
        assert_eq!(of("main@regions.c:20")["variants"], serde_json::json!(["cpu", "gpu"]));
        assert!(of("thread_sum@regions.c:9")["why"].as_str().unwrap().contains("omp_get_thread_num"));
        listed.push(rows);
    }
    assert_eq!(listed[0], listed[1], "the zero-source-change and pass-only builds name and place alike");
}

#[test]
fn fortran_regions_are_named_at_their_directives() {
    let dir = scratch();
    let exe = dir.path().join("f");
    let src = dir.path().join("regions.f90");
    std::fs::copy(source("programs/inspect/regions.f90"), &src).unwrap();
    let r = run(Command::new("flang-new-19")
        .current_dir(dir.path())
        .args(["-fopenmp", "-O2", "-g", "-J"])
        .arg(dir.path())
        .arg(format!("-fpass-plugin={}", pass_plugin().display()))
        .args(REMARKS)
        .arg("regions.f90")
        .arg("-o")
        .arg(&exe));
    r.expect_ok("flang build");
    let rows = rows(&inspect(&[&exe])[0]);
    let regions: BTreeSet<(&str, &str, &str)> = rows.iter().map(|r| (r.0.as_str(), r.2.as_str(), r.3.as_str())).collect();
    assert_eq!(
        regions,
        BTreeSet::from([("scale@regions.f90:7", "adaptive", "OMPADAPT150"), ("scale@regions.f90:13", "as-written", "OMPADAPT141")]),
        "{rows:#?}"
    );
    for (region, place, ..) in &rows {
        let line = region.rsplit(':').next().unwrap();
        assert!(place.starts_with(&format!("regions.f90:{line}:")), "{region} placed at {place}");
    }
    // the program still prints stock's answer
    let out = run_isolated(&exe, dir.path(), &[]);
    assert!(out.stdout.contains("200.") && out.stdout.contains('T'), "{}", out.stdout);
}

#[test]
fn a_shared_library_and_a_stock_binary() {
    let dir = scratch();
    let lib = dir.path().join("libregions.so");
    let r = run(Command::new(CLANG)
        .args(["-fopenmp", "-O2", "-g", "-fPIC", "-shared", "-Dmain=regions_main"])
        .arg(format!("-fpass-plugin={}", pass_plugin().display()))
        .arg(source("programs/inspect/regions.c"))
        .arg("-o")
        .arg(&lib));
    r.expect_ok("shared library");
    let rows = rows(&inspect(&[&lib])[0]);
    assert!(rows.iter().any(|r| r.0.starts_with("thread_sum@") && r.2 == "as-written" && r.3 == "OMPADAPT141"), "{rows:#?}");
    assert!(rows.iter().any(|r| r.0.starts_with("regions_main@") && r.2 == "adaptive"), "{rows:#?}");
    // built without ompadapt: a clear error, not an empty list
    let stock = dir.path().join("stock");
    run(Command::new(CLANG).args(["-fopenmp", "-O2"]).arg(source("programs/inspect/regions.c")).arg("-o").arg(&stock))
        .expect_ok("stock build");
    let r = run(Command::new(ompadapt_bin()).arg("inspect").arg(&stock));
    assert_eq!(r.status.code(), Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("no decisions recorded"), "{}", r.stderr);
}

#[test]
fn copies_of_one_construct_are_one_region_said_once() {
    let dir = scratch();
    let (ll, opt, exe) = (dir.path().join("in.ll"), dir.path().join("out.bc"), dir.path().join("inlined"));
    // the optimiser inlines the region's function four times, then the pass runs on that IR
    let c = run(Command::new(CLANG)
        .current_dir(dir.path())
        .args(["-fopenmp", "-O2", "-g", "-S", "-emit-llvm"])
        .arg(source("programs/inspect/inlined.c"))
        .arg("-o")
        .arg(&ll));
    c.expect_ok("clang -O2 -emit-llvm");
    let r = run(Command::new(OPT)
        .arg(format!("-load-pass-plugin={}", pass_plugin().display()))
        .args(["-passes=ompadapt", "-pass-remarks=ompadapt", "-stats"])
        .arg(&ll)
        .arg("-o")
        .arg(&opt));
    r.expect_ok("opt");
    assert!(r.stderr.lines().any(|l| l.trim_start().starts_with("4 ompadapt") && l.contains("calls decided")), "{}", r.stderr);
    let said: Vec<&str> = r.stderr.lines().filter(|l| l.starts_with("remark:") && l.contains("[OMPADAPT150]")).collect();
    assert_eq!(said.len(), 1, "{}", r.stderr);
    assert!(said[0].contains("region 'fill@"), "named after the function the directive is in: {}", said[0]);
    run(Command::new(CLANG).args(["-fopenmp"]).arg(&opt).arg("-o").arg(&exe)).expect_ok("link");
    let rows = rows(&inspect(&[&exe])[0]);
    assert_eq!(rows.len(), 1, "{rows:#?}");
    let out = run_isolated(&exe, dir.path(), &[]);
    assert_eq!(out.stdout.trim(), "1002", "{}", out.stdout);
}

#[test]
fn list_points_to_inspect_for_regions_left_as_written() {
    let dir = scratch();
    let [(exe, _), _] = build_both(dir.path());
    run_isolated(&exe, dir.path(), &[]);
    let r = run(Command::new(ompadapt_bin()).arg("--dir").arg(dir.path().join(".ompadapt")).arg("list"));
    r.expect_ok("list");
    let exe = std::fs::canonicalize(&exe).unwrap();
    let hint = format!("`ompadapt inspect {}` says why", exe.display());
    assert!(r.stdout.contains(&hint) && r.stdout.contains("left as written"), "{}", r.stdout);
}
