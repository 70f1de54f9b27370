//! `ompadapt-dataperf [OPTIONS] [--] PROGRAM [ARGS...]`: runs PROGRAM with the data-movement
//! analysis on and reports at its exit. The options end at the first argument that is not one:
//! it and everything after it are the program and its arguments, as with `env` or `nice`
//! (`ompadapt-dataperf --json r.json ./app -n 5`); `--` before the program is accepted too.
//!
//! It preloads `libompadapt_dataperf.so` (so that map-clause names are captured at
//! libomptarget's entry points), names it in `OMP_TOOL_LIBRARIES` (the OpenMP tool interface's
//! own way to load a tool), sets `OMPADAPT_DATA`, and executes PROGRAM in its place: the exit
//! status and signals are the program's.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Parser;

#[derive(Parser, Debug)]
#[command(
    name = "ompadapt-dataperf",
    version,
    override_usage = "ompadapt-dataperf [OPTIONS] [--] PROGRAM [ARGS]...",
    about = "Find inefficient OpenMP data mappings of a program (duplicate and round-trip transfers, repeated and unused \
             allocations, unused transfers) and where they are in the source"
)]
struct Args {
    /// Write the report as JSON to FILE (`%p` becomes the process id) instead of text on stderr.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the text report to FILE instead of stderr.
    #[arg(long, value_name = "FILE", conflicts_with = "json")]
    text: Option<PathBuf>,
    /// Memory cap of the analysis (e.g. 64M); past it the oldest detail is forgotten and the
    /// report says so.
    #[arg(long, value_name = "SIZE")]
    mem: Option<String>,
    /// Rows per table of the text report.
    #[arg(long, value_name = "N")]
    top: Option<usize>,
    /// Do not preload the tool (no map-clause names; the tool is loaded through
    /// OMP_TOOL_LIBRARIES only).
    #[arg(long)]
    no_preload: bool,
    /// The tool library (default: libompadapt_dataperf.so beside this program or in ../lib).
    #[arg(long, value_name = "PATH", env = "OMPADAPT_DATAPERF_LIB")]
    lib: Option<PathBuf>,
    /// The program and its arguments: the first argument that is not an option above, and
    /// everything after it, options of the program's own included (`--` before PROGRAM is
    /// accepted, and needed only for a program whose name begins with `-`).
    #[arg(trailing_var_arg = true, required = true, num_args = 1.., value_name = "PROGRAM")]
    program: Vec<OsString>,
}

fn find_lib(explicit: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(p) = explicit {
        return if p.is_file() { Ok(p) } else { Err(format!("{}: no such tool library", p.display())) };
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program's path: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let candidates = [dir.join("libompadapt_dataperf.so"), dir.join("../lib/libompadapt_dataperf.so")];
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| format!("libompadapt_dataperf.so is not beside {} nor in ../lib: pass --lib", exe.display()))
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.to_path_buf())
    }
}

/// `new` in front of a colon- or space-separated list variable's current value.
fn prepend(var: &str, new: &Path, sep: &str) -> OsString {
    let mut v = OsString::from(new);
    if let Some(old) = std::env::var_os(var).filter(|o| !o.is_empty()) {
        v.push(sep);
        v.push(old);
    }
    v
}

fn main() -> ExitCode {
    let args = Args::parse();
    let lib = match find_lib(args.lib) {
        Ok(l) => absolute(&l),
        Err(e) => {
            eprintln!("ompadapt-dataperf: {e}");
            return ExitCode::from(2);
        }
    };
    let data = match (&args.json, &args.text) {
        (Some(j), _) => format!("json:{}", absolute(j).display()),
        (None, Some(t)) => format!("text:{}", absolute(t).display()),
        _ => "1".to_owned(),
    };
    let mut cmd = Command::new(&args.program[0]);
    cmd.args(&args.program[1..]);
    cmd.env("OMPADAPT_DATA", data);
    cmd.env("OMP_TOOL_LIBRARIES", prepend("OMP_TOOL_LIBRARIES", &lib, ":"));
    if !args.no_preload {
        cmd.env("LD_PRELOAD", prepend("LD_PRELOAD", &lib, ":"));
    }
    if let Some(m) = args.mem {
        cmd.env("OMPADAPT_DATA_MEM", m);
    }
    if let Some(t) = args.top {
        cmd.env("OMPADAPT_DATA_TOP", t.to_string());
    }
    let e = cmd.exec();
    eprintln!("ompadapt-dataperf: cannot run {}: {e}", args.program[0].to_string_lossy());
    ExitCode::from(127)
}
