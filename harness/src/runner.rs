//! Building a kernel with clang + the plugin, and running it: every `OMPADAPT_*` variable of
//! the caller's environment is removed, the mode's own are set, and the `RESULT` and
//! `DECISIONS` lines are read, and the runtime's JSON report where the run asks for one
//! ([`run_reported`]). A run whose result is wrong (`check=FAILED`, exit 1), that fails
//! otherwise, or prints no result is an error naming the kernel, input and mode. Every run is
//! logged ([`RunLog`]) for `runs.csv`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{anyhow, bail, Context, Result};

use super::run_report::{self, RunReport};

/// How kernels are compiled.
pub struct Toolchain {
    pub cc: String,
    pub plugin: PathBuf,
    /// `-fopenmp-targets=` value (`x86_64-pc-linux-gnu`: host offload).
    pub targets: String,
    pub cflags: Vec<String>,
    /// Mutable state in `target data` too (needs a pass whose cpu variant is correct there).
    pub resident: bool,
}

impl Toolchain {
    /// `define`: the use-case's flag (`-DUSE_THREADS`), if any.
    pub fn build(&self, source: &Path, exe: &Path, define: Option<&str>) -> Result<()> {
        let mut c = Command::new(&self.cc);
        c.args(["-O2", "-fopenmp"]).arg(format!("-fopenmp-targets={}", self.targets)).arg(format!("-fplugin={}", self.plugin.display()));
        if self.resident {
            c.arg("-DRESIDENT_STATE=1");
        }
        c.args(define);
        c.args(&self.cflags).arg(source).arg("-o").arg(exe).arg("-lm");
        let out = c.output().with_context(|| format!("cannot run {}", self.cc))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let first = err.lines().find(|l| l.contains("error")).unwrap_or_else(|| err.lines().next().unwrap_or(""));
            bail!("building {} failed: {first}", source.display());
        }
        Ok(())
    }
}

/// What one run printed.
#[derive(Clone, Debug)]
pub struct Output {
    pub time_s: f64,
    /// All but the first step (which pays one-off costs: device start, loading the store, training).
    pub steady_s: f64,
    /// Per region (in the kernel's order): executions per variant, `(variant, count)`.
    pub decisions: Vec<(String, Vec<(String, u64)>)>,
    /// The steps it was asked to run (the kernel's second argument).
    pub steps: u64,
    /// What the runtime's report says, for a run that asked for one.
    pub report: Option<RunReport>,
}

impl Output {
    /// Per region, the variant it ran most often (index into its variants).
    pub fn majority(&self) -> Vec<usize> {
        self.decisions.iter().map(|(_, c)| (0..c.len()).fold(0, |b, v| if c[v].1 > c[b].1 { v } else { b })).collect()
    }

    /// Executions that did not run the region's most frequent variant (exploration, mostly).
    pub fn minority_executions(&self) -> u64 {
        let maj = self.majority();
        self.decisions.iter().zip(maj).map(|((_, c), m)| c.iter().enumerate().filter(|(v, _)| *v != m).map(|(_, x)| x.1).sum::<u64>()).sum()
    }
}

/// A CSV field: quoted when it holds a comma or a quote (variant names such as
/// `schedule=dynamic,16` do).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// Every run, for `runs.csv`.
#[derive(Default)]
pub struct RunLog {
    rows: Vec<String>,
}

impl RunLog {
    /// The columns of [`RunLog::add`]'s lines.
    pub const HEADER: &'static str = "kernel,input,mode,pinned,time_s,decisions,steady_s,steps,exploring,drifts,retrains";

    /// One run; the last three columns (exploring executions, drifts and retrainings, all
    /// regions together) come from its report, empty where it asked for none.
    pub fn add(&mut self, kernel: &str, input: u64, mode: &str, pinned: &str, o: &Output) {
        let dec: Vec<String> = o
            .decisions
            .iter()
            .map(|(r, c)| format!("{r}:{}", c.iter().map(|(v, n)| format!("{v}={n}")).collect::<Vec<_>>().join("/")))
            .collect();
        let facts = o.report.as_ref().map_or(",,".to_owned(), |r| {
            let sum = |f: &dyn Fn(&run_report::RegionFacts) -> u64| r.regions.iter().map(f).sum::<u64>();
            format!("{},{},{}", sum(&|g| g.exploring), sum(&|g| g.drifts as u64), sum(&|g| g.retrains as u64))
        });
        self.rows.push(format!(
            "{kernel},{input},{mode},{},{:.9},{},{:.9},{},{facts}",
            csv_field(pinned),
            o.time_s,
            csv_field(&dec.join(" ")),
            o.steady_s,
            o.steps
        ));
    }

    /// The runs as CSV lines, in the order they ran.
    pub fn rows(&self) -> &[String] {
        &self.rows
    }
}

pub fn parse(stdout: &str) -> Result<Output> {
    let mut time = None;
    let mut steady = None;
    let mut decisions = Vec::new();
    for line in stdout.lines() {
        let fields = |rest: &str| -> Vec<(String, String)> {
            // the count is after the last '=': variant names have their own (`thread_limit=64=3`)
            rest.split_whitespace().filter_map(|kv| kv.rsplit_once('=')).map(|(k, v)| (k.to_owned(), v.to_owned())).collect()
        };
        if let Some(rest) = line.strip_prefix("RESULT ") {
            let f = fields(rest);
            let get = |k: &str| f.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str());
            if get("check") != Some("ok") {
                bail!("wrong result ({line})");
            }
            time = get("time_s").and_then(|t| t.parse::<f64>().ok());
            steady = get("steady_s").and_then(|t| t.parse::<f64>().ok());
        } else if let Some(rest) = line.strip_prefix("DECISIONS ") {
            let f = fields(rest);
            let region = f.iter().find(|(k, _)| k == "region").map(|(_, v)| v.clone()).unwrap_or_default();
            let counts = f.iter().filter(|(k, _)| k != "region").map(|(k, v)| (k.clone(), v.parse().unwrap_or(0))).collect();
            decisions.push((region, counts));
        }
    }
    let time_s = time.ok_or_else(|| anyhow!("no RESULT line"))?;
    Ok(Output { time_s, steady_s: steady.unwrap_or(time_s), decisions, steps: 0, report: None })
}

/// [`run`] with the runtime's JSON report written to `report` and read into the output.
pub fn run_reported(exe: &Path, input: u64, steps: u64, cwd: &Path, env: &[(&str, String)], report: &Path) -> Result<Output> {
    let _ = std::fs::remove_file(report);
    let mut env = env.to_vec();
    env.push(("OMPADAPT_REPORT", format!("json:{}", report.display())));
    let mut o = run(exe, input, steps, cwd, &env)?;
    o.report = Some(run_report::read(report).with_context(|| format!("{} {input}: its report", exe.display()))?);
    Ok(o)
}

/// Runs `exe input steps` in `cwd` with only `env` among the `OMPADAPT_*` variables.
pub fn run(exe: &Path, input: u64, steps: u64, cwd: &Path, env: &[(&str, String)]) -> Result<Output> {
    let mut c = Command::new(exe);
    c.arg(input.to_string()).arg(steps.to_string()).current_dir(cwd);
    for (k, _) in std::env::vars() {
        if k.starts_with("OMPADAPT_") {
            c.env_remove(k);
        }
    }
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().with_context(|| format!("cannot run {}", exe.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let what = || {
        let vars: Vec<String> = env.iter().filter(|(k, _)| *k != "OMPADAPT_DIR").map(|(k, v)| format!("{k}={v}")).collect();
        format!("{} {input} ({})", exe.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(), vars.join(" "))
    };
    let parsed = parse(&stdout).with_context(what);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().last().unwrap_or("").to_owned();
        return Err(parsed.err().unwrap_or_else(|| anyhow!("exit status {}: {last}", out.status))).with_context(what);
    }
    parsed.map(|o| Output { steps, ..o })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_result_or_no_result_is_an_error() {
        let good = "RESULT kernel=heat2d n=32 steps=20 time_s=0.001 steady_s=0.0009 check=ok err=0\nDECISIONS region=heat cpu=18 gpu=2\n";
        let o = parse(good).unwrap();
        assert_eq!((o.time_s, o.steady_s), (0.001, 0.0009));
        assert_eq!(o.decisions, vec![("heat".to_owned(), vec![("cpu".to_owned(), 18), ("gpu".to_owned(), 2)])]);
        assert_eq!((o.majority(), o.minority_executions()), (vec![0], 2));
        let wrong = good.replace("check=ok err=0", "check=FAILED err=4.17");
        assert!(parse(&wrong).unwrap_err().to_string().contains("wrong result"));
        assert!(parse("DECISIONS region=heat cpu=1 gpu=0\n").unwrap_err().to_string().contains("no RESULT"));
        let kinds = good.replace("cpu=18 gpu=2", "thread_limit=64=3 coschedule=0.25=17");
        let o = parse(&kinds).unwrap();
        assert_eq!(o.decisions[0].1, vec![("thread_limit=64".to_owned(), 3), ("coschedule=0.25".to_owned(), 17)]);
        let host = good.replace("cpu=18 gpu=2", "serial=3 schedule=dynamic,16=17");
        assert_eq!(parse(&host).unwrap().decisions[0].1, vec![("serial".to_owned(), 3), ("schedule=dynamic,16".to_owned(), 17)]);
    }

    #[test]
    fn csv_fields_with_commas_are_quoted() {
        assert_eq!(csv_field("jacobi:serial"), "jacobi:serial");
        assert_eq!(csv_field("jacobi:schedule=dynamic,16"), "\"jacobi:schedule=dynamic,16\"");
        assert_eq!(csv_field("a\"b,c"), "\"a\"\"b,c\"");
    }
}
