//! `OMPADAPT_VARIANT`: a region always runs the named variant (the static comparators of the
//! evaluation harness), per region or for all; a name the region lacks is reported once and the
//! region learns as usual.

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
        assert!(out.stderr.is_empty(), "{}", out.stderr);
    }
    let out = run_program(&exe, dir.path(), &[("OMPADAPT_VARIANT", "gpu"), ("OMPADAPT_PERSIST", "0")]);
    out.expect_ok("unknown variant");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", out.stderr);
    assert!(lines[0].contains("region 'cost'") && lines[0].contains("'gpu'") && lines[0].contains("lin, rev"), "{}", lines[0]);
    // it learned: both variants ran
    let d = records(&out.stdout, "DECISION");
    assert_eq!(d.len(), 8);
}
