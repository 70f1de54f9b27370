//! `ompadapt bench --smoke`: the evaluation harness end to end under host offload (the CI
//! subset: two kernels, four inputs each, one run per configuration): every comparator at every
//! input in the CSV, the static runs really pinned, the K-fold decisions counted, the summary
//! tables and the figures written.

use std::collections::BTreeSet;
use std::process::Command;

use ompadapt_tests::*;

#[test]
fn the_smoke_evaluation_writes_every_comparator_table_and_figure() {
    let _t = timing_lock();
    plugin();
    let out = scratch();
    let res = out.path().join("bench");
    let r = run(Command::new(lib_dir().join("ompadapt"))
        .current_dir(workspace_root())
        .args(["bench", "--smoke", "--shuffles", "3", "--out"])
        .arg(&res));
    r.expect_ok("ompadapt bench --smoke");
    assert!(r.stdout.contains("HOST OFFLOAD") && r.stdout.contains("### Accuracy"), "{}", r.stdout);

    let comps = std::fs::read_to_string(res.join("comparators.csv")).unwrap();
    let mut seen = BTreeSet::new();
    for line in comps.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 7, "{line}");
        let (time, speedup): (f64, f64) = (f[3].parse().unwrap(), f[4].parse().unwrap());
        assert!(time > 0.0 && speedup > 0.0, "{line}");
        let name = if f[2].starts_with("Static Best") { "Static Best" } else { f[2] };
        seen.insert((f[0].to_owned(), f[1].to_owned(), name.to_owned()));
        if f[2] == "Static GPU" {
            assert_eq!(f[4], "1.0000", "the baseline: {line}");
        }
        if f[2] == "Adaptive-50" {
            // 4 inputs, K = 4, half trained: each input tested in 2 of 4 rotations per shuffle
            assert_eq!(f[5], "6", "3 shuffles x 2 rotations: {line}");
        }
    }
    let comparators = [
        "Static CPU",
        "Static GPU",
        "Static Best",
        "Oracle",
        "Online (roundrobin)",
        "Online (elimination)",
        "Adaptive-25",
        "Adaptive-50",
        "Adaptive-75",
        "Adaptive-100",
    ];
    for (kernel, inputs) in [("heat2d", ["32", "64", "128", "256"]), ("smith_waterman", ["64", "128", "256", "512"])] {
        for n in inputs {
            for c in comparators {
                assert!(seen.contains(&(kernel.to_owned(), n.to_owned(), c.to_owned())), "{kernel} {n} {c} missing");
            }
        }
    }
    // static runs ran only the pinned variant; exploring runs measured both
    let runs = std::fs::read_to_string(res.join("runs.csv")).unwrap();
    for line in runs.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        match f[2] {
            "static" => {
                let pinned = f[3].split(':').nth(1).unwrap();
                let other = if pinned == "cpu" { "gpu" } else { "cpu" };
                assert!(f[5].contains(&format!("{other}=0")) && !f[5].contains(&format!("{pinned}=0")), "{line}");
            }
            "explore" => assert!(!f[5].contains("=0"), "both variants measured: {line}"),
            _ => {}
        }
    }
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(res.join("summary.json")).unwrap()).unwrap();
    for k in ["heat2d", "smith_waterman"] {
        let kj = &summary["kernels"][k];
        assert!(kj["Adaptive-50"]["decisions"].as_u64().unwrap() == 4 * 6, "{kj}");
        assert!(kj["overhead_after_training"]["geomean"].as_f64().unwrap().is_finite());
        assert!(kj["models"][0]["text"].as_str().unwrap().contains("->"), "the trained tree: {kj}");
    }
    for f in [
        "summary.md",
        "decisions.csv",
        "accuracy.svg",
        "accuracy.png",
        "speedup_heat2d.svg",
        "speedup_heat2d.png",
        "decisions_smith_waterman.svg",
    ] {
        let len = std::fs::metadata(res.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 2000, "{f}: {len} bytes");
    }
}
