//! The `cpu` variant writes host memory only where the offload would, byte for byte
//! (tests/programs/host_guard/adjacent_maps.c): three arrays of a few MB side by side whose
//! device copies share one host-to-device offset (an extent inferred by sampling spanned two of
//! them and corrupted the allocator's header between them), and guarded sections under every map
//! type — to, from, tofrom, alloc, always, present from an enclosing data region, from another
//! function, from a translation unit built without the plugin. Under every variant (all `cpu`,
//! all `gpu`, each region `cpu` in turn, the real runtime three times) the program prints what
//! the stock build prints (the guards intact), frees every array under glibc's heap checks (and
//! under valgrind's memcheck, pinned `cpu`, with no error), no
//! region refuses `cpu`, and the bytes each execution brings in from the device are the bytes
//! of the mappings it reaches.

use ompadapt_tests::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const PROGRAM: &str = "programs/host_guard/adjacent_maps.c";
const LIBRARY: &str = "programs/host_guard/adjacent_maps_lib.c";

fn compile(dir: &Path, out: &str, args: &[&str]) -> PathBuf {
    let path = dir.join(out);
    let mut c = Command::new(CLANG);
    c.args(["-O2", "-fopenmp", HOST_OFFLOAD, "-Wl,-rpath,/usr/lib/llvm-19/lib"]).args(args).arg("-o").arg(&path);
    run(&mut c).expect_ok(&format!("building {out}"));
    path
}

/// Per region of a JSON report: whether `cpu` was refused, and the copies per execution
/// (executions, mapped bytes, bytes brought in).
fn copies(report: &Path) -> Vec<(String, bool, u64, f64, f64)> {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    doc["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let h = &r["host_copies"];
            (
                r["region"].as_str().unwrap().to_string(),
                r.get("unavailable").is_some(),
                h["executions"].as_u64().unwrap_or(0),
                h["mapped_bytes"].as_f64().unwrap_or(0.0),
                h["brought_in_bytes"].as_f64().unwrap_or(0.0),
            )
        })
        .collect()
}

#[test]
fn adjacent_mappings_and_guarded_sections_under_every_variant() {
    let dir = scratch();
    let d = dir.path();
    // the library is built without the plugin, and linked into both builds
    let lib = compile(d, "lib.o", &["-c", source(LIBRARY).to_str().unwrap()]);
    let program = source(PROGRAM);
    let stock = compile(d, "stock", &[program.to_str().unwrap(), lib.to_str().unwrap()]);
    let plugin = format!("-fplugin={}", plugin().display());
    let adaptive = compile(d, "adaptive", &[&plugin, "-fplugin-arg-ompadapt-auto=cpu,gpu", program.to_str().unwrap(), lib.to_str().unwrap()]);
    let expected = run_program(&stock, d, &[]);
    expected.expect_ok("the stock build");
    assert!(expected.stdout.lines().filter(|l| l.contains("guards=intact")).count() == 8, "{}", expected.stdout);
    // glibc checks its heap at every free and aborts on a corrupted chunk
    let heap_checked = [("MALLOC_CHECK_", "3"), ("OMPADAPT_PERSIST", "0")];
    let pinned = |pin: &str, tag: &str| -> PathBuf {
        let report = d.join(format!("{tag}.json"));
        let json = format!("json:{}", report.display());
        let mut env = heap_checked.to_vec();
        env.extend([("OMPADAPT_VARIANT", pin), ("OMPADAPT_REPORT", json.as_str())]);
        let out = run_program(&adaptive, d, &env);
        out.expect_ok(&format!("pinned {pin}"));
        assert_eq!(out.stdout, expected.stdout, "pinned {pin}: output differs from the stock build\n{}", out.stderr);
        assert!(!out.stderr.contains("unavailable"), "pinned {pin}: {}", out.stderr);
        report
    };
    pinned("gpu", "gpu");
    let all = copies(&pinned("cpu", "cpu"));
    assert_eq!(all.len(), 5, "two stream kernels, the sections kernel, the always kernel, scale_present: {all:?}");
    for (name, refused, runs, mapped, brought_in) in &all {
        assert!(!refused && *runs > 0, "'{name}' did not run its host version: {all:?}");
        // what is brought in is what is mapped (less what `always to` sends from the host)
        assert!(brought_in <= mapped, "'{name}': {brought_in} bytes brought in for {mapped} mapped");
    }
    // the stream kernels: exactly the three arrays (and two of them), 3 MiB each
    let array = (3u64 << 17) as f64 * 8.0;
    let mut stream: Vec<f64> = all.iter().filter(|r| r.0.starts_with("stream@")).map(|r| r.4).collect();
    stream.sort_by(f64::total_cmp);
    assert_eq!(stream, [2.0 * array, 3.0 * array], "bytes brought in per execution of the stream kernels: {all:?}");
    for (k, (name, ..)) in all.iter().enumerate() {
        for (other, _, runs, ..) in copies(&pinned(&format!("gpu;{name}:cpu"), &format!("one{k}"))) {
            assert_eq!(runs > 0, other == *name, "'{name}' pinned cpu: '{other}' ran its host version {runs} times");
        }
    }
    // memcheck: no byte outside what the program allocated is read or written by the copies
    // (the sampled extents of earlier versions read and wrote the allocator's headers)
    let mut c = Command::new("valgrind");
    c.args(["--error-exitcode=99", "-q"]).arg(&adaptive).arg("1").current_dir(d);
    c.env("OMPADAPT_DIR", d.join(".ompadapt")).env("OMPADAPT_PERSIST", "0").env("OMPADAPT_VARIANT", "cpu");
    let out = run(&mut c);
    out.expect_ok("pinned cpu under memcheck");
    let one = run(Command::new(&stock).arg("1").current_dir(d));
    assert_eq!(out.stdout, one.stdout, "pinned cpu under memcheck");
    // the real runtime, three runs on one store
    for k in 1..=3 {
        let mut env = vec![("MALLOC_CHECK_", "3")];
        let store = d.join("store");
        let store = store.to_str().unwrap();
        env.push(("OMPADAPT_DIR", store));
        let out = run_program(&adaptive, d, &env);
        out.expect_ok(&format!("runtime run {k}"));
        assert_eq!(out.stdout, expected.stdout, "runtime run {k}");
    }
}
