//! Shared helpers of the pass tests: generate host IR with clang-19, parse it with inkwell, run
//! FileCheck. Tests skip (with a printed reason) when clang-19 or FileCheck is missing.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;

pub const CLANG: &str = "clang-19";
pub const CLANGXX: &str = "clang++-19";
pub const OFFLOAD_TRIPLE: &str = "x86_64-pc-linux-gnu";
const FILECHECK_CANDIDATES: &[&str] = &["/usr/lib/llvm-19/bin/FileCheck", "FileCheck-19", "FileCheck"];

/// Optimisation settings the IR is generated at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opt {
    /// `-O0`: everything `optnone`.
    O0,
    /// `-O2 -Xclang -disable-llvm-passes`: what a pass at the start of the -O2 pipeline sees.
    O2,
}

impl Opt {
    pub fn flags(self) -> &'static [&'static str] {
        match self {
            Opt::O0 => &["-O0"],
            Opt::O2 => &["-O2"],
        }
    }
    pub fn tag(self) -> &'static str {
        match self {
            Opt::O0 => "O0",
            Opt::O2 => "O2",
        }
    }
}

pub fn inputs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs")
}

pub fn input(name: &str) -> PathBuf {
    inputs_dir().join(name)
}

/// A fresh scratch directory for one test.
pub fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ompadapt-pass").join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn runs(program: &str, arg: &str) -> bool {
    Command::new(program).arg(arg).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

/// Whether clang-19 can be run; prints why a test is skipped when not.
pub fn have_clang(test: &str) -> bool {
    let ok = runs(CLANG, "--version");
    if !ok {
        eprintln!("skipping {test}: {CLANG} is not installed (apt-get install clang-19)");
    }
    ok
}

pub fn filecheck() -> Option<&'static str> {
    FILECHECK_CANDIDATES.iter().copied().find(|p| runs(p, "--version"))
}

/// Host IR of `source` as clang-19 emits it before any LLVM pass
/// (`-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only -S -emit-llvm
/// -Xclang -disable-llvm-passes`), written into `dir`.
pub fn host_ir(source: &Path, opt: Opt, extra: &[&str], dir: &Path) -> PathBuf {
    let stem = source.file_stem().unwrap().to_string_lossy();
    let out = dir.join(format!("{stem}.{}.host.ll", opt.tag()));
    let mut cmd = Command::new(CLANG);
    cmd.args(opt.flags())
        .arg("-fopenmp")
        .arg(format!("-fopenmp-targets={OFFLOAD_TRIPLE}"))
        .args(["--offload-host-only", "-S", "-emit-llvm", "-Xclang", "-disable-llvm-passes"])
        .args(extra)
        .arg(source)
        .arg("-o")
        .arg(&out);
    run_ok(&mut cmd);
    out
}

/// Runs a command, panicking with its output when it fails; returns its stdout.
pub fn run_ok(cmd: &mut Command) -> String {
    let output = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    if !output.status.success() {
        panic!(
            "{cmd:?} failed ({}):\n{}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn parse<'ctx>(context: &'ctx Context, path: &Path) -> Module<'ctx> {
    let buffer = MemoryBuffer::create_from_file(path).unwrap();
    context.create_module_from_ir(buffer).unwrap_or_else(|e| panic!("cannot parse {}: {}", path.display(), e.to_string()))
}

pub fn verify(module: &Module<'_>, what: &str) {
    if let Err(e) = module.verify() {
        panic!("{what}: module does not verify:\n{}\n{}", e.to_string(), module.print_to_string().to_string());
    }
}

pub fn ir_text(module: &Module<'_>) -> String {
    module.print_to_string().to_string()
}

/// Pipes `ir` through FileCheck with the CHECK lines in `checks` (a check file's text) and
/// `prefix`. Skips (returns false) without FileCheck.
pub fn file_check(ir: &str, checks: &str, prefix: &str, dir: &Path, name: &str) -> bool {
    let Some(fc) = filecheck() else {
        eprintln!("skipping FileCheck for {name}: FileCheck not found");
        return false;
    };
    let check_file = dir.join(format!("{name}.checks"));
    std::fs::write(&check_file, checks).unwrap();
    let ir_file = dir.join(format!("{name}.out.ll"));
    std::fs::write(&ir_file, ir).unwrap();
    let mut child = Command::new(fc)
        .arg(&check_file)
        .arg(format!("--check-prefixes={prefix}"))
        .arg("--dump-input=fail")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(ir.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "FileCheck {name} ({prefix}) failed; IR in {}:\n{}",
        ir_file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    true
}
