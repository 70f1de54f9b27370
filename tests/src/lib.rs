//! Helpers for the end-to-end tests: where the built libraries are, how to compile an OpenMP
//! program with clang-19 + libompadapt.so, run it, and check what it printed.
//!
//! The libraries are built by `cargo build --release` before the tests run (scripts/test.sh
//! does that); a test that finds them missing fails with that instruction.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const CLANG: &str = "clang-19";
pub const OPT: &str = "opt-19";
pub const FILECHECK: &str = "/usr/lib/llvm-19/bin/FileCheck";
/// Host offload: a real offload image run by libomptarget's host plugin, no GPU needed.
pub const HOST_OFFLOAD: &str = "-fopenmp-targets=x86_64-pc-linux-gnu";

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace").to_path_buf()
}

/// Directory holding libompadapt.so and libompadapt_rt.so.
pub fn lib_dir() -> PathBuf {
    if let Ok(d) = std::env::var("OMPADAPT_LIB_DIR") {
        return PathBuf::from(d);
    }
    let target = std::env::var("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|_| workspace_root().join("target"));
    target.join("release")
}

pub fn plugin() -> PathBuf {
    let p = lib_dir().join("libompadapt.so");
    assert!(p.exists(), "{} is missing: run `cargo build --release` first (scripts/test.sh does)", p.display());
    for lib in ["libompadapt_rt.so", "libompadapt_pass.so"] {
        let l = lib_dir().join(lib);
        assert!(l.exists(), "{} is missing: run `cargo build --release` first", l.display());
    }
    p
}

/// libompadapt_pass.so: the pass alone, for `opt-19 -load-pass-plugin`.
pub fn pass_plugin() -> PathBuf {
    let p = lib_dir().join("libompadapt_pass.so");
    assert!(p.exists(), "{} is missing: run `cargo build --release` first", p.display());
    p
}

pub fn source(rel: &str) -> PathBuf {
    workspace_root().join("tests").join(rel)
}

/// Output of a command, with stdout and stderr as text.
pub struct Run {
    pub status: std::process::ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(o: Output) -> Run {
        Run {
            status: o.status,
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
    pub fn ok(&self) -> bool {
        self.status.success()
    }
    #[track_caller]
    pub fn expect_ok(&self, what: &str) -> &Run {
        assert!(self.ok(), "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}", self.status, self.stdout, self.stderr);
        self
    }
}

pub fn run(cmd: &mut Command) -> Run {
    Run::from(cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}")))
}

/// A scratch directory per test, kept on failure for inspection when OMPADAPT_KEEP_TMP is set.
pub fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("ompadapt-test-").tempdir().expect("tempdir")
}

/// Compiles `src` with clang-19, -fopenmp, host offload and the plugin, plus `extra` flags.
pub fn compile(src: &Path, exe: &Path, extra: &[&str]) -> Run {
    let plugin = plugin();
    let mut c = Command::new(CLANG);
    c.arg("-fopenmp").arg(HOST_OFFLOAD).arg(format!("-fplugin={}", plugin.display()));
    c.args(extra).arg(src).arg("-o").arg(exe);
    run(&mut c)
}

/// Runs a compiled program in `dir` (so that its learned data stays in the scratch dir).
pub fn run_program(exe: &Path, dir: &Path, env: &[(&str, &str)]) -> Run {
    let mut c = Command::new(exe);
    c.current_dir(dir).env_remove("OMPADAPT_REPORT").env("OMPADAPT_DIR", dir.join(".ompadapt"));
    for (k, v) in env {
        c.env(k, v);
    }
    run(&mut c)
}

/// Runs `exe` in `dir` with a store of its own there, none of the environment's ompadapt
/// settings (report, pin, runtime) nor its `OMP_SCHEDULE`, a team of two unless `env` says
/// otherwise, and `env`; it must succeed.
pub fn run_isolated(exe: &Path, dir: &Path, env: &[(&str, &str)]) -> Run {
    let mut c = Command::new(exe);
    c.current_dir(dir).env_remove("OMPADAPT_REPORT").env_remove("OMPADAPT_VARIANT").env_remove("OMPADAPT_RUNTIME");
    c.env_remove("OMP_SCHEDULE").env("OMPADAPT_DIR", dir.join(".ompadapt")).env("OMP_NUM_THREADS", "2");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = run(&mut c);
    out.expect_ok(&format!("{} {env:?}", exe.display()));
    out
}

/// Lines `KEY a=1 b=2` printed by a test program, as maps.
pub fn records(stdout: &str, key: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(key).filter(|r| r.starts_with(' ')))
        .map(|rest| rest.split_whitespace().filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect())
        .collect()
}

/// Tests whose assertions depend on measured times take this lock, so that on a small machine
/// they do not compete with each other for the cores (a preempted measurement can flip a label).
pub fn timing_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs `attempt` up to `tries` times until it returns Ok; panics with every failure otherwise.
/// For learning tests on shared machines: a broken learner fails every attempt, while one
/// measurement disturbed by another process fails only one.
#[track_caller]
pub fn with_retries(tries: usize, mut attempt: impl FnMut() -> Result<(), String>) {
    let mut failures = Vec::new();
    for i in 0..tries {
        match attempt() {
            Ok(()) => {
                if i > 0 {
                    eprintln!("passed on attempt {} after: {failures:?}", i + 1);
                }
                return;
            }
            Err(e) => failures.push(e),
        }
    }
    panic!("failed {tries} times: {failures:#?}");
}

/// The folder of the program `exe` in a store: `<name>-<hash of its canonical path>`.
pub fn program_folder(exe: &Path) -> String {
    let name = exe.file_name().expect("a file").to_string_lossy();
    let id = exe.canonicalize().unwrap_or_else(|_| exe.to_path_buf());
    ompadapt_rt::store::Program::new(&name, &id.to_string_lossy()).folder()
}

pub mod fuzz;

/// Builds, in `dir`, the stand-in runtime (tests/programs/variants/forced_runtime.c) that takes
/// each region's variants from `OMPADAPT_TEST_SEQUENCE` instead of choosing them: the tests
/// force variant sequences with it (`OMPADAPT_RUNTIME=<this library>`).
pub fn forced_runtime(dir: &Path) -> PathBuf {
    let lib = dir.join("libforced.so");
    // the cpu variant's copies are the real runtime's (ompadapt_host_enter/exit)
    let rt = lib_dir();
    run(Command::new(CLANG)
        .args(["-O2", "-shared", "-fPIC"])
        .arg(format!("-I{}", workspace_root().join("runtime/include").display()))
        .arg(source("programs/variants/forced_runtime.c"))
        .arg("-o")
        .arg(&lib)
        .arg(format!("-L{}", rt.display()))
        .arg(format!("-Wl,-rpath,{}", rt.display()))
        .arg("-lompadapt_rt"))
    .expect_ok("building the forced-sequence runtime");
    lib
}

/// A deterministic pseudo-random sequence of `len` variant indices below `variants`, as
/// `OMPADAPT_TEST_SEQUENCE` takes it ("0,1,1,0,..."): the same for the same seed.
pub fn random_sequence(seed: u64, len: usize, variants: usize) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % variants as u64).to_string()
        })
        .collect::<Vec<_>>()
        .join(",")
}
