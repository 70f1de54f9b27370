//! `OMPADAPT_VARIANT`: a region always runs the named variant (the static comparators of the
//! evaluation harness), per region or for all; a name the region lacks is reported once and the
//! region learns as usual; a region name no region has is reported at exit, with the name it
//! most likely meant; a pinned region's report says it is pinned.

use ompadapt_tests::*;

#[test]
fn the_named_variant_always_runs_and_an_unknown_name_is_reported_once() {
    let dir = scratch();
    let exe = dir.path().join("controlled_cost");
    compile(&source("programs/controlled_cost.c"), &exe, &["-O2"]).expect_ok("compile");
    for (value, want) in [("rev", "1"), ("lin", "0"), ("lin;cost:rev", "1"), ("rev;other:lin", "1")] {
        let out = run_program(&exe, dir.path(), &[("OMPADAPT_VARIANT", value), ("OMPADAPT_PERSIST", "0")]);
        out.expect_ok(value);
        let d = records(&out.stdout, "DECISION");
        assert_eq!(d.len(), 8);
        assert!(d.iter().all(|r| r["variant"] == want), "OMPADAPT_VARIANT={value}: {}", out.stdout);
        if value.contains("other:") {
            // a pin of a region that did not run is said once, at exit
            let lines: Vec<&str> = out.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{}", out.stderr);
            assert!(
                lines[0].contains("pins region 'other' to 'lin', but no region of that name ran")
                    && lines[0].contains("(the regions that ran: cost)"),
                "{}",
                lines[0]
            );
            assert!(!lines[0].contains("did you mean"), "{}", lines[0]);
        } else {
            assert!(out.stderr.is_empty(), "{}", out.stderr);
        }
    }
    // A misspelled region name: the region learns as usual, and the run says which it meant.
    let out = run_program(&exe, dir.path(), &[("OMPADAPT_VARIANT", "cots:rev"), ("OMPADAPT_PERSIST", "0")]);
    out.expect_ok("misspelled region");
    assert!(out.stderr.contains("pins region 'cots' to 'rev', but no region of that name ran; did you mean 'cost'?"), "{}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    // A pinned region's report says so.
    let out = run_program(&exe, dir.path(), &[("OMPADAPT_VARIANT", "cost:rev"), ("OMPADAPT_PERSIST", "0"), ("OMPADAPT_REPORT", "1")]);
    out.expect_ok("pinned, with a report");
    assert!(out.stderr.contains("mode: pinned to 'rev' (OMPADAPT_VARIANT)"), "{}", out.stderr);
    let out = run_program(&exe, dir.path(), &[("OMPADAPT_VARIANT", "gpu"), ("OMPADAPT_PERSIST", "0")]);
    out.expect_ok("unknown variant");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", out.stderr);
    assert!(lines[0].contains("region 'cost'") && lines[0].contains("'gpu'") && lines[0].contains("lin, rev"), "{}", lines[0]);
    // it learned: both variants ran
    let d = records(&out.stdout, "DECISION");
    assert_eq!(d.len(), 8);
}

/// A pin in a process that ran no adaptive region (an offloading program whose adaptive region
/// was not called: its OpenMP start loaded the runtime) is said once at exit; once the region
/// runs, the pin pins it and nothing is said; without a pin, nothing either.
#[test]
fn a_pin_in_a_process_that_ran_no_region_is_said_at_exit() {
    let dir = scratch();
    let exe = dir.path().join("pin_unused");
    compile(&source("programs/pin_unused.c"), &exe, &["-O2"]).expect_ok("compile");
    let quiet = [("OMPADAPT_PERSIST", "0")];
    for (pin, args, said) in [
        (Some("gpu"), &[][..], Some("OMPADAPT_VARIANT=gpu is set, but this process ran no adaptive region: it pinned nothing")),
        (Some("saxpy:cpu"), &[][..], Some("OMPADAPT_VARIANT=saxpy:cpu is set, but this process ran no adaptive region: it pinned nothing")),
        (Some("gpu"), &["run"][..], None),
        (None, &[][..], None),
    ] {
        let mut c = std::process::Command::new(&exe);
        c.args(args).current_dir(dir.path()).env_remove("OMPADAPT_REPORT").env_remove("OMPADAPT_VARIANT");
        c.envs(quiet).envs(pin.map(|p| ("OMPADAPT_VARIANT", p)));
        let out = run(&mut c);
        out.expect_ok(&format!("{pin:?} {args:?}"));
        assert!(out.stdout.contains(&format!("DONE sum=1 adaptive={}", args.len())), "{}", out.stdout);
        match said {
            Some(line) => assert_eq!(out.stderr, format!("ompadapt: warning: {line}\n"), "{pin:?} {args:?}"),
            None => assert!(out.stderr.is_empty(), "{pin:?} {args:?}: {}", out.stderr),
        }
    }
}
