//! The builds of a generated program: stock clang-19/flang-new-19, the frontend plugin's
//! zero-source-change mode (the default kinds, and a list with the team kinds of both kinds of
//! construct), and the pass alone. Sources are compiled from their folder by relative names,
//! so regions are named `blockN@case.c:<line>` in every build.

use crate::ast::{Lang, Program};
use crate::process::{run, shell_line, Outcome};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

pub const CLANG: &str = "clang-19";
pub const FLANG: &str = "flang-new-19";
pub const HOST_OFFLOAD: &str = "-fopenmp-targets=x86_64-pc-linux-gnu";
pub const LLVM_LIB: &str = "/usr/lib/llvm-19/lib";
/// The kinds of the second zero-source-change build: every team kind of a target construct and
/// of a host parallel construct, at values a 2-core machine runs quickly.
pub const TEAM_KINDS: &str = "cpu,gpu,thread_limit[1:4:3],num_teams[1:2:1],serial,num_threads[1:3:2],threads[0.5:1:0.5]";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Build {
    Stock,
    /// `-fplugin-arg-ompadapt-auto` (the default kinds).
    Auto,
    /// `-fplugin-arg-ompadapt-auto=<TEAM_KINDS>`.
    AutoTeams,
    /// `-fpass-plugin` alone (pass-only mode).
    Pass,
}

impl Build {
    pub fn name(self) -> &'static str {
        match self {
            Build::Stock => "stock",
            Build::Auto => "auto",
            Build::AutoTeams => "auto-teams",
            Build::Pass => "pass",
        }
    }
    /// The adaptive builds a program gets: Fortran has no frontend plugin; the second plugin
    /// build is for every other C case (compile time on a small machine).
    pub fn adaptive(p: &Program) -> Vec<Build> {
        match p.lang {
            Lang::Fortran => vec![Build::Pass],
            Lang::C if p.case % 2 == 1 => vec![Build::Auto, Build::AutoTeams, Build::Pass],
            Lang::C => vec![Build::Auto, Build::Pass],
        }
    }
}

/// Where the ompadapt libraries are: `$OMPADAPT_LIB_DIR`, else the workspace's target/release.
pub fn lib_dir() -> PathBuf {
    if let Ok(d) = std::env::var("OMPADAPT_LIB_DIR") {
        return PathBuf::from(d);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_path_buf();
    std::env::var("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|_| root.join("target")).join("release")
}

/// The libraries the adaptive builds need, or what is missing.
pub fn check_libraries() -> Result<(), String> {
    for lib in ["libompadapt.so", "libompadapt_pass.so", "libompadapt_rt.so"] {
        let p = lib_dir().join(lib);
        if !p.exists() {
            return Err(format!("{} is missing: run `cargo build --release --workspace` first", p.display()));
        }
    }
    Ok(())
}

fn c_command(p: &Program, build: Build) -> Command {
    let mut c = Command::new(CLANG);
    c.args(["-O2", "-fopenmp"]);
    p.openmp52.then(|| c.arg("-fopenmp-version=52"));
    p.has_target().then(|| c.arg(HOST_OFFLOAD));
    let lib = lib_dir();
    match build {
        Build::Stock => {}
        Build::Auto | Build::AutoTeams => {
            c.arg(format!("-fplugin={}", lib.join("libompadapt.so").display()));
            let kinds = if build == Build::AutoTeams {
                format!("-fplugin-arg-ompadapt-auto={TEAM_KINDS}")
            } else {
                "-fplugin-arg-ompadapt-auto".into()
            };
            c.args([kinds.as_str(), "-fplugin-arg-ompadapt-remarks"]);
        }
        Build::Pass => {
            c.arg(format!("-fpass-plugin={}", lib.join("libompadapt_pass.so").display()));
            c.args(["-gline-tables-only", "-Rpass=ompadapt", "-Rpass-missed=ompadapt"]);
        }
    }
    c.arg(format!("-Wl,-rpath,{LLVM_LIB}"));
    c
}

fn fortran_command(p: &Program, build: Build) -> Command {
    let mut c = Command::new(FLANG);
    c.args(["-O2", "-fopenmp"]);
    if build == Build::Pass {
        c.arg(format!("-fpass-plugin={}", lib_dir().join("libompadapt_pass.so").display()));
        c.args(["-g", "-Rpass=ompadapt", "-Rpass-missed=ompadapt"]);
    }
    // flang-19 cannot link an offload image: the target constructs call libomptarget directly
    if p.has_target() {
        c.args([format!("-L{LLVM_LIB}"), "-lomptarget".into()]);
    }
    c.arg(format!("-Wl,-rpath,{LLVM_LIB}"));
    c
}

/// A finished build: the executable, what the compiler said and the command line.
pub struct Built {
    pub build: Build,
    pub exe: PathBuf,
    pub outcome: Outcome,
    pub command: String,
}

/// Builds the program whose files are in `dir` (the main file first).
pub fn compile(p: &Program, dir: &Path, files: &[String], build: Build, limit: Duration) -> Built {
    let exe = dir.join(build.name());
    let mut c = match p.lang {
        Lang::C => c_command(p, build),
        Lang::Fortran => fortran_command(p, build),
    };
    c.current_dir(dir).env_remove("OMPADAPT_AUTO").args(files).arg("-o").arg(build.name());
    let command = format!("(cd {} && {})", dir.display(), shell_line(&c));
    let outcome = run(&mut c, limit);
    Built { build, exe, outcome, command }
}
