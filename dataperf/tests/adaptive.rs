//! The tool on a program compiled with the ompadapt plugin: findings name the adaptive region,
//! and the runtime reports the bytes and transfer time per execution of each variant, which it
//! reads from the tool's per-thread counters.

mod common;
use common::*;
use std::process::Command;

#[test]
fn findings_name_the_region_and_the_runtime_reports_data_movement() {
    let d = scratch();
    let release = launcher().parent().unwrap().to_path_buf();
    let plugin = release.join("libompadapt.so");
    assert!(
        plugin.exists() && release.join("libompadapt_rt.so").exists(),
        "{} is missing: build the workspace first (cargo build --release --workspace; scripts/test.sh does)",
        plugin.display()
    );
    let src = program("adaptive.c");
    let exe = d.path().join("adaptive");
    compile(&src, &exe, &["-g", "-O1", &format!("-fplugin={}", plugin.display())]);
    let rt_report = d.path().join("rt.json");
    let env = [
        ("OMPADAPT_DIR", d.path().join("state").to_str().unwrap().to_owned()),
        ("OMPADAPT_PERSIST", "0".to_owned()),
        ("OMPADAPT_REPORT", format!("json:{}", rt_report.display())),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let a = analyse_env(&exe, d.path(), &[], &[], &env);
    let n = 10000u64;
    let expected: f64 = 12.0 * (0..n).map(|i| (3 * i) as f64 * (1 + i % 7) as f64).sum::<f64>();
    assert_eq!(a.checks, vec![format!("CHECK total={expected:.3}")]);
    let r = &a.report;
    // The inputs are the same on every offloaded call, and so is the result the host gets back:
    // duplicates, in region 'vadd'.
    let dups = findings(r, "duplicate_transfers");
    assert!(!dups.is_empty(), "{}", r["findings"]);
    for f in dups {
        assert_eq!(f["region"], "vadd", "{f}");
        assert_site(&f["site"], "adaptive.c", line_of(&src, "target"), 1);
    }
    let vars: std::collections::BTreeSet<&str> = dups.iter().map(|f| f["variable"].as_str().unwrap()).collect();
    assert_eq!(vars, ["A[0:N]", "B[0:N]", "C[0:N]"].into_iter().collect());
    // The runtime's report: the gpu variant moves both inputs in and the result out per
    // execution; the cpu variant moves nothing.
    let rt: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&rt_report).unwrap()).unwrap();
    let region = rt["regions"].as_array().unwrap().iter().find(|g| g["region"] == "vadd").expect("region vadd in the runtime report");
    let dm = region["data_movement"].as_array().unwrap_or_else(|| panic!("no data_movement: {region}"));
    let by = |v: &str| dm.iter().find(|m| m["variant"] == v).unwrap_or_else(|| panic!("no {v} in {dm:?}"));
    let gpu = by("gpu");
    assert_eq!(gpu["to_device_bytes"].as_f64(), Some((2 * n * 8) as f64), "{gpu}");
    assert_eq!(gpu["from_device_bytes"].as_f64(), Some((n * 8) as f64), "{gpu}");
    assert!(gpu["transfer_ns"].as_f64().unwrap() > 0.0);
    let cpu = by("cpu");
    assert_eq!(cpu["to_device_bytes"].as_f64(), Some(0.0), "{cpu}");
    assert_eq!(cpu["from_device_bytes"].as_f64(), Some(0.0), "{cpu}");
    let runs = gpu["executions"].as_u64().unwrap() + cpu["executions"].as_u64().unwrap();
    assert_eq!(runs, 12);
}

/// The cpu variant of a region whose data is present on the device: the runtime's copies around
/// the host version are not the program's data movement; no finding points into the runtime,
/// and the runtime reports them itself (`host_copies`).
#[test]
fn the_cpu_variants_copies_are_not_findings() {
    let d = scratch();
    let release = launcher().parent().unwrap().to_path_buf();
    let src = program("adaptive_present.c");
    let exe = d.path().join("adaptive_present");
    compile(&src, &exe, &["-g", "-O1", &format!("-fplugin={}", release.join("libompadapt.so").display())]);
    let rt_report = d.path().join("rt.json");
    let report = format!("json:{}", rt_report.display());
    let env = [("OMPADAPT_PERSIST", "0"), ("OMPADAPT_VARIANT", "cpu"), ("OMPADAPT_REPORT", report.as_str())];
    let a = analyse_env(&exe, d.path(), &[], &[], &env);
    let stock_total: f64 = {
        let mut v: Vec<f64> = (0..10000).map(|i| i as f64).collect();
        for _ in 0..12 {
            v.iter_mut().for_each(|x| *x = *x * 0.5 + 1.0);
        }
        v.iter().enumerate().map(|(i, x)| x * (1 + i % 7) as f64).sum()
    };
    assert_eq!(a.checks, vec![format!("CHECK total={stock_total:.3}")]);
    let text = a.report["findings"].to_string();
    assert!(!text.contains("host_run.rs") && !text.contains("libompadapt_rt"), "the runtime's copies are findings: {text}");
    let rt: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&rt_report).unwrap()).unwrap();
    let region = rt["regions"].as_array().unwrap().iter().find(|g| g["region"] == "scale").expect("region scale");
    assert_eq!(region["host_copies"]["executions"].as_u64(), Some(12), "{region}");
    assert_eq!(region["host_copies"]["transferred_bytes"].as_f64(), Some(2.0 * 10000.0 * 8.0), "{region}");
}

/// A program built with the plugin has an OMPT tool of its own (the runtime's, which records the
/// extent of every mapping for the cpu variant): the tool `OMP_TOOL_LIBRARIES` names, without
/// the launcher's preload, is started beside it and sees the program's data movement, and the
/// runtime still knows every extent (the cpu variant runs, its copies exactly the mappings).
#[test]
fn tool_libraries_beside_the_runtimes_tool() {
    let d = scratch();
    let release = launcher().parent().unwrap().to_path_buf();
    let exe = d.path().join("adaptive_present");
    compile(&program("adaptive_present.c"), &exe, &["-g", "-O1", &format!("-fplugin={}", release.join("libompadapt.so").display())]);
    let (tool_report, rt_report) = (d.path().join("tool.json"), d.path().join("rt.json"));
    let o = Command::new(&exe)
        .current_dir(d.path())
        .env("OMP_TOOL_LIBRARIES", tool_lib())
        .env("OMPADAPT_DATA", format!("json:{}", tool_report.display()))
        .env("OMPADAPT_DIR", d.path().join("state"))
        .env("OMPADAPT_PERSIST", "0")
        .env("OMPADAPT_VARIANT", "cpu")
        .env("OMPADAPT_REPORT", format!("json:{}", rt_report.display()))
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(!err.contains("unavailable"), "the runtime lost its extents: {err}");
    let tool: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&tool_report).unwrap()).unwrap();
    // the program's `target data` mapping (10000 doubles), seen by the tool
    assert_eq!(tool["devices"][0]["peak_bytes"].as_u64(), Some(80000), "the tool did not see the mapping: {tool}");
    let rt: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&rt_report).unwrap()).unwrap();
    let region = rt["regions"].as_array().unwrap().iter().find(|g| g["region"] == "scale").expect("region scale");
    let copies = &region["host_copies"];
    assert_eq!(copies["executions"].as_u64(), Some(12), "{region}");
    assert_eq!(copies["mapped_bytes"].as_f64(), Some(10000.0 * 8.0), "{region}");
    assert_eq!(copies["brought_in_bytes"].as_f64(), copies["mapped_bytes"].as_f64(), "{region}");
}
