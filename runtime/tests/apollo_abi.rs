//! A program written against Apollo's C API (`tests/c/apollo_program.c`,
//! Georgakoudis et al.'s Listing 2 plus a controlled-cost region) compiled with clang-19 and linked
//! against the `libompadapt_rt.so` (and `.a`) that cargo built for this test run. Skipped, with the
//! reason printed, when clang-19 or the libraries are missing.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The libraries cargo built with this test: `<target>/<profile>/deps` (always fresh: `cargo
/// test` builds the library there), else `<target>/<profile>` (where `cargo build` copies them).
fn lib_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let deps = exe.parent()?.to_path_buf();
    let has = |d: &Path| d.join("libompadapt_rt.so").exists() && d.join("libompadapt_rt.a").exists();
    if has(&deps) {
        return Some(deps);
    }
    let profile = deps.parent()?.to_path_buf();
    has(&profile).then_some(profile)
}

fn have_clang() -> bool {
    Command::new("clang-19").arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

struct Built {
    work: PathBuf,
    exes: Vec<PathBuf>,
}

/// Builds the program twice: against the shared and against the static library.
fn build(tag: &str) -> Option<Built> {
    if !have_clang() {
        println!("skipped: clang-19 not found on PATH");
        return None;
    }
    let Some(libdir) = lib_dir() else {
        println!("skipped: libompadapt_rt.so/.a not found next to the test executable");
        return None;
    };
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = std::env::temp_dir().join(format!("ompadapt-apollo-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let src = manifest.join("tests/c/apollo_program.c");
    let omp_rpath = "-Wl,-rpath,/usr/lib/llvm-19/lib".to_owned();
    let builds = [
        (
            work.join("apollo_shared"),
            vec![format!("-L{}", libdir.display()), "-lompadapt_rt".into(), format!("-Wl,-rpath,{}", libdir.display()), omp_rpath.clone()],
        ),
        (
            work.join("apollo_static"),
            vec![libdir.join("libompadapt_rt.a").display().to_string(), "-lpthread".into(), "-ldl".into(), "-lm".into(), omp_rpath],
        ),
    ];
    let mut exes = Vec::new();
    for (exe, link) in builds {
        let out = Command::new("clang-19")
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-fopenmp"])
            .arg(format!("-I{}", manifest.join("include").display()))
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .args(&link)
            .output()
            .unwrap();
        assert!(out.status.success(), "clang-19 failed:\n{}", String::from_utf8_lossy(&out.stderr));
        exes.push(exe);
    }
    Some(Built { work, exes })
}

/// Serialises the runs: the learning one measures time, the others load both cores.
static RUNS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn run(exe: &Path, mode: &str, dir: &Path) -> (i32, String, String) {
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let out = Command::new(exe)
        .arg(mode)
        // three measurements per (feature, policy) pair, labels by median: one preempted
        // measurement on a loaded machine cannot flip a label
        .env("OMPADAPT_REPEATS", "3")
        .env("OMPADAPT_DIR", dir)
        .env("OMPADAPT_PERSIST", "0")
        .env("OMPADAPT_REPORT", "0")
        .env_remove("OMPADAPT_MODEL")
        .env_remove("APOLLO_POLICY_MODEL")
        // cargo's LD_LIBRARY_PATH lists <target>/<profile>, which may hold an older copy of
        // the library; the program's run path names the one it was linked with.
        .env_remove("LD_LIBRARY_PATH")
        .env("OMP_NUM_THREADS", "2")
        .output()
        .expect("run the Apollo test program");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Runs `mode` on both builds; `attempts` > 1 for timing-dependent modes (a loaded machine can
/// stretch one measurement past a cost difference).
fn check(b: &Built, mode: &str, attempts: usize) -> Vec<(String, String)> {
    let mut outs = Vec::new();
    for exe in &b.exes {
        let mut last = String::new();
        let mut ok = None;
        for _ in 0..attempts {
            let (code, stdout, stderr) = run(exe, mode, &b.work.join("data"));
            if code == 0 {
                ok = Some((stdout, stderr));
                break;
            }
            last = format!("exit {code}\nstdout:\n{stdout}\nstderr:\n{stderr}");
        }
        let (stdout, stderr) = ok.unwrap_or_else(|| panic!("{} {mode}: {last}", exe.display()));
        assert!(stdout.starts_with(mode), "{stdout}");
        outs.push((stdout, stderr));
    }
    outs
}

#[test]
fn apollo_program_links_and_runs() {
    let Some(b) = build("abi") else { return };
    for (stdout, stderr) in check(&b, "listing2", 1) {
        assert!(stdout.contains("listing2: 60 executions, 6 training samples"), "{stdout}");
        assert!(!stderr.contains("warning"), "no warnings expected:\n{stderr}");
    }
    for (_, stderr) in check(&b, "static", 1) {
        let count = |needle: &str| stderr.lines().filter(|l| l.contains(needle)).count();
        assert_eq!(count("Static,policy=9 is not below num_policies 4"), 1, "{stderr}");
        assert_eq!(count("__apollo_region_create did not return"), 3, "get_policy, begin and end, once each:\n{stderr}");
    }
    let _ = std::fs::remove_dir_all(&b.work);
}

#[test]
fn apollo_regions_learn_the_fastest_policy() {
    let Some(b) = build("learn") else { return };
    for (stdout, _) in check(&b, "learn", 3) {
        assert!(stdout.contains("DecisionTree,max_depth=2,explore=RoundRobin trained after"), "{stdout}");
        assert!(stdout.contains("RandomForest,num_trees=10,max_depth=2 trained after"), "{stdout}");
        assert!(stdout.contains("LogisticRegression trained after"), "{stdout}");
        assert!(stdout.contains("DecisionTree trained after 64 executions"), "{stdout}");
    }
    let _ = std::fs::remove_dir_all(&b.work);
}

#[test]
fn apollo_region_from_8_openmp_threads_loses_nothing() {
    let Some(b) = build("threads") else { return };
    for (stdout, _) in check(&b, "threads", 1) {
        assert!(stdout.contains("outer 4000 executions / 16 samples, inner 4000 executions"), "{stdout}");
    }
    let _ = std::fs::remove_dir_all(&b.work);
}
