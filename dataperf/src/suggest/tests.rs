//! Suggestions for findings described by hand: the action, the clause naming the variable, the
//! lines, and the saving equal to the finding's operations.

use super::*;

fn place(construct: Construct, line: u32, loop_line: Option<u32>) -> Place {
    Place { construct, file: Some("p.c".into()), line, function: Some("main".into()), loop_line, caller: None }
}

fn subject(pattern: Pattern, site: Place, other: Option<Place>, var: &str, map: u64) -> Subject {
    Subject {
        pattern,
        site: Some(site),
        other,
        var: Some(var.into()),
        map_type: Some(MapType(map)),
        host_addr: 0x1000,
        ops: Agg { count: 3, bytes: 3 * 4096, ns: 3000 },
        to_host: false,
        seen: Seen::default(),
        data_seen: Seen::default(),
    }
}

#[test]
fn duplicates_of_two_constructs_hoist_around_their_lines() {
    let s = subject(Pattern::Duplicate, place(Construct::Target, 14, None), Some(place(Construct::Target, 12, None)), "a[0:n]", 0x21);
    let g = suggest(&s);
    assert_eq!(g.action, "hoist-to-target-data");
    assert_eq!(g.clause.as_deref(), Some("#pragma omp target data map(to: a[0:n])"));
    assert_eq!(g.place.as_deref(), Some("p.c:12-14"));
    assert!(
        g.text.starts_with(
            "hoist `map(to: a[0:n])` of lines 12\u{2013}14 into `#pragma omp target data map(to: a[0:n])` around lines 12\u{2013}14"
        ),
        "{}",
        g.text
    );
    assert!(g.text.contains("saves 12.0 KiB (3000ns) in 3 transfers"), "{}", g.text);
    assert_eq!((g.saving_bytes, g.saving_ns), (s.ops.bytes, s.ops.ns));
}

#[test]
fn a_construct_repeated_in_a_loop_is_hoisted_around_the_loop() {
    let site = place(Construct::Target, 20, Some(18));
    let g = suggest(&subject(Pattern::Duplicate, site.clone(), Some(site), "in[0:n]", 0x21));
    assert_eq!(g.place.as_deref(), Some("p.c:18"));
    assert!(g.text.contains("of line 20 into") && g.text.contains("around the loop at line 18"), "{}", g.text);
    // Inlined into a caller that calls it in a loop: the caller's loop.
    let mut inlined = place(Construct::Target, 5, None);
    inlined.function = Some("step".into());
    inlined.caller = Some(CallPlace { function: Some("main".into()), file: "p.c".into(), line: 30, loop_line: Some(29) });
    let g = suggest(&subject(Pattern::Duplicate, inlined.clone(), Some(inlined.clone()), "p[0:n]", 0x21));
    assert_eq!(g.place.as_deref(), Some("p.c:29"));
    assert!(g.text.contains("around the loop at line 29 in `main` that calls `step` (line 30)"), "{}", g.text);
    // `p[0:n]` is step's name for the data: main may have no `n`; said, with why main must do it
    assert!(
        g.text.contains("(`p[0:n]` is how `step` names the data: in `main` write the expressions its call at line 30 passes for them; `step` maps the data at every call"),
        "{}",
        g.text
    );
    // Nothing seen around it: said so, at the construct.
    inlined.caller = None;
    let g = suggest(&subject(Pattern::Duplicate, inlined.clone(), Some(inlined), "p[0:n]", 0x21));
    assert_eq!(g.place.as_deref(), Some("p.c:5"));
    assert!(g.text.contains("around the loop or the calls that run line 5"), "{}", g.text);
}

#[test]
fn round_trips_keep_the_data_on_the_device_or_drop_the_copy_back() {
    let site = place(Construct::Target, 13, Some(12));
    let g = suggest(&subject(Pattern::RoundTrip, site.clone(), Some(site.clone()), "a[0:n]", 0x23));
    assert_eq!(g.action, "keep-resident");
    assert_eq!(g.clause.as_deref(), Some("#pragma omp target data map(tofrom: a[0:n])"));
    assert!(
        g.text.contains("around the loop at line 12")
            && g.text.contains("`#pragma omp target update from(a[0:n])` only where the host reads it")
    );
    // From the host and back unchanged: the copy back goes.
    let mut s = subject(Pattern::RoundTrip, site.clone(), Some(site), "stop", 0x223);
    s.to_host = true;
    let g = suggest(&s);
    assert_eq!((g.action, g.clause.as_deref()), ("map-to", Some("map(to: stop)")));
    assert!(g.text.contains("instead of the implicit `map(tofrom: stop)` at line 13, if no kernel there ever writes `stop`"), "{}", g.text);
    assert!(g.text.contains("back unchanged 3 times after the host sent it at line 13"), "{}", g.text);
}

#[test]
fn unused_transfers_map_alloc_from_or_drop_the_update() {
    let over = place(Construct::Update, 13, None);
    let s = subject(Pattern::UnusedTransfer(UnusedWhy::Overwritten), place(Construct::EnterData, 10, None), Some(over), "a[0:n]", 0x1);
    let g = suggest(&s);
    assert_eq!((g.action, g.clause.as_deref(), g.place.as_deref()), ("map-alloc", Some("map(alloc: a[0:n])"), Some("p.c:10")));
    assert!(
        g.text.starts_with("`map(alloc: a[0:n])` instead of `map(to: a[0:n])` at line 10: the `target update` at line 13 overwrites it"),
        "{}",
        g.text
    );
    let s = subject(Pattern::UnusedTransfer(UnusedWhy::Overwritten), place(Construct::Target, 10, None), None, "b[0:n]", 0x23);
    assert_eq!(suggest(&s).action, "map-from");
    let s = subject(Pattern::UnusedTransfer(UnusedWhy::Deleted), place(Construct::Update, 17, None), None, "a[0:n]", 0x1);
    let g = suggest(&s);
    assert_eq!((g.action, g.clause.as_deref()), ("skip-update", Some("#pragma omp target update to(a[0:n])")));
    assert!(g.text.contains("it is deleted before any kernel reads it"));
}

#[test]
fn allocations_once_around_the_loop_or_only_when_used() {
    let site = place(Construct::Target, 15, Some(11));
    let g = suggest(&subject(Pattern::RepeatedAlloc, site.clone(), Some(site), "out[0:n]", 0x22));
    assert_eq!(g.action, "enter-exit-data");
    assert_eq!(g.clause.as_deref(), Some("#pragma omp target enter data map(alloc: out[0:n])"));
    assert!(g.text.contains("`#pragma omp target exit data map(delete: out[0:n])` around the loop at line 11"), "{}", g.text);
    assert!(g.text.contains("update from(out[0:n])` where the host reads it") && !g.text.contains("update to("), "{}", g.text);
    assert!(g.text.contains("in 3 allocations"));
    let data = place(Construct::EnterData, 12, None);
    let exit = place(Construct::ExitData, 12, None);
    let g = suggest(&subject(Pattern::UnusedAlloc, data, Some(exit), "work[0:n]", 0x0));
    assert_eq!((g.action, g.clause.as_deref()), ("drop-map", Some("#pragma omp target data if(...) map(alloc: work[0:n])")));
}

#[test]
fn without_names_the_address_and_size_and_how_to_get_names() {
    let mut s = subject(Pattern::Duplicate, place(Construct::Target, 0, None), None, "", 0);
    s.var = None;
    s.map_type = None;
    s.site.as_mut().unwrap().file = None;
    let g = suggest(&s);
    assert!(g.text.contains("`map(to: <4096 bytes at 0x1000>)`"), "{}", g.text);
    assert!(g.text.contains("of the construct in `main` into"), "{}", g.text);
    assert!(g.text.ends_with("(rebuild with -g for variable names and lines)"), "{}", g.text);
    assert_eq!(g.place.as_deref(), Some("main"));
    // A row merged for lack of memory names no place.
    s.site = None;
    assert_eq!(suggest(&s).action, "raise-memory-cap");
}

/// Issue 43: each change's assumption checked against what the run saw of its list item; a
/// change the run contradicts is withheld or reworded so that it holds, and says what was seen.
#[test]
fn a_change_the_run_contradicts_is_withheld_or_reworded() {
    let site = place(Construct::Target, 13, Some(12));
    // A round trip from the host at a construct whose copies back carried a kernel's writes.
    let mut s = subject(Pattern::RoundTrip, site.clone(), Some(site.clone()), "b[0:n]", 0x23);
    s.to_host = true;
    s.seen = Seen { from_device: 50, device_changed: 49, ..Seen::default() };
    let g = suggest(&s);
    assert!(g.withheld() && g.clause.is_none() && (g.saving_bytes, g.saving_ns) == (0, 0), "{g:?}");
    assert_eq!(g.contradicted.as_deref(), Some("49 of the 50 copies back of `b[0:n]` at line 13 brought bytes a kernel had changed"));
    assert!(
        g.text.starts_with(
            "no change suggested: `map(to: b[0:n])` instead of `map(tofrom: b[0:n])` at line 13 would lose what the kernels write"
        ),
        "{}",
        g.text
    );
    // Nothing seen against it: suggested, and what it takes for granted said.
    s.seen = Seen { from_device: 50, ..Seen::default() };
    let g = suggest(&s);
    assert_eq!((g.action, g.contradicted.as_deref()), ("map-to", None));
    assert!(g.assumes.as_deref().is_some_and(|a| a.contains("no kernel changes `b[0:n]`")), "{g:?}");

    // Keeping data on the device whose host changes it: the data region needs `target update to`.
    let mut s = subject(Pattern::RoundTrip, site.clone(), Some(site.clone()), "stop", 0x23);
    s.data_seen = Seen { to_device: 10, host_changed: 4, ..Seen::default() };
    let g = suggest(&s);
    assert_eq!(g.action, "keep-resident");
    assert!(g.text.contains("`#pragma omp target update to(stop)` after each change the host makes to it"), "{}", g.text);
    assert!(g.contradicted.as_deref().is_some_and(|c| c.contains("4 of the 10 transfers to the device")), "{g:?}");
    let g = suggest(&Subject { pattern: Pattern::Duplicate, ..s.clone() });
    assert_eq!(g.action, "hoist-to-target-data");
    assert!(g.text.contains("with `#pragma omp target update to(stop)` after each change the host makes to it"), "{}", g.text);

    // A `target update` that sometimes carried changes runs only when the data changed.
    let mut s = subject(Pattern::Duplicate, place(Construct::Update, 20, Some(18)), None, "x", 0x1);
    s.seen = Seen { to_device: 5, host_changed: 2, ..Seen::default() };
    let g = suggest(&s);
    assert_eq!(g.action, "skip-update");
    assert!(
        g.text.starts_with("run `#pragma omp target update to(x)` at line 20 only when the host changed `x`, not every time"),
        "{}",
        g.text
    );

    // Transfers unused here but read by kernels at other times: no clause change.
    let mut s = subject(Pattern::UnusedTransfer(UnusedWhy::Overwritten), place(Construct::Update, 20, Some(18)), None, "x", 0x1);
    s.seen = Seen { to_device: 5, read: 1, ..Seen::default() };
    let g = suggest(&s);
    assert!(g.withheld(), "{g:?}");
    assert!(g.text.contains("remove `#pragma omp target update to(x)` at line 20 would lose what the kernels read"), "{}", g.text);

    // Allocations some kernels used: not "remove", only "when its kernels run".
    let mut s = subject(Pattern::UnusedAlloc, place(Construct::EnterData, 12, None), None, "w[0:n]", 0x0);
    s.seen = Seen { allocs: 4, allocs_used: 3, ..Seen::default() };
    let g = suggest(&s);
    assert_eq!(g.action, "drop-map");
    assert!(!g.text.contains("remove") && g.text.contains("only when its kernels run"), "{}", g.text);
}
