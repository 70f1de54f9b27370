//! Regions whose code calls functions of other translation units (issue 42): each unit carries a
//! summary of the functions it defines (an ELF note), and the runtime decides such a region when
//! it is first entered, from the notes of every loaded image (`depends=`, see
//! ompadapt_abi::summary). The programs of tests/programs/cross_unit/ are built unit by unit, as
//! a program with two shared libraries (one built with ompadapt, one without) and as one file;
//! in both adaptive builds (zero-source-change mode, the pass alone), and under thin and full LTO
//! (where the notes of every unit are kept and the same verdicts follow):
//! - each region's verdict is what its `expect:` comment says (adaptive, or held and why), and
//!   equals the one-file build's wherever every function it reaches was built with ompadapt;
//! - every variant pinned, and the runtime over three runs, print what stock prints.

use ompadapt_tests::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const FLANG: &str = "flang-new-19";

fn dir() -> PathBuf {
    source("programs/cross_unit")
}

/// `(line of the region's construct, expectation)` for each `expect:` comment of `src`.
fn expectations(src: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(src).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (k, l) in lines.iter().enumerate() {
        let Some(e) = l.split_once("expect: ").map(|(_, e)| e.trim().to_string()) else { continue };
        let construct = (k + 1..lines.len()).find(|&j| lines[j].to_lowercase().contains("omp parallel")).expect("a construct follows");
        out.push((construct + 1, e));
    }
    out
}

fn adaptive_flags(c: &mut Command, mode: &str) {
    match mode {
        "auto" => c.arg(format!("-fplugin={}", plugin().display())).arg("-fplugin-arg-ompadapt-auto"),
        "pass" => c.arg(format!("-fpass-plugin={}", pass_plugin().display())),
        _ => c,
    };
}

/// Builds the C program of `mode` ("stock", "auto", "pass"; `lto`: "thin" or "full", with gold)
/// in `out`, its libraries beside it.
fn build_c(out: &Path, mode: &str, lto: Option<&str>) -> PathBuf {
    let cc = |extra: &[&str]| {
        let mut c = Command::new(CLANG);
        c.args(["-O2", "-g", "-fopenmp", "-fPIC"]).env_remove("OMPADAPT_AUTO").current_dir(dir());
        if let Some(kind) = lto {
            c.arg(format!("-flto={kind}")).arg("-fuse-ld=gold");
        }
        c.args(extra);
        c
    };
    let lib = |name: &str, plain: bool| {
        let so = out.join(name);
        let mut c = cc(&["-shared", "lib.c", "-o", so.to_str().unwrap()]);
        if plain {
            c.arg("-DPLAIN");
        } else {
            adaptive_flags(&mut c, mode);
        }
        run(&mut c).expect_ok(&format!("{mode}: {name}"));
    };
    lib("libsummarised.so", false);
    lib("libplain.so", true);
    let exe = out.join(format!("cross.{mode}.{}", lto.unwrap_or("nolto")));
    let mut c = cc(&["main.c", "units.c", "chain.c", "-o", exe.to_str().unwrap()]);
    adaptive_flags(&mut c, mode);
    c.arg(format!("-L{}", out.display())).arg(format!("-Wl,-rpath,{}", out.display())).args(["-lsummarised", "-lplain"]);
    run(&mut c).expect_ok(&format!("{mode}: the program"));
    exe
}

fn build_fortran(out: &Path, mode: &str) -> PathBuf {
    let exe = out.join(format!("cross_f.{mode}"));
    let mut c = Command::new(FLANG);
    c.args(["-O2", "-g", "-fopenmp", "-J"]).arg(out).current_dir(dir()).env_remove("OMPADAPT_AUTO");
    if mode == "pass" {
        c.arg(format!("-fpass-plugin={}", pass_plugin().display()));
    }
    c.args(["main.f90", "units.f90", "-o"]).arg(&exe);
    run(&mut c).expect_ok(&format!("fortran {mode}"));
    exe
}

/// Per region (by the line of its construct in `file`): None where it ran its variants, else
/// why it ran as written, from one run's JSON report.
fn verdicts(exe: &Path, file: &str) -> BTreeMap<usize, Option<String>> {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("report.json");
    run_isolated(exe, d.path(), &[("OMPADAPT_REPORT", &format!("json:{}", json.display()))]).expect_ok("report run");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let mut out = BTreeMap::new();
    for r in doc["regions"].as_array().unwrap() {
        let model = r["region"].as_str().unwrap();
        let Some(line) = model.split_once(&format!("{file}:")).and_then(|(_, l)| l.parse::<usize>().ok()) else { continue };
        out.insert(line, r["held"].as_str().map(str::to_string));
    }
    out
}

/// The verdicts of a one-file build: per region (line, and `#k` where several share one),
/// whether the pass made it adaptive.
fn one_file_verdicts(src: &str, fortran: bool, file: &str) -> BTreeMap<(usize, u32), bool> {
    let scratch = scratch();
    let mut c = Command::new(if fortran { FLANG } else { CLANG });
    c.args(["-O2", "-g", "-fopenmp", "-c", "-Rpass=ompadapt", "-Rpass-missed=ompadapt"]).current_dir(dir());
    if fortran {
        c.arg("-J").arg(scratch.path());
    }
    c.arg(format!("-fpass-plugin={}", pass_plugin().display())).arg(src).arg("-o").arg(scratch.path().join("one.o"));
    let out = run(&mut c);
    out.expect_ok("one-file build");
    let mut v = BTreeMap::new();
    for l in out.stderr.lines() {
        // (the included file is named as the include spelled it: `./main.c`)
        let Some((_, rest)) = l.split_once("region '").and_then(|(_, r)| r.split_once(&format!("{file}:"))) else { continue };
        let Ok(line) = rest.split(|c: char| !c.is_ascii_digit()).next().unwrap_or("").parse::<usize>() else { continue };
        let name = rest.split('\'').next().unwrap_or("");
        let k = name.rsplit_once('#').and_then(|(_, k)| k.parse().ok()).unwrap_or(1);
        if l.contains("[OMPADAPT150]") {
            v.insert((line, k), true);
        } else if l.contains("[OMPADAPT14") || l.contains("[OMPADAPT157]") {
            v.insert((line, k), false);
        }
    }
    v
}

/// Each region's verdict is its `expect:`; a held region's reason says why.
fn check_expectations(what: &str, src: &Path, got: &BTreeMap<usize, Option<String>>) {
    for (line, e) in expectations(src) {
        let verdict = got.get(&line).unwrap_or_else(|| panic!("{what}: no region at line {line} in {got:?}"));
        match (e.strip_prefix("held "), verdict) {
            (None, None) => {}
            (Some(why), Some(reason)) => {
                let key = why.split(" (").next().unwrap();
                assert!(reason.contains(key), "{what}: line {line} held for '{reason}', expected '{key}'");
            }
            _ => panic!("{what}: line {line} expected {e}, got {verdict:?}"),
        }
    }
}

#[test]
fn runtime_verdicts_are_the_one_file_verdicts() {
    let scratch = scratch();
    let one = one_file_verdicts("one_file.c", false, "main.c");
    for (mode, lto) in [("pass", None), ("auto", None), ("pass", Some("thin")), ("pass", Some("full")), ("auto", Some("thin"))] {
        let exe = build_c(scratch.path(), mode, lto);
        let got = verdicts(&exe, "main.c");
        check_expectations(&format!("C {mode} lto={lto:?}"), &dir().join("main.c"), &got);
        for (line, e) in expectations(&dir().join("main.c")) {
            // built without ompadapt, the plain library has no summary: held, though one file
            // (which sees its code) adapts
            if e.contains("no summary") {
                continue;
            }
            assert_eq!(
                one.get(&(line, 1)).copied(),
                Some(got[&line].is_none()),
                "C {mode} lto={lto:?}: line {line}: one file vs the runtime"
            );
        }
    }
    // flang-19 gives every fork of a procedure one location: its regions are `main@main.f90:7`,
    // `main@main.f90:7#2`, ... in source order
    let expected = expectations(&dir().join("main.f90"));
    let exe = build_fortran(scratch.path(), "pass");
    let got: Vec<Option<String>> = fortran_verdicts(&exe);
    assert_eq!(got.len(), expected.len(), "Fortran: the regions of the run: {got:?}");
    for ((_, e), verdict) in expected.iter().zip(&got) {
        match (e.strip_prefix("held "), verdict) {
            (None, None) => {}
            (Some(why), Some(reason)) => {
                assert!(reason.contains(why.split(" (").next().unwrap()), "Fortran: held for '{reason}', expected '{why}'")
            }
            _ => panic!("Fortran: expected {e}, got {verdict:?}"),
        }
    }
    let one = one_file_verdicts("one_file.f90", true, "main.f90");
    let one: Vec<bool> = one.into_values().collect();
    assert_eq!(one, got.iter().map(Option::is_none).collect::<Vec<_>>(), "Fortran: one file vs the runtime");
}

/// The Fortran program's regions in source order (by the `#k` of their names): None where the
/// region ran its variants, else why it ran as written.
fn fortran_verdicts(exe: &Path) -> Vec<Option<String>> {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("report.json");
    run_isolated(exe, d.path(), &[("OMPADAPT_REPORT", &format!("json:{}", json.display()))]).expect_ok("report run");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let mut regions: Vec<(u32, Option<String>)> = doc["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let k = r["region"].as_str().unwrap().rsplit_once('#').and_then(|(_, k)| k.parse().ok()).unwrap_or(1);
            (k, r["held"].as_str().map(str::to_string))
        })
        .collect();
    regions.sort_by_key(|(k, _)| *k);
    regions.into_iter().map(|(_, h)| h).collect()
}

#[test]
fn every_variant_prints_what_stock_prints() {
    let scratch = scratch();
    let stock = build_c(scratch.path(), "stock", None);
    let expected = run_isolated(&stock, scratch.path(), &[]).stdout;
    let variants = ["serial", "threads=0.125", "threads=0.25", "threads=0.5", "threads=1"];
    for mode in ["pass", "auto"] {
        let exe = build_c(scratch.path(), mode, None);
        for v in variants {
            let d = tempfile::tempdir().unwrap();
            assert_eq!(run_isolated(&exe, d.path(), &[("OMPADAPT_VARIANT", v)]).stdout, expected, "C {mode} pinned to {v}");
        }
        let d = tempfile::tempdir().unwrap();
        for k in 0..3 {
            assert_eq!(run_isolated(&exe, d.path(), &[]).stdout, expected, "C {mode} under the runtime, run {k}");
        }
    }
    let stock = build_fortran(scratch.path(), "stock");
    let expected = run_isolated(&stock, scratch.path(), &[]).stdout;
    let exe = build_fortran(scratch.path(), "pass");
    for v in variants {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(run_isolated(&exe, d.path(), &[("OMPADAPT_VARIANT", v)]).stdout, expected, "Fortran pinned to {v}");
    }
}

/// Threadprivate data used by another unit's parallel region keeps even a region that calls
/// nothing outside its own unit as written: threadprivate values persist between parallel regions
/// only while their teams keep one size, and the runtime reads that unit's note.
#[test]
fn threadprivate_in_another_unit_holds_every_region() {
    let scratch = scratch();
    let stock = scratch.path().join("tls.stock");
    let build = |exe: &Path, mode: &str| {
        let mut c = Command::new(CLANG);
        c.args(["-O2", "-g", "-fopenmp"]).env_remove("OMPADAPT_AUTO").current_dir(dir());
        adaptive_flags(&mut c, mode);
        c.args(["tls_main.c", "tls_unit.c", "-o"]).arg(exe);
        run(&mut c).expect_ok(&format!("tls {mode}"));
    };
    build(&stock, "stock");
    let expected = run_isolated(&stock, scratch.path(), &[]).stdout;
    for mode in ["pass", "auto"] {
        let exe = scratch.path().join(format!("tls.{mode}"));
        build(&exe, mode);
        let got = verdicts(&exe, "tls_main.c");
        check_expectations(&format!("tls {mode}"), &dir().join("tls_main.c"), &got);
        let d = tempfile::tempdir().unwrap();
        assert_eq!(run_isolated(&exe, d.path(), &[("OMPADAPT_VARIANT", "serial")]).stdout, expected, "tls {mode} pinned to serial");
    }
}
