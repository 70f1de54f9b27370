//! `ompadapt bench --smoke`: the evaluation harness end to end under host offload (the CI
//! subset: two CPU/GPU kernels, Heat's GPU-threads, XSBench's co-scheduling and Jacobi's host
//! use-case, four inputs each, one run per configuration, inputs calibrated for a 2 ms measured
//! part): every comparator at every input in the CSV, the static runs really pinned, the K-fold
//! decisions counted, the summary's quality and excess tables, the calibration and the figures
//! written.

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
    for table in ["### Measurement quality", "inputs in doubt", "### Excess explained", "reaches 2 ms"] {
        assert!(r.stdout.contains(table), "{table}: {}", r.stdout);
    }

    let comps = std::fs::read_to_string(res.join("comparators.csv")).unwrap();
    let mut seen = BTreeSet::new();
    for line in comps.lines().skip(1) {
        let f = csv_fields(line);
        let f: Vec<&str> = f.iter().map(String::as_str).collect();
        assert_eq!(f.len(), 7, "{line}");
        let (time, speedup): (f64, f64) = (f[3].parse().unwrap(), f[4].parse().unwrap());
        assert!(time > 0.0 && speedup > 0.0, "{line}");
        let name = if f[2].starts_with("Static Best") { "Static Best" } else { f[2] };
        seen.insert((f[0].to_owned(), f[1].to_owned(), name.to_owned()));
        if ["Static GPU", "Static thread_limit=256", "Static coschedule=1", "Static threads=1"].contains(&f[2]) {
            assert_eq!(f[4], "1.0000", "the baseline: {line}");
        }
        if f[2] == "Adaptive-50" {
            // 4 inputs, K = 4, half trained: each input tested in 2 of 4 rotations per shuffle
            assert_eq!(f[5], "6", "3 shuffles x 2 rotations: {line}");
        }
    }
    let common = [
        "Static Best",
        "Oracle",
        "Online (roundrobin)",
        "Online (elimination)",
        "Adaptive-25",
        "Adaptive-50",
        "Adaptive-75",
        "Adaptive-100",
    ];
    let cpu_gpu = ["Static CPU", "Static GPU"];
    let threads = ["Static thread_limit=64", "Static thread_limit=128", "Static thread_limit=192", "Static thread_limit=256"];
    let cosched =
        ["Static coschedule=0", "Static coschedule=0.25", "Static coschedule=0.5", "Static coschedule=0.75", "Static coschedule=1"];
    // threads=0.5 is the same team as serial on 2 cores: it runs only where there are more
    let host = ["Static serial", "Static threads=1", "Static schedule=dynamic,16"];
    let kernels: [(&str, [&str; 4], &[&str]); 5] = [
        ("heat2d", ["32", "64", "128", "256"], &cpu_gpu),
        ("smith_waterman", ["64", "128", "256", "512"], &cpu_gpu),
        ("heat2d-threads", ["32", "64", "128", "256"], &threads),
        ("xsbench-cosched", ["250", "500", "1000", "2000"], &cosched),
        ("jacobi2d", ["16", "64", "128", "512"], &host),
    ];
    for (kernel, inputs, statics) in kernels {
        for n in inputs {
            for c in common.iter().chain(statics) {
                assert!(seen.contains(&(kernel.to_owned(), n.to_owned(), c.to_string())), "{kernel} {n} {c} missing");
            }
        }
    }
    // static runs ran only the pinned variant; exploring runs measured every variant
    let runs = std::fs::read_to_string(res.join("runs.csv")).unwrap();
    for line in runs.lines().skip(1) {
        let f = csv_fields(line);
        let f: Vec<&str> = f.iter().map(String::as_str).collect();
        // "region:v1=3/v2=0 region2:..." -> (variant, executions); names may hold '='
        let counts: Vec<(&str, u64)> = f[5]
            .split(' ')
            .flat_map(|r| r.split_once(':').unwrap().1.split('/'))
            .map(|vc| {
                let (v, c) = vc.rsplit_once('=').unwrap();
                (v, c.parse().unwrap())
            })
            .collect();
        assert!(!counts.is_empty(), "{line}");
        match f[2] {
            "static" => {
                let pinned = f[3].split(';').next().unwrap().split_once(':').unwrap().1;
                assert!(counts.iter().all(|&(v, c)| (v == pinned) == (c > 0)), "only {pinned} ran: {line}");
            }
            // a variant that cannot run here (threads=0.5 on 2 cores) is replaced, never run
            "explore" => assert!(counts.iter().filter(|&&(v, _)| v != "threads=0.5").all(|&(_, c)| c > 0), "every variant measured: {line}"),
            _ => {}
        }
    }
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(res.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["kernels"]["heat2d-threads"]["baseline"], "Static thread_limit=256");
    assert_eq!(summary["kernels"]["xsbench-cosched"]["use_case"], "co-scheduling");
    assert_eq!(summary["kernels"]["jacobi2d"]["use_case"], "host loops");
    for k in ["heat2d", "smith_waterman", "heat2d-threads", "xsbench-cosched", "jacobi2d"] {
        let kj = &summary["kernels"][k];
        assert!(kj["Adaptive-50"]["decisions"].as_u64().unwrap() == 4 * 6, "{kj}");
        assert!(kj["overhead_after_training"]["geomean"].as_f64().unwrap().is_finite());
        assert!(kj["models"][0]["text"].as_str().unwrap().contains("->"), "the trained tree: {kj}");
        assert!(kj["quality"]["inputs_judged"].is_u64() && kj["excess"]["cases"].is_u64(), "{kj}");
    }
    let calibration: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(res.join("calibration.json")).unwrap()).unwrap();
    let steps = &calibration["machines"][0]["kernels"]["jacobi2d"]["512"]["steps"];
    assert!(steps.as_u64().is_some_and(|s| s >= 20), "the kernel's fewest steps at least: {calibration}");
    for f in [
        "summary.md",
        "decisions.csv",
        "accuracy.svg",
        "accuracy.png",
        "speedup_heat2d.svg",
        "speedup_heat2d.png",
        "decisions_smith_waterman.svg",
        "speedup_heat2d-threads.svg",
        "decisions_xsbench-cosched.svg",
        "speedup_jacobi2d.svg",
        "configurations.csv",
        "excess.csv",
    ] {
        let len = std::fs::metadata(res.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 2000, "{f}: {len} bytes");
    }
}

/// A CSV line's fields; a quoted field may hold commas (`"jacobi:schedule=dynamic,16"`) and
/// doubled quotes.
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}
