//! The mutation fuzzer over the plugin (tests/src/fuzz.rs): every case is compiled with
//! clang-19 and libompadapt.so; a crash, panic, internal error, hang or unlocated error that
//! stock clang-19 does not also show fails the test. The failing sources and clang's output
//! are kept under target/fuzz-failures/.
//!
//! CI runs a few hundred cases. The long run is the same test with more cases:
//!   OMPADAPT_FUZZ_CASES=20000 cargo test --release -p ompadapt-tests --test fuzz -- --nocapture
//! OMPADAPT_FUZZ_SEED picks another sequence, OMPADAPT_FUZZ_JOBS the parallel compilations,
//! OMPADAPT_FUZZ_ONLY=N reruns case N alone (printing its source).

use ompadapt_tests::fuzz::*;
use ompadapt_tests::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[derive(Default)]
struct Tally {
    compiled: u64,
    rejected: u64,
    full: u64,
    stock_also_fails: u64,
    failures: Vec<String>,
}

#[test]
fn mutated_sources_never_crash_hang_or_panic() {
    let cases = env_u64("OMPADAPT_FUZZ_CASES", 300);
    let seed = env_u64("OMPADAPT_FUZZ_SEED", 1);
    let jobs = env_u64("OMPADAPT_FUZZ_JOBS", 2).max(1);
    let only = std::env::var("OMPADAPT_FUZZ_ONLY").ok().and_then(|v| v.parse::<u64>().ok());
    // A hang is a compilation that takes this long; a normal one takes well under a second.
    let timeout = Duration::from_secs(env_u64("OMPADAPT_FUZZ_TIMEOUT", 30));
    let corpus = corpus();
    let dir = scratch();
    let failures_dir = workspace_root().join("target/fuzz-failures");
    let next = AtomicU64::new(0);
    let tally = Mutex::new(Tally::default());
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = match only {
                    Some(n) if next.fetch_add(1, Ordering::Relaxed) == 0 => n,
                    Some(_) => return,
                    None => next.fetch_add(1, Ordering::Relaxed),
                };
                if only.is_none() && i >= cases {
                    return;
                }
                let case = make_case(&corpus, seed, i, false);
                if only.is_some() {
                    println!("--- case {i} ({})\n{}\n---", case.name, case.text);
                }
                let ext = if case.cplusplus { "cpp" } else { "c" };
                let path = dir.path().join(format!("case{i}.{ext}"));
                std::fs::write(&path, &case.text).unwrap();
                // One case in ten is compiled to an object, one in three with host offload, one in
                // four in zero-source-change mode.
                let mode = Mode { full: i % 10 == 3, offload: i % 3 == 0 || i % 10 == 3, with_plugin: true, auto: i % 4 == 1 };
                let (verdict, stderr) = compile_case(&path, mode, timeout);
                let mut t = tally.lock().unwrap();
                t.full += u64::from(mode.full);
                match &verdict {
                    Verdict::Fine { errors: false } => t.compiled += 1,
                    Verdict::Fine { errors: true } => t.rejected += 1,
                    _ => {
                        drop(t);
                        // Not the plugin's doing if stock clang fails the same way.
                        let stock = compile_case(&path, Mode { with_plugin: false, ..mode }, timeout).0;
                        let same = match (&verdict, &stock) {
                            (Verdict::Crash(_), Verdict::Crash(_)) | (Verdict::Hang, Verdict::Hang) => true,
                            // A crash site of stock clang, reproduced without the plugin below.
                            (Verdict::Crash(_), _) => stock_crash(&stderr).is_some(),
                            (Verdict::Unlocated(a), Verdict::Unlocated(b)) => a == b,
                            _ => false,
                        };
                        let mut t = tally.lock().unwrap();
                        if same {
                            t.stock_also_fails += 1;
                        } else {
                            std::fs::create_dir_all(&failures_dir).unwrap();
                            let keep = failures_dir.join(format!("seed{seed}-case{i}.{ext}"));
                            std::fs::write(&keep, &case.text).unwrap();
                            std::fs::write(keep.with_extension(format!("{ext}.stderr")), &stderr).unwrap();
                            t.failures.push(format!("case {i} ({}, {mode:?}): {verdict:?} -> {}", case.name, keep.display()));
                        }
                    }
                }
                if only.is_some() {
                    println!("{verdict:?}\n{stderr}");
                }
            });
        }
    });
    let t = tally.into_inner().unwrap();
    println!(
        "fuzz: seed {seed}, {} cases in {:.0} s: {} compiled, {} rejected with located errors ({} full compiles), \
         {} failing the same way without the plugin (or in a known stock clang-19 crash), {} failures",
        t.compiled + t.rejected + t.stock_also_fails + t.failures.len() as u64,
        started.elapsed().as_secs_f64(),
        t.compiled,
        t.rejected,
        t.full,
        t.stock_also_fails,
        t.failures.len()
    );
    assert!(t.failures.is_empty(), "{} failures:\n{}", t.failures.len(), t.failures.join("\n"));
}

/// Each known stock clang-19 crash the fuzzer excuses still crashes stock clang-19 alone, with
/// the same signature (once clang is fixed, its entry goes).
#[test]
fn excused_crashes_are_stock_clang_crashes() {
    let dir = scratch();
    for (i, known) in STOCK_CRASHES.iter().enumerate() {
        let path = dir.path().join(format!("stock{i}.c"));
        std::fs::write(&path, known.reproducer).unwrap();
        assert!(is_plain(known.reproducer));
        let mode = Mode { full: false, offload: true, with_plugin: false, auto: false };
        let (verdict, stderr) = compile_case(&path, mode, Duration::from_secs(60));
        assert!(matches!(verdict, Verdict::Crash(_)), "{}: {verdict:?}\n{stderr}", known.what);
        assert!(stock_crash(&stderr).is_some_and(|c| std::ptr::eq(c, known)), "{}: signature not seen\n{stderr}", known.what);
    }
}
