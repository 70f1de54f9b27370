//! Each of the OMPDataPerf paper's patterns in a small program under host offload, and its fixed
//! version, with the findings, their source lines, columns and map-clause names asserted; the
//! program's results are the same with and without the tool.

mod common;
use common::*;

/// Compiles `name` as is and with -DFIXED; returns (exe, fixed exe, source).
fn build(dir: &std::path::Path, name: &str, flags: &[&str]) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let src = program(name);
    let exe = dir.join(name.replace(".c", ""));
    let fixed = dir.join(name.replace(".c", "-fixed"));
    let mut f = vec!["-g", "-O1"];
    f.extend_from_slice(flags);
    compile(&src, &exe, &f);
    f.push("-DFIXED");
    compile(&src, &fixed, &f);
    (exe, fixed, src)
}

/// Runs both versions under the tool and checks that their results equal the plain runs'.
fn analyse_both(dir: &std::path::Path, exe: &std::path::Path, fixed: &std::path::Path) -> (serde_json::Value, serde_json::Value) {
    let plain = run_plain(exe, &[]);
    assert!(!plain.is_empty());
    let bad = analyse(exe, dir, &[], &[]);
    assert_eq!(bad.checks, plain, "the tool changed the program's results");
    let good = analyse(fixed, dir, &[], &[]);
    assert_eq!(good.checks, run_plain(fixed, &[]), "the tool changed the fixed program's results");
    assert_eq!(good.checks, plain, "the fixed program computes something else");
    (bad.report, good.report)
}

#[test]
fn duplicate_transfers_listing_1() {
    let d = scratch();
    let (exe, fixed, src) = build(d.path(), "duplicate.c", &[]);
    let (r, clean) = analyse_both(d.path(), &exe, &fixed);
    assert_eq!(count(&r, "duplicate_transfers"), 1);
    assert_eq!(count(&r, "round_trips"), 0);
    assert_eq!(count(&r, "repeated_allocations"), 1);
    assert_eq!(count(&r, "unused_allocations") + count(&r, "unused_transfers"), 0);
    let f = &findings(&r, "duplicate_transfers")[0];
    assert_site(&f["site"], "duplicate.c", line_of(&src, "second"), 1);
    assert_eq!(f["site"]["construct"], "target");
    assert_eq!(f["site"]["function"], "main");
    assert_eq!(f["variable"], "a[0:n]");
    assert_eq!(f["bytes"], 4096 * 8);
    assert_eq!(f["device"], 0);
    assert_eq!(f["other_device"], r["host_device"]);
    let ra = &findings(&r, "repeated_allocations")[0];
    assert_eq!(ra["variable"], "a[0:n]");
    assert_site(&ra["site"], "duplicate.c", line_of(&src, "second"), 1);
    // Savings: one transfer and one allocate/delete pair.
    assert_eq!(r["savings"]["transfers"]["count"], 1);
    assert_eq!(r["savings"]["allocations"]["count"], 1);
    assert_clean(&clean);
}

#[test]
fn round_trips_listing_2() {
    let d = scratch();
    let (exe, fixed, src) = build(d.path(), "round_trip.c", &[]);
    let (r, clean) = analyse_both(d.path(), &exe, &fixed);
    let steps = 8;
    assert_eq!(count(&r, "round_trips"), steps - 1);
    assert_eq!(count(&r, "duplicate_transfers"), 0);
    assert_eq!(count(&r, "repeated_allocations"), steps - 1);
    let f = &findings(&r, "round_trips")[0];
    let line = line_of(&src, "step");
    assert_site(&f["site"], "round_trip.c", line, 1);
    assert_site(&f["related_site"], "round_trip.c", line, 1);
    assert_eq!(f["variable"], "a[0:n]");
    assert_eq!(f["related_variable"], "a[0:n]");
    // The device sent the array to the host, which sent it back unmodified.
    assert_eq!(f["device"], 0);
    assert_eq!(f["other_device"], r["host_device"]);
    assert_eq!(r["savings"]["transfers"]["count"], steps - 1);
    assert_clean(&clean);
}

#[test]
fn repeated_allocations_of_a_scratch_array() {
    let d = scratch();
    let (exe, fixed, src) = build(d.path(), "repeated_alloc.c", &[]);
    let (r, clean) = analyse_both(d.path(), &exe, &fixed);
    assert_eq!(count(&r, "repeated_allocations"), 5);
    assert_eq!(count(&r, "duplicate_transfers") + count(&r, "round_trips"), 0);
    let f = &findings(&r, "repeated_allocations")[0];
    assert_site(&f["site"], "repeated_alloc.c", line_of(&src, "step"), 1);
    assert_eq!(f["variable"], "out[0:n]");
    assert_eq!(f["bytes"], 5 * 4096 * 8);
    assert_clean(&clean);
}

#[test]
fn unused_allocation_of_a_skipped_kernel() {
    let d = scratch();
    let (exe, fixed, src) = build(d.path(), "unused_alloc.c", &[]);
    let (r, clean) = analyse_both(d.path(), &exe, &fixed);
    assert_eq!(count(&r, "unused_allocations"), 1);
    assert_eq!(count(&r, "duplicate_transfers") + count(&r, "round_trips") + count(&r, "repeated_allocations"), 0);
    let f = &findings(&r, "unused_allocations")[0];
    // The construct of the non-fixed version is the first @data marker.
    assert_site(&f["site"], "unused_alloc.c", line_of(&src, "data"), 1);
    assert_site(&f["related_site"], "unused_alloc.c", line_of(&src, "data"), 1);
    // OMPT reports a `target data` construct as an enter and an exit.
    assert_eq!(f["site"]["construct"], "target enter data");
    assert_eq!(f["related_site"]["construct"], "target exit data");
    assert_eq!(f["variable"], "work[0:n]");
    assert_eq!(r["savings"]["allocations"]["count"], 1);
    assert_clean(&clean);
}

#[test]
fn unused_transfers_overwritten_and_after_the_last_kernel() {
    let d = scratch();
    let (exe, fixed, src) = build(d.path(), "unused_transfer.c", &[]);
    let (r, clean) = analyse_both(d.path(), &exe, &fixed);
    assert_eq!(count(&r, "unused_transfers"), 2);
    let rows = findings(&r, "unused_transfers");
    let by = |why: &str| rows.iter().find(|f| f["reason"] == why).unwrap_or_else(|| panic!("no {why} in {rows:?}"));
    let over = by("overwritten");
    assert_site(&over["site"], "unused_transfer.c", line_of(&src, "enter"), 1);
    assert_eq!(over["site"]["construct"], "target enter data");
    assert_site(&over["related_site"], "unused_transfer.c", line_of(&src, "update"), 1);
    assert_eq!(over["variable"], "a[0:n]");
    let late = by("deleted");
    assert_site(&late["site"], "unused_transfer.c", line_of(&src, "late"), 1);
    assert_eq!(late["site"]["construct"], "target update");
    assert_eq!(late["variable"], "a[0:n]");
    assert_eq!(r["savings"]["transfers"]["count"], 2);
    assert_clean(&clean);
}

/// OMPDataPerf looks the freed pointer up unchecked (undefined behaviour); here it is a
/// reported finding and the program is unaffected.
#[test]
fn freeing_device_memory_never_mapped() {
    let d = scratch();
    let src = program("unmatched_free.c");
    let exe = d.path().join("unmatched_free");
    compile(&src, &exe, &["-g", "-O1"]);
    let plain = run_plain(&exe, &[]);
    let a = analyse(&exe, d.path(), &[], &[]);
    assert_eq!(a.checks, plain);
    let r = &a.report;
    assert_eq!(count(r, "unmatched_deletes"), 1);
    let f = &findings(r, "unmatched_deletes")[0];
    assert_site(&f["site"], "unmatched_free.c", line_of(&src, "free"), 3);
    assert_eq!(f["site"]["construct"], "device memory routine");
    // The omp_target_alloc'ed array is used by the kernel and freed: nothing else to report.
    assert_clean(r);
    assert_eq!(r["devices"][0]["live_bytes_at_exit"], 0);
    assert_eq!(r["devices"][0]["peak_bytes"], 512 * 8);
}

/// Built without -g, a finding cannot name its variable: the text report says why its column
/// reads '-', and what to do.
#[test]
fn findings_without_debug_information_say_how_to_get_names() {
    let d = scratch();
    let src = program("duplicate.c");
    let text_report = |flags: &[&str], name: &str| {
        let exe = d.path().join(name);
        compile(&src, &exe, flags);
        let o = std::process::Command::new(launcher()).arg("--").arg(&exe).output().unwrap();
        assert!(o.status.success());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let bare = text_report(&["-O1"], "duplicate-nodebug");
    assert!(bare.contains("--- duplicate transfers") && bare.contains("rebuild it with -g"), "{bare}");
    let named = text_report(&["-g", "-O1"], "duplicate-debug");
    assert!(named.contains("a[0:n]") && !named.contains("rebuild it with -g"), "{named}");
}
