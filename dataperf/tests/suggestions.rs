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
/// A suggestion the run contradicts is withheld: no change, no saving, and what was seen in the
/// text report under its finding.
#[track_caller]
fn check_every_suggestion(r: &Value, text: &str) {
    let mut transfer_savings = 0;
    let mut allocation_savings = 0;
    let mut withheld = 0;
    for p in PATTERNS.iter().chain(["unmatched_deletes"].iter()) {
        for f in findings(r, p) {
            let s = &f["suggestion"];
            assert!(s["action"].as_str().is_some_and(|a| !a.is_empty()), "{f}");
            if s["action"] == "none" {
                withheld += 1;
                assert_eq!(f["change"], 0, "a withheld suggestion names no change: {f}");
                assert_eq!((s["saving_bytes"].as_u64(), s["clause"].as_str()), (Some(0), None), "{f}");
                let seen = s["contradicted"].as_str().unwrap_or_else(|| panic!("withheld without a reason: {f}"));
                assert!(text_of(s).starts_with("no change suggested: ") && text_of(s).contains(seen), "{f}");
                assert!(comparable(text).contains(&comparable(text_of(s))), "the text report lacks {s}:\n{text}");
                transfer_savings += f["bytes"].as_u64().unwrap();
                continue;
            }
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
    let listed: u64 =
        r["changes"].as_array().unwrap().iter().flat_map(|c| c["clears"].as_array().unwrap()).map(|k| k[1].as_u64().unwrap()).sum();
    let found: usize = PATTERNS.iter().chain(["unmatched_deletes"].iter()).map(|p| findings(r, p).len()).sum();
    assert_eq!(listed as usize, found - withheld, "{}", r["changes"]);
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
/// writes it, so its copy back is a round trip from the host: `map(to: stop)` there. The second
/// kernel writes it in every level but the last: its one unchanged copy back is a round trip
/// too, but `map(to: stop)` there would lose the kernel's writes, so none is suggested. The host
/// sets `stop` at the top of every level: keeping it on the device needs a `target update to`.
#[test]
fn bfs_flag_the_first_kernel_never_writes_is_mapped_to() {
    let d = scratch();
    let src = benchmark_program("bfs.c");
    let (r, text) = reports(d.path(), &src, "bfs", &["-g", "-O1"], &["40", "1"]);
    let pragma = "#pragma omp target teams distribute parallel for map(tofrom: stop)";
    let first_kernel = line_containing(&src, pragma);
    let source = std::fs::read_to_string(&src).unwrap();
    let second_kernel = source.lines().enumerate().filter(|(_, l)| l.contains(pragma)).nth(1).unwrap().0 as u64 + 1;
    let host = r["host_device"].clone();
    let at = |line: u64| {
        let host = host.clone();
        move |f: &&Value| f["site"]["line"].as_u64() == Some(line) && f["variable"] == "stop" && f["device"] == host
    };
    let rows: Vec<&Value> = findings(&r, "round_trips").iter().filter(at(first_kernel)).collect();
    assert!(!rows.is_empty(), "{}", r["findings"]["round_trips"]);
    assert_suggests(&rows[0]["suggestion"], "map-to", Some("map(to: stop)"), &format!("bfs.c:{first_kernel}"));
    assert!(text_of(&rows[0]["suggestion"]).contains("instead of `map(tofrom: stop)`"), "{}", rows[0]);
    assert!(rows[0]["suggestion"]["contradicted"].is_null(), "{}", rows[0]);
    // The second kernel's unchanged copy back (the last level): withheld, with what was seen.
    let second: Vec<&Value> = findings(&r, "round_trips").iter().filter(at(second_kernel)).collect();
    assert_eq!(second.len(), 1, "{}", r["findings"]["round_trips"]);
    let s = &second[0]["suggestion"];
    assert_eq!((s["action"].as_str(), second[0]["change"].as_u64()), (Some("none"), Some(0)), "{s}");
    assert!(text_of(s).contains("would lose what the kernels write"), "{s}");
    assert!(
        s["contradicted"]
            .as_str()
            .unwrap()
            .contains(&format!("copies back of `stop` at line {second_kernel} brought bytes a kernel had changed")),
        "{s}"
    );
    let wrong = format!("`map(to: stop)` instead of `map(tofrom: stop)` at line {second_kernel}, if");
    assert!(!text.contains(&wrong), "{text}");
    // The data region that keeps `stop` on the device says where the host changes it.
    let region: Vec<&Value> =
        r["changes"].as_array().unwrap().iter().filter(|c| c["clause"] == "#pragma omp target data map(tofrom: stop)").collect();
    assert_eq!(region.len(), 1, "{}", r["changes"]);
    assert!(
        region[0]["text"].as_str().unwrap().contains("`#pragma omp target update to(stop)` after each change the host makes to it"),
        "{}",
        region[0]
    );
}

/// Issue 43: `b` is mapped tofrom in a loop of steps and its kernel writes it in every step;
/// after the first step `b` holds the bytes `a` is sent with, and one step's writes leave it as
/// it was. Round trips are of one variable — never `a`'s transfer and `b`'s copy back — and
/// `map(to: b[0:n])`, which would lose the kernel's writes, is never advised: the one true round
/// trip of `b` from the host has its suggestion withheld, saying what the run saw. The correct
/// advice stays: keep `b` on the device, hoist `a`. Where the kernel only reads `b`
/// (-DREADONLY), `map(to: b[0:n])` is advised.
#[test]
fn advice_the_run_contradicts_is_never_given() {
    let d = scratch();
    let src = program("written_each_step.c");
    let steps: u64 = 50;
    let define = format!("-DSTEPS={steps}");
    let (r, text) = reports(d.path(), &src, "written_each_step", &["-g", "-O1", &define], &[]);
    let exe = d.path().join("written_each_step");
    assert_eq!(analyse(&exe, d.path(), &[], &[]).checks, run_plain(&exe, &[]), "the tool changed the program's results");
    let (step, looped) = (line_of(&src, "step"), line_of(&src, "loop"));
    let host = &r["host_device"];
    // Every round trip is `b` going and coming back; `a` is only ever sent.
    let trips = findings(&r, "round_trips");
    assert!(trips.iter().all(|f| f["variable"] == "b[0:n]" && f["related_variable"] == "b[0:n]"), "{}", r["findings"]["round_trips"]);
    let from_host: Vec<&Value> = trips.iter().filter(|f| f["device"] == *host).collect();
    let from_device: u64 = trips.iter().filter(|f| f["device"] != *host).map(|f| f["count"].as_u64().unwrap()).sum();
    assert_eq!(from_device, steps - 1, "each step sends back what the last one brought: {}", r["findings"]["round_trips"]);
    // Only the step whose writes leave `b` as it was brings it back as it was sent.
    assert_eq!(from_host.len(), 1, "{}", r["findings"]["round_trips"]);
    assert_eq!(from_host[0]["count"], 1, "{}", from_host[0]);
    assert!(findings(&r, "duplicate_transfers").iter().all(|f| f["variable"] != "b[0:n]" || f["count"] == 1), "{}", r["findings"]);
    // `map(to: b[0:n])` would lose the kernel's writes: withheld, with the copies back that show it.
    let s = &from_host[0]["suggestion"];
    assert_eq!(s["action"], "none", "{s}");
    let seen = format!("{} of the {steps} copies back of `b[0:n]` at line {step} brought bytes a kernel had changed", steps - 1);
    assert_eq!(s["contradicted"].as_str(), Some(seen.as_str()), "{s}");
    assert!(
        text.contains(&format!("no change suggested: `map(to: b[0:n])` instead of `map(tofrom: b[0:n])` at line {step} would lose")),
        "{text}"
    );
    for c in r["changes"].as_array().unwrap() {
        assert_ne!(c["clause"], "map(to: b[0:n])", "{c}");
        assert!(!c["text"].as_str().unwrap().contains("instead of `map(tofrom: b[0:n])`"), "{c}");
    }
    for line in text.lines().filter(|l| l.contains("instead of `map(tofrom: b[0:n])`")) {
        assert!(line.trim_start().starts_with("no change suggested:"), "advised in the text report: {line}");
    }
    // The advice the run bears out: `b` stays on the device (the host never changes it, so no
    // `target update to`), `a` is mapped once.
    let place = format!("written_each_step.c:{looped}");
    let data = |clause: &str| r["changes"].as_array().unwrap().iter().find(|c| c["clause"] == clause).cloned();
    let keep = data("#pragma omp target data map(tofrom: b[0:n])").unwrap_or_else(|| panic!("{}", r["changes"]));
    assert!(keep["where"].as_str().unwrap().ends_with(&place) && !keep["text"].as_str().unwrap().contains("update to("), "{keep}");
    let hoist = data("#pragma omp target data map(to: a[0:n])").unwrap_or_else(|| panic!("{}", r["changes"]));
    assert_eq!(hoist["action"], "hoist-to-target-data", "{hoist}");

    // The kernel only reads `b`: its copy back is always what was sent, and `map(to: ...)` is right.
    let (r, _) = reports(d.path(), &src, "readonly", &["-g", "-O1", &define, "-DREADONLY"], &[]);
    let step = line_of(&src, "readonly_step");
    let rows: Vec<&Value> = findings(&r, "round_trips").iter().filter(|f| f["device"] == r["host_device"]).collect();
    assert_eq!(rows.len(), 1, "{}", r["findings"]["round_trips"]);
    assert_eq!(rows[0]["count"], steps, "{}", rows[0]);
    let s = &rows[0]["suggestion"];
    assert_suggests(s, "map-to", Some("map(to: b[0:n])"), &format!("written_each_step.c:{step}"));
    assert!(s["contradicted"].is_null() && s["assumes"].as_str().is_some_and(|a| a.contains("no kernel changes `b[0:n]`")), "{s}");
    assert!(r["changes"].as_array().unwrap().iter().any(|c| c["clause"] == "map(to: b[0:n])"), "{}", r["changes"]);
}

/// many_transfers.c updates `x` on the device in a loop and runs one kernel after it: every
/// update but the last is overwritten unread (unused transfers), the last is read. Removing the
/// `target update` would lose that one: no change is suggested, with what the run saw.
#[test]
fn an_update_a_kernel_reads_once_is_not_removed() {
    let d = scratch();
    let src = program("many_transfers.c");
    let n: u64 = 5;
    let (r, text) = reports(d.path(), &src, "many", &["-g", "-O1"], &[&n.to_string()]);
    let update = line_of(&src, "update");
    let rows: Vec<&Value> = findings(&r, "unused_transfers").iter().filter(|f| f["site"]["line"].as_u64() == Some(update)).collect();
    assert_eq!(rows.len(), 1, "{}", r["findings"]["unused_transfers"]);
    assert_eq!(rows[0]["count"], n - 1, "{}", rows[0]);
    let s = &rows[0]["suggestion"];
    assert_eq!(s["action"], "none", "{s}");
    assert_eq!(s["contradicted"].as_str(), Some(format!("kernels read 1 of the {n} transfers of `x` at line {update}").as_str()), "{s}");
    assert!(!text.contains(&format!("remove `#pragma omp target update to(x)` at line {update}:")), "{text}");
}
