//! Every finding says what to write instead: on each pattern program (dataperf/tests/programs
//! and the HeCBench-style kernels of benchmarks/dataperf), the finding's suggestion names the
//! action, the clause with the right variable, the right lines, in the JSON and the text
//! report alike, with a saving equal to the finding's operations. A suggestion applied by hand
//! removes its finding and leaves the program's results as they were.

mod common;
use common::*;
use ompadapt_dataperf::units::{fmt_bytes, fmt_ns};
use serde_json::Value;

/// The JSON and text reports of `exe` (compiled from `src` with `flags`).
fn reports(dir: &std::path::Path, src: &std::path::Path, name: &str, flags: &[&str], args: &[&str]) -> (Value, String) {
    let exe = dir.join(name);
    compile(src, &exe, flags);
    let json = analyse(&exe, dir, &[], args).report;
    let text = text_report(&exe, dir, args);
    check_every_suggestion(&json, &text);
    (json, text)
}

/// Every finding has a suggestion whose saving is its own operations, shown in the text report
/// too; the suggestions together cover the report's savings (which count each operation once).
#[track_caller]
fn check_every_suggestion(r: &Value, text: &str) {
    let mut transfer_savings = 0;
    let mut allocation_savings = 0;
    for p in PATTERNS.iter().chain(["unmatched_deletes"].iter()) {
        for f in findings(r, p) {
            let s = &f["suggestion"];
            assert!(s["action"].as_str().is_some_and(|a| !a.is_empty()), "{f}");
            // One entry per edit: the finding names its change, the text report lists the change
            // once. The text report comes from another run: the same words, another time, address
            // and (findings ordered by time) number.
            let n = f["change"].as_u64().unwrap() as usize;
            let change = &r["changes"][n - 1];
            assert_eq!(change["number"], n, "{f}");
            let words = comparable(change["text"].as_str().unwrap());
            assert!(comparable(text).contains(words.trim_end()), "the text report lacks {words:?}:\n{text}");
            assert!(text.contains("fix: change "), "{text}");
            assert_eq!(s["saving_bytes"], f["bytes"], "{f}");
            assert_eq!(s["saving_ns"], f["ns"], "{f}");
            let (bytes, ns) = (f["bytes"].as_u64().unwrap(), f["ns"].as_u64().unwrap());
            if *p != "unmatched_deletes" {
                let saves = format!("; saves {} ({}) in {} ", fmt_bytes(bytes), fmt_ns(ns), f["count"]);
                assert!(s["text"].as_str().unwrap().contains(&saves), "{saves:?} not in {s}");
            }
            match *p {
                "repeated_allocations" | "unused_allocations" => allocation_savings += bytes,
                "unmatched_deletes" => {}
                _ => transfer_savings += bytes,
            }
        }
    }
    // every finding is cleared by exactly one change
    let listed: u64 = r["changes"].as_array().unwrap().iter().flat_map(|c| c["clears"].as_array().unwrap()).map(|k| k[1].as_u64().unwrap()).sum();
    let found: usize = PATTERNS.iter().chain(["unmatched_deletes"].iter()).map(|p| findings(r, p).len()).sum();
    assert_eq!(listed as usize, found, "{}", r["changes"]);
    assert!(transfer_savings >= r["savings"]["transfers"]["bytes"].as_u64().unwrap(), "{}", r["savings"]);
    assert!(allocation_savings >= r["savings"]["allocations"]["bytes"].as_u64().unwrap(), "{}", r["savings"]);
}

/// `text` with its savings and addresses left out (what differs between two runs).
fn comparable(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let line = line.split("; saves").next().unwrap();
        let mut rest = line;
        while let Some(i) = rest.find("0x") {
            out.push_str(&rest[..i + 2]);
            rest = rest[i + 2..].trim_start_matches(|c: char| c.is_ascii_hexdigit());
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

/// The suggestion of the one finding of `pattern` whose variable is `var`.
#[track_caller]
fn suggestion<'a>(r: &'a Value, pattern: &str, var: &str) -> &'a Value {
    let rows: Vec<&Value> = findings(r, pattern).iter().filter(|f| f["variable"] == var).collect();
    assert_eq!(rows.len(), 1, "{pattern} of {var}: {}", r["findings"][pattern]);
    &rows[0]["suggestion"]
}

#[track_caller]
fn assert_suggests(s: &Value, action: &str, clause: Option<&str>, place: &str) {
    assert_eq!(s["action"], action, "{s}");
    assert_eq!(s["clause"].as_str(), clause, "{s}");
    let w = s["where"].as_str().unwrap_or("");
    assert!(w.ends_with(place), "where {w:?} is not {place}: {s}");
}

fn text_of(s: &Value) -> &str {
    s["text"].as_str().unwrap()
}

#[test]
fn duplicates_hoist_into_a_data_region_around_both_constructs() {
    let d = scratch();
    let src = program("duplicate.c");
    let (r, _) = reports(d.path(), &src, "duplicate", &["-g", "-O1"], &[]);
    let (first, second) = (line_of(&src, "first"), line_of(&src, "second"));
    let s = suggestion(&r, "duplicate_transfers", "a[0:n]");
    assert_suggests(s, "hoist-to-target-data", Some("#pragma omp target data map(to: a[0:n])"), &format!("duplicate.c:{first}-{second}"));
    assert!(text_of(s).starts_with(&format!("hoist `map(to: a[0:n])` of lines {first}\u{2013}{second} into")), "{s}");
    assert!(text_of(s).contains("saves 32.0 KiB"), "{s}");
    let f = &findings(&r, "duplicate_transfers")[0];
    assert_site(&f["first_site"], "duplicate.c", first, 1);
    assert_eq!(f["map_type"], "to");
    let s = suggestion(&r, "repeated_allocations", "a[0:n]");
    assert_suggests(
        s,
        "enter-exit-data",
        Some("#pragma omp target enter data map(alloc: a[0:n])"),
        &format!("duplicate.c:{first}-{second}"),
    );
    assert!(text_of(s).contains("`#pragma omp target exit data map(delete: a[0:n])`"), "{s}");
}

#[test]
fn round_trips_keep_the_array_on_the_device_around_the_loop() {
    let d = scratch();
    let src = program("round_trip.c");
    let (r, _) = reports(d.path(), &src, "round_trip", &["-g", "-O1"], &[]);
    let looped = line_of(&src, "loop");
    let s = suggestion(&r, "round_trips", "a[0:n]");
    assert_suggests(s, "keep-resident", Some("#pragma omp target data map(tofrom: a[0:n])"), &format!("round_trip.c:{looped}"));
    assert!(text_of(s).contains(&format!("around the loop at line {looped}")), "{s}");
    assert!(text_of(s).contains("`#pragma omp target update from(a[0:n])` only where the host reads it"), "{s}");
    assert!(text_of(s).contains("unchanged 7 times"), "{s}");
}

#[test]
fn repeated_allocations_allocate_once_around_the_loop() {
    let d = scratch();
    let src = program("repeated_alloc.c");
    let (r, _) = reports(d.path(), &src, "repeated_alloc", &["-g", "-O1"], &[]);
    let looped = line_of(&src, "loop");
    let s = suggestion(&r, "repeated_allocations", "out[0:n]");
    assert_suggests(
        s,
        "enter-exit-data",
        Some("#pragma omp target enter data map(alloc: out[0:n])"),
        &format!("repeated_alloc.c:{looped}"),
    );
    // `map(from: ...)`: the host reads it after each step, so an update from, and no update to.
    let t = text_of(s);
    assert!(t.contains("`#pragma omp target update from(out[0:n])` where the host reads it") && !t.contains("update to("), "{s}");
    assert!(t.contains("in 5 allocations"), "{s}");
}

#[test]
fn unused_allocations_and_transfers_say_which_clause_to_change() {
    let d = scratch();
    let src = program("unused_alloc.c");
    let (r, _) = reports(d.path(), &src, "unused_alloc", &["-g", "-O1"], &[]);
    let s = suggestion(&r, "unused_allocations", "work[0:n]");
    let data = line_of(&src, "data");
    assert_suggests(s, "drop-map", Some("#pragma omp target data if(...) map(alloc: work[0:n])"), &format!("unused_alloc.c:{data}"));
    let src = program("unused_transfer.c");
    let (r, _) = reports(d.path(), &src, "unused_transfer", &["-g", "-O1"], &[]);
    let rows = findings(&r, "unused_transfers");
    let by = |why: &str| &rows.iter().find(|f| f["reason"] == why).unwrap()["suggestion"];
    let (enter, update, late) = (line_of(&src, "enter"), line_of(&src, "update"), line_of(&src, "late"));
    let s = by("overwritten");
    assert_suggests(s, "map-alloc", Some("map(alloc: a[0:n])"), &format!("unused_transfer.c:{enter}"));
    let expected =
        format!("`map(alloc: a[0:n])` instead of `map(to: a[0:n])` at line {enter}: the `target update` at line {update} overwrites it");
    assert!(text_of(s).starts_with(&expected), "{s}");
    let s = by("deleted");
    assert_suggests(s, "skip-update", Some("#pragma omp target update to(a[0:n])"), &format!("unused_transfer.c:{late}"));
}

#[test]
fn a_function_called_in_a_loop_is_hoisted_around_the_callers_loop() {
    let d = scratch();
    let src = program("hecbench_style.cpp");
    let (r, _) = reports(d.path(), &src, "hecbench_style", &["-g", "-O2"], &[]);
    let looped = line_of(&src, "loop");
    let s = suggestion(&r, "duplicate_transfers", "in[0:n]");
    assert_suggests(s, "hoist-to-target-data", Some("#pragma omp target data map(to: in[0:n])"), &format!("hecbench_style.cpp:{looped}"));
    assert!(text_of(s).contains(&format!("of line {} into", line_of(&src, "macro"))), "{s}");
    assert!(text_of(s).contains(&format!("around the loop at line {looped} in `main` that calls `scale`")), "{s}");
}

#[test]
fn unmatched_frees_and_missing_names() {
    let d = scratch();
    let src = program("unmatched_free.c");
    let (r, _) = reports(d.path(), &src, "unmatched_free", &["-g", "-O1"], &[]);
    let s = &findings(&r, "unmatched_deletes")[0]["suggestion"];
    assert_suggests(s, "check-free", None, &format!("unmatched_free.c:{}", line_of(&src, "free")));
    // No -g: the data by size and address, and how to get names.
    let (r, text) = reports(d.path(), &program("duplicate.c"), "duplicate-nog", &["-O1"], &[]);
    let s = &findings(&r, "duplicate_transfers")[0]["suggestion"];
    let t = text_of(s);
    assert!(t.contains("`map(to: <32768 bytes at 0x") && t.ends_with("(rebuild with -g for variable names and lines)"), "{s}");
    assert!(text.contains(". hoist `map(to: <32768 bytes at 0x"), "{text}");
}

/// hotspot maps its unchanged coefficients `p` on every call of `step`: the suggestion hoists
/// them around the loop in main that calls it; done by hand (hotspot_hoisted.c), the finding is
/// gone and the result is the same.
#[test]
fn hotspot_suggestion_applied_by_hand_removes_the_finding() {
    let d = scratch();
    let src = benchmark_program("hotspot.c");
    let args = ["48", "6"];
    let (r, _) = reports(d.path(), &src, "hotspot", &["-g", "-O1", "-lm"], &args);
    let looped = line_containing(&src, "for (int s = 0; s < steps; s++) { step(");
    let s = suggestion(&r, "duplicate_transfers", "p[0:n * n]");
    assert_suggests(s, "hoist-to-target-data", Some("#pragma omp target data map(to: p[0:n * n])"), &format!("hotspot.c:{looped}"));
    assert!(text_of(s).contains(&format!("around the loop at line {looped} in `main` that calls `step`")), "{s}");
    assert_eq!(findings(&r, "duplicate_transfers").iter().find(|f| f["variable"] == "p[0:n * n]").unwrap()["count"], 5);
    // The round trip of the grid: the device's result comes back as the next step's input.
    let trip = suggestion(&r, "round_trips", "t[0:n * n]");
    assert_suggests(trip, "keep-resident", Some("#pragma omp target data map(tofrom: t[0:n * n])"), &format!("hotspot.c:{looped}"));

    let exe = d.path().join("hotspot");
    let hoisted = program("hotspot_hoisted.c");
    let fixed = d.path().join("hotspot_hoisted");
    compile(&hoisted, &fixed, &["-g", "-O1", "-lm"]);
    let a = analyse(&fixed, d.path(), &[], &args);
    assert_eq!(a.checks, run_plain(&exe, &args), "the hoisted program computes something else");
    let after = &a.report;
    for p in ["duplicate_transfers", "repeated_allocations"] {
        assert!(findings(after, p).iter().all(|f| f["variable"] != "p[0:n * n]"), "{p} of p remain: {}", after["findings"][p]);
    }
    // The other findings are as they were.
    assert_eq!(count(after, "round_trips"), count(&r, "round_trips"));
    assert!(after["savings"]["transfers"]["bytes"].as_u64() < r["savings"]["transfers"]["bytes"].as_u64());
}

/// bfs maps its `stop` flag tofrom around both kernels of a level; the first kernel never
/// writes it, so its copy back is a round trip from the host: `map(to: stop)` there.
#[test]
fn bfs_flag_the_first_kernel_never_writes_is_mapped_to() {
    let d = scratch();
    let src = benchmark_program("bfs.c");
    let (r, _) = reports(d.path(), &src, "bfs", &["-g", "-O1"], &["40", "1"]);
    let first_kernel = line_containing(&src, "#pragma omp target teams distribute parallel for map(tofrom: stop)");
    let rows: Vec<&Value> = findings(&r, "round_trips")
        .iter()
        .filter(|f| f["suggestion"]["action"] == "map-to" && f["site"]["line"].as_u64() == Some(first_kernel))
        .collect();
    assert!(!rows.is_empty(), "{}", r["findings"]["round_trips"]);
    assert_suggests(&rows[0]["suggestion"], "map-to", Some("map(to: stop)"), &format!("bfs.c:{first_kernel}"));
    assert!(text_of(&rows[0]["suggestion"]).contains("instead of `map(tofrom: stop)`"), "{}", rows[0]);
}
