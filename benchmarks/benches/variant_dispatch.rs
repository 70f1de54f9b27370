//! What the variants the plugin and pass generate from one construct cost per execution,
//! against the same launch written by hand: compiles benchmarks/c/dispatch_cost.c with
//! clang-19 -fplugin (host offload: libomptarget's host plugin stands in for a GPU) and runs it
//! with the forced-sequence runtime (tests/programs/variants/forced_runtime.c), which pins each
//! region's first variant at a fixed cost the empty region measures. Also runs the empty region
//! with the real runtime: one trained runtime decision, the anchor the stub is compared to.
//!
//! `cargo bench -p ompadapt-benchmarks --bench variant_dispatch` (needs `cargo build --release`
//! first; about 30 s). Prints, per kind, the adaptive and hand-written times (medians over
//! batches), the stub's share (adaptive - hand - empty region) and the ratio; then the cpu
//! variant's copies inside `target data` against hand-written `target update`s.

use std::path::Path;
use std::process::Command;

fn clang(args: &[&str], out: &Path) {
    let st = Command::new("clang-19").args(args).arg("-o").arg(out).status().expect("clang-19");
    assert!(st.success(), "clang-19 {args:?} failed");
}

fn main() {
    let root = ompadapt_benchmarks::workspace_root();
    let Some([plugin]) = ompadapt_benchmarks::release_libraries(["libompadapt.so"]) else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let forced = dir.path().join("libforced.so");
    let include = format!("-I{}", root.join("runtime/include").display());
    let forced_src = root.join("tests/programs/variants/forced_runtime.c");
    let rt = plugin.parent().expect("the plugin's directory");
    let (link, rpath) = (format!("-L{}", rt.display()), format!("-Wl,-rpath,{}", rt.display()));
    clang(&["-O2", "-shared", "-fPIC", &include, forced_src.to_str().unwrap(), &link, &rpath, "-lompadapt_rt"], &forced);
    let exe = dir.path().join("dispatch_cost");
    let src = root.join("benchmarks/c/dispatch_cost.c");
    clang(
        &["-O2", "-fopenmp", "-fopenmp-targets=x86_64-pc-linux-gnu", &format!("-fplugin={}", plugin.display()), src.to_str().unwrap()],
        &exe,
    );
    let reps = std::env::var("OMPADAPT_BENCH_REPS").unwrap_or_else(|_| "300".into());
    let run = |env: &[(&str, &str)], extra: &[&str]| -> String {
        let mut c = Command::new(&exe);
        c.arg(&reps).args(extra).current_dir(dir.path()).env("OMPADAPT_PERSIST", "0");
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().expect("run dispatch_cost");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let trained = run(&[], &["1048576", "empty-only"]);
    let pinned = run(&[("OMPADAPT_RUNTIME", forced.to_str().unwrap()), ("OMPADAPT_TEST_SEQUENCE", "0"), ("OMPADAPT_TEST_QUIET", "1")], &[]);
    let field = |line: &str, key: &str| -> Option<f64> {
        line.split_whitespace().find_map(|kv| kv.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
    };
    let decision = trained.lines().find_map(|l| field(l, "region_ns")).unwrap_or(f64::NAN);
    println!("one trained runtime decision (empty adaptive region, real runtime): {decision:.1} ns");
    println!("{:<14} {:>14} {:>14} {:>12} {:>8} {:>16}", "kind", "adaptive (ns)", "by hand (ns)", "stub (ns)", "ratio", "stub/decision");
    for l in pinned.lines() {
        if let Some(kind) = l.strip_prefix("KIND ").and_then(|r| r.split_whitespace().next()) {
            let (a, h, s, r) = (
                field(l, "adaptive_ns").unwrap_or(f64::NAN),
                field(l, "hand_ns").unwrap_or(f64::NAN),
                field(l, "stub_ns").unwrap_or(f64::NAN),
                field(l, "ratio").unwrap_or(f64::NAN),
            );
            println!("{kind:<14} {a:>14.0} {h:>14.0} {s:>12.0} {r:>8.3} {:>16.1}", s / decision);
        } else if l.starts_with("COPIES") {
            println!(
                "cpu variant in target data (n = {}): generated copies {:.1} us, hand-written target update {:.1} us, ratio {:.3}",
                field(l, "n").unwrap_or(f64::NAN),
                field(l, "adaptive_us").unwrap_or(f64::NAN),
                field(l, "hand_us").unwrap_or(f64::NAN),
                field(l, "ratio").unwrap_or(f64::NAN)
            );
        } else if let Some(e) = field(l, "region_ns") {
            println!("forced runtime's begin/end (subtracted): {e:.1} ns");
        }
    }
}
