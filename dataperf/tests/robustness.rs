//! The tool on programs it was not tuned for: millions of transfers under a small memory cap,
//! C++ templates with `_Pragma` in macros, concurrent host threads on several devices, no
//! debug information, no preloading, the tool switched off, and report files planted as
//! symbolic links.

mod common;
use common::*;
use std::process::Command;

#[test]
fn millions_of_transfers_stay_under_the_memory_cap() {
    let d = scratch();
    let src = program("many_transfers.c");
    let exe = d.path().join("many");
    compile(&src, &exe, &["-g", "-O1"]);
    let n: u64 = 2_000_000;
    let a = analyse(&exe, d.path(), &["--mem", "1M"], &[&n.to_string()]);
    assert_eq!(a.checks, vec![format!("CHECK acc={:.1}", (n - 1) as f64)]);
    let r = &a.report;
    let m = &r["memory"];
    assert_eq!(m["cap_bytes"], 1 << 20);
    let peak = m["peak_bytes"].as_u64().unwrap();
    assert!(peak <= 1 << 20, "the tool held {peak} bytes, over its 1 MiB cap");
    // Two million distinct contents do not fit: the report says detail was dropped.
    assert_eq!(m["complete"], false);
    assert!(m["dropped"]["contents_forgotten"].as_u64().unwrap() > n / 2);
    // Every transfer is still counted, and every update but the last is overwritten unread.
    let to = r["totals"].as_array().unwrap().iter().find(|t| t["op"] == "to_device").unwrap();
    assert_eq!(to["count"].as_u64(), Some(n + 2), "{to}");
    assert_eq!(count(r, "unused_transfers"), n);
    let f = &findings(r, "unused_transfers")[0];
    assert_site(&f["site"], "many_transfers.c", line_of(&src, "update"), 1);
    assert_eq!(f["variable"], "x");
    assert!(a.stderr.contains("report in"), "{}", a.stderr);
}

#[test]
fn cpp_templates_and_pragmas_in_macros() {
    let d = scratch();
    let src = program("hecbench_style.cpp");
    let exe = d.path().join("hecbench_style");
    compile(&src, &exe, &["-g", "-O2"]);
    let plain = run_plain(&exe, &[]);
    let a = analyse(&exe, d.path(), &[], &[]);
    assert_eq!(a.checks, plain);
    let r = &a.report;
    // `in` is mapped again by every call: three duplicates, attributed to the macro's use in
    // the template; `out` is already present inside the data environment.
    assert_eq!(count(r, "duplicate_transfers"), 3, "{}", r["findings"]);
    let f = &findings(r, "duplicate_transfers")[0];
    assert_site(&f["site"], "hecbench_style.cpp", line_of(&src, "macro"), 3);
    assert_eq!(f["variable"], "in[0:n]");
    let func = f["site"]["function"].as_str().unwrap();
    assert!(func.contains("scale"), "function {func}");
    assert_eq!(count(r, "repeated_allocations"), 3);
    assert_eq!(count(r, "round_trips"), 0);
}

#[test]
fn concurrent_host_threads_on_several_devices() {
    let d = scratch();
    let src = program("threads.c");
    let exe = d.path().join("threads");
    compile(&src, &exe, &["-g", "-O1"]);
    let plain = run_plain(&exe, &[]);
    for _ in 0..3 {
        let a = analyse(&exe, d.path(), &[], &[]);
        assert_eq!(a.checks, plain);
        let r = &a.report;
        // Each thread maps its own array twice: one duplicate per thread, on its device.
        assert_eq!(count(r, "duplicate_transfers"), 4, "{}", r["findings"]);
        let devs: std::collections::BTreeSet<i64> =
            findings(r, "duplicate_transfers").iter().map(|f| f["device"].as_i64().unwrap()).collect();
        assert_eq!(devs.len(), 4, "devices {devs:?}");
        let kernels: u64 = r["devices"].as_array().unwrap().iter().map(|d| d["kernels"].as_u64().unwrap()).sum();
        assert_eq!(kernels, 8);
    }
}

#[test]
fn without_debug_information_or_preloading() {
    let d = scratch();
    let src = program("duplicate.c");
    // No -g: no map-clause names, no lines; the function still comes from the symbol table.
    let exe = d.path().join("dup-nog");
    compile(&src, &exe, &["-O1"]);
    let r = analyse(&exe, d.path(), &[], &[]).report;
    assert_eq!(count(&r, "duplicate_transfers"), 1);
    let f = &findings(&r, "duplicate_transfers")[0];
    assert_eq!(f["variable"], serde_json::Value::Null);
    assert_eq!(f["site"]["line"], 0);
    assert_eq!(f["site"]["function"], "main");
    // With -g but loaded through OMP_TOOL_LIBRARIES only: no names (the entry points are not
    // interposed), findings and the lines of kernel launches from the line table: clang gives
    // the launch the location of the construct or of its loop, the line after.
    let exe = d.path().join("dup-g");
    compile(&src, &exe, &["-g", "-O0"]);
    let r = analyse(&exe, d.path(), &["--no-preload"], &[]).report;
    assert_eq!(count(&r, "duplicate_transfers"), 1);
    let f = &findings(&r, "duplicate_transfers")[0];
    assert_eq!(f["variable"], serde_json::Value::Null);
    let line = f["site"]["line"].as_u64().unwrap();
    let pragma = line_of(&src, "second");
    assert!(line == pragma || line == pragma + 1, "line {line}, construct at {pragma}: {f}");
    assert!(f["site"]["file"].as_str().unwrap().ends_with("duplicate.c"));
}

#[test]
fn off_unless_asked_and_text_by_default() {
    let d = scratch();
    let exe = d.path().join("dup");
    let src = program("duplicate.c");
    compile(&src, &exe, &["-g", "-O1"]);
    // Loaded but not enabled: no report, no change.
    let o = Command::new(&exe).env("OMP_TOOL_LIBRARIES", tool_lib()).env_remove("OMPADAPT_DATA").output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success());
    assert!(!err.contains("ompadapt-dataperf"), "{err}");
    assert_eq!(checks(&out).len(), 2);
    // The launcher without --json: text tables on stderr.
    let o = Command::new(launcher()).args(["--top", "5", "--"]).arg(&exe).output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(checks(&out).len(), 2);
    let line = line_of(&src, "second");
    assert!(err.contains("1 duplicate transfers, 0 round trips, 1 repeated allocations"), "{err}");
    assert!(err.contains(&format!("duplicate.c:{line}:1  a[0:n]")), "{err}");
    assert!(err.contains("--- potential savings"), "{err}");
    // A program that fails keeps its exit status.
    let o = Command::new(launcher()).args(["--", "/bin/sh", "-c", "exit 7"]).output().unwrap();
    assert_eq!(o.status.code(), Some(7));
}

/// The program follows the launcher's options with or without `--` (issue 43): the first
/// argument that is not one of the launcher's options is the program, and everything after it
/// is the program's, its own options included. An option the launcher does not know says how
/// to write the command.
#[test]
fn the_program_follows_the_options_with_or_without_a_double_dash() {
    let d = scratch();
    let src = program("many_transfers.c");
    let exe = d.path().join("many");
    compile(&src, &exe, &["-g", "-O1"]);
    let json = d.path().join("r.json");
    let o = Command::new(launcher()).arg("--json").arg(&json).arg(&exe).arg("5").output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert_eq!(checks(&out), vec!["CHECK acc=4.0".to_owned()], "the program's argument reached it");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(count(&r, "unused_transfers"), 5, "{}", r["findings"]["unused_transfers"]);
    // Options after the program are the program's, `--` included.
    let o = Command::new(launcher()).args(["/bin/sh", "-c", "echo \"$@\"; exit 3", "sh", "--json", "x", "--", "-n", "5"]).output().unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert_eq!(out, "--json x -- -n 5\n");
    let o = Command::new(launcher()).args(["--top", "3", "--", "/bin/sh", "-c", "exit 4"]).output().unwrap();
    assert_eq!(o.status.code(), Some(4));
    // An option the launcher does not know, or no program: the usage with the program in it.
    for args in [&["--bogus", "/bin/true"][..], &["--top", "3"][..]] {
        let o = Command::new(launcher()).args(args).output().unwrap();
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("Usage: ompadapt-dataperf [OPTIONS] [--] PROGRAM [ARGS]..."), "{args:?}: {err}");
    }
}

#[test]
fn report_files_never_follow_planted_links() {
    let d = scratch();
    let exe = d.path().join("dup");
    compile(&program("duplicate.c"), &exe, &["-g", "-O1"]);
    let victim = d.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let report = d.path().join("report.json");
    std::os::unix::fs::symlink(&victim, &report).unwrap();
    let o = Command::new(&exe)
        .env("OMP_TOOL_LIBRARIES", tool_lib())
        .env("OMPADAPT_DATA", format!("json:{}", report.display()))
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(count(&r, "duplicate_transfers"), 1);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&report).unwrap().permissions().mode() & 0o002, 0);
}
