//! Helpers for the tests that compile OpenMP programs with clang-19 (host offload) and run
//! them under the tool.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub const HOST_OFFLOAD: &str = "-fopenmp-targets=x86_64-pc-linux-gnu";

pub fn launcher() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ompadapt-dataperf"))
}

pub fn tool_lib() -> PathBuf {
    let p = launcher().parent().unwrap().join("libompadapt_dataperf.so");
    assert!(p.exists(), "{} is missing: cargo builds it with the crate (cargo build --release)", p.display());
    p
}

pub fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs").join(name)
}

pub fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("dataperf-test-").tempdir().unwrap()
}

pub fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// Compiles `src` with clang-19 -fopenmp and host offload, plus `extra` flags.
pub fn compile(src: &Path, exe: &Path, extra: &[&str]) {
    let compiler = if src.extension().is_some_and(|e| e == "cpp") { "clang++-19" } else { "clang-19" };
    let o =
        Command::new(compiler).args(["-fopenmp", HOST_OFFLOAD]).args(extra).arg(src).arg("-o").arg(exe).output().expect("clang-19 runs");
    let (out, err) = text(&o);
    assert!(o.status.success(), "compiling {} {extra:?} failed:\n{out}\n{err}", src.display());
}

/// The line of `src` that carries the marker comment `/* @marker */`.
pub fn line_of(src: &Path, marker: &str) -> u64 {
    let text = std::fs::read_to_string(src).unwrap();
    let tag = format!("/* @{marker} */");
    let hits: Vec<u64> = text.lines().enumerate().filter(|(_, l)| l.contains(&tag)).map(|(i, _)| i as u64 + 1).collect();
    assert!(!hits.is_empty(), "no {tag} in {}", src.display());
    hits[0]
}

/// Runs `exe` alone; returns its `CHECK` lines (the program's own results).
pub fn run_plain(exe: &Path, args: &[&str]) -> Vec<String> {
    let o = Command::new(exe).args(args).env_remove("OMPADAPT_DATA").output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{} failed:\n{out}\n{err}", exe.display());
    checks(&out)
}

pub fn checks(stdout: &str) -> Vec<String> {
    stdout.lines().filter(|l| l.starts_with("CHECK ")).map(str::to_owned).collect()
}

pub struct Analysed {
    pub report: Value,
    pub checks: Vec<String>,
    pub stderr: String,
}

/// Runs `exe` under the launcher with a JSON report; `launcher_args` go before `--`.
pub fn analyse(exe: &Path, dir: &Path, launcher_args: &[&str], args: &[&str]) -> Analysed {
    analyse_env(exe, dir, launcher_args, args, &[])
}

pub fn analyse_env(exe: &Path, dir: &Path, launcher_args: &[&str], args: &[&str], env: &[(&str, &str)]) -> Analysed {
    let json = dir.join(format!("{}.json", exe.file_name().unwrap().to_string_lossy()));
    let _ = std::fs::remove_file(&json);
    let o = Command::new(launcher())
        .arg("--json")
        .arg(&json)
        .args(launcher_args)
        .arg("--")
        .arg(exe)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{} under the tool failed:\n{out}\n{err}", exe.display());
    let raw = std::fs::read_to_string(&json).unwrap_or_else(|e| panic!("no report at {}: {e}\n{err}", json.display()));
    let report: Value = serde_json::from_str(&raw).expect("the report is JSON");
    assert_eq!(report["schema"], "ompadapt-dataperf/1");
    Analysed { report, checks: checks(&out), stderr: err }
}

pub fn count(r: &Value, pattern: &str) -> u64 {
    r["counts"][pattern].as_u64().unwrap_or_else(|| panic!("no counts.{pattern} in {r}"))
}

pub fn findings<'a>(r: &'a Value, pattern: &str) -> &'a Vec<Value> {
    r["findings"][pattern].as_array().unwrap_or_else(|| panic!("no findings.{pattern}"))
}

/// Asserts a finding's site is `file:line:column` with `file` ending in `file_suffix`.
#[track_caller]
pub fn assert_site(site: &Value, file_suffix: &str, line: u64, column: u64) {
    let f = site["file"].as_str().unwrap_or("");
    assert!(f.ends_with(file_suffix), "file {f:?} is not {file_suffix}: {site}");
    assert_eq!(site["line"].as_u64(), Some(line), "line: {site}");
    assert_eq!(site["column"].as_u64(), Some(column), "column: {site}");
}

pub const PATTERNS: [&str; 5] = ["duplicate_transfers", "round_trips", "repeated_allocations", "unused_allocations", "unused_transfers"];

/// Asserts the report has no finding of any of the OMPDataPerf paper's patterns, and no avoidable
/// work.
#[track_caller]
pub fn assert_clean(r: &Value) {
    for p in PATTERNS {
        assert_eq!(count(r, p), 0, "{p} in a fixed program: {}", r["findings"][p]);
    }
    assert_eq!(r["savings"]["ns"].as_u64(), Some(0), "{}", r["savings"]);
}

/// A program of benchmarks/dataperf/ (HeCBench-style kernels).
pub fn benchmark_program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../benchmarks/dataperf").join(name)
}

/// The first line of `src` that contains `text`.
pub fn line_containing(src: &Path, text: &str) -> u64 {
    let s = std::fs::read_to_string(src).unwrap();
    s.lines().position(|l| l.contains(text)).unwrap_or_else(|| panic!("no {text:?} in {}", src.display())) as u64 + 1
}

/// Runs `exe` under the launcher with the text report written to a file; returns the report.
pub fn text_report(exe: &Path, dir: &Path, args: &[&str]) -> String {
    let path = dir.join(format!("{}.txt", exe.file_name().unwrap().to_string_lossy()));
    let o = Command::new(launcher()).arg("--text").arg(&path).args(["--top", "1000", "--"]).arg(exe).args(args).output().unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{} under the tool failed:\n{out}\n{err}", exe.display());
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("no text report at {}: {e}", path.display()))
}
