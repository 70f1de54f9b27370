//! What the tool is asked to do, from the environment.
//!
//! | variable | default | meaning |
//! |---|---|---|
//! | `OMPADAPT_DATA` | unset | `1` (or `text`): analyse and print the report on stderr at exit; `json:<file>`: write the report as JSON to `<file>` (`%p` in it becomes the process id) (and a one-line summary on stderr); `text:<file>`: the text report to `<file>`; `counters`: no report, only the per-thread counters the ompadapt runtime reads (no hashing); `0`: off. Unset: off (the tool does not register with the OpenMP runtime). |
//! | `OMPADAPT_DATA_MEM` | `64M` | Cap on the memory the analysis holds (suffix `K`, `M`, `G`). Past it the oldest detail is forgotten and the report says how much. |
//! | `OMPADAPT_DATA_TOP` | `20` | Rows per table in the text report (the JSON has every row). |
//! | `OMPADAPT_DATA_TRACE` | `0` | `1`: every OMPT event on stderr as it arrives (for debugging the tool). |
//!
//! In secure-execution mode (set-user-ID and the like: `getauxval(AT_SECURE) != 0`) none of
//! these is read and the tool stays off, as the ompadapt runtime does.

use std::path::PathBuf;

/// Where the report goes (`OMPADAPT_DATA`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Text report on stderr.
    Stderr,
    /// Text report written to a file.
    Text(PathBuf),
    /// JSON report written to a file (plus a summary line on stderr).
    Json(PathBuf),
    /// No report: only the per-thread counters (for the adaptive runtime).
    CountersOnly,
}

/// The tool's settings, from the environment.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where the report goes.
    pub output: Output,
    /// Most bytes the tool's own tables may hold (`OMPADAPT_DATA_MEM`).
    pub mem_cap: usize,
    /// Rows per table in the text report (`OMPADAPT_DATA_TOP`).
    pub top: usize,
    /// Every OMPT event on stderr (`OMPADAPT_DATA_TRACE`).
    pub trace: bool,
}

/// The memory cap when none is asked for (64 MiB).
pub const DEFAULT_MEM_CAP: usize = 64 << 20;
/// Below this the tables cannot hold enough to be useful; smaller requests are raised to it.
pub const MIN_MEM_CAP: usize = 256 << 10;

/// Whether the process runs in secure-execution mode (set-user-ID, set-group-ID, capabilities):
/// then the environment is not the user's to trust.
pub fn secure_execution() -> bool {
    // SAFETY: getauxval has no preconditions.
    unsafe { libc::getauxval(libc::AT_SECURE) != 0 }
}

impl Config {
    /// The configuration from the process environment; `None` when the tool should stay off.
    pub fn from_env() -> Option<Config> {
        if secure_execution() {
            // Only the names are looked at, to say once what was not honoured.
            let ignored: Vec<String> =
                std::env::vars_os().filter_map(|(k, _)| k.into_string().ok()).filter(|k| k.starts_with("OMPADAPT_DATA")).collect();
            if !ignored.is_empty() {
                warn(&format!(
                    "secure-execution mode (set-user-ID, set-group-ID or capabilities): ignored {}; no analysis, no report",
                    ignored.join(", ")
                ));
            }
            return None;
        }
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// The configuration read through `get`; `None` when the tool should stay off. Malformed
    /// values give one warning line on stderr and their default.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Option<Config> {
        let var = |name: &str| get(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let output = parse_output(&var("OMPADAPT_DATA")?)?;
        let mut c = Config { output, mem_cap: DEFAULT_MEM_CAP, top: 20, trace: false };
        if let Some(v) = var("OMPADAPT_DATA_MEM") {
            match parse_size(&v) {
                Some(n) => c.mem_cap = n.max(MIN_MEM_CAP),
                None => warn(&format!("OMPADAPT_DATA_MEM='{v}' ignored: expected a size such as 64M")),
            }
        }
        if let Some(v) = var("OMPADAPT_DATA_TOP") {
            match v.parse::<usize>() {
                Ok(n) if n > 0 => c.top = n,
                _ => warn(&format!("OMPADAPT_DATA_TOP='{v}' ignored: expected a positive number")),
            }
        }
        c.trace = var("OMPADAPT_DATA_TRACE").is_some_and(|v| v == "1");
        Some(c)
    }
}

/// A report path, with `%p` replaced by the process id (one report per process when a
/// launched script runs several programs).
fn report_path(f: &str) -> PathBuf {
    PathBuf::from(f.trim().replace("%p", &std::process::id().to_string()))
}

fn parse_output(v: &str) -> Option<Output> {
    if let Some(f) = v.strip_prefix("json:") {
        return if f.trim().is_empty() { bad_output(v) } else { Some(Output::Json(report_path(f))) };
    }
    if let Some(f) = v.strip_prefix("text:") {
        return if f.trim().is_empty() { bad_output(v) } else { Some(Output::Text(report_path(f))) };
    }
    match v.to_ascii_lowercase().as_str() {
        "1" | "on" | "yes" | "true" | "text" => Some(Output::Stderr),
        "counters" => Some(Output::CountersOnly),
        "0" | "off" | "no" | "false" => None,
        _ => bad_output(v),
    }
}

fn bad_output(v: &str) -> Option<Output> {
    warn(&format!("OMPADAPT_DATA='{v}' ignored (tool off): expected 1, json:<file>, text:<file>, counters or 0"));
    None
}

/// `123`, `64K`, `64M`, `1G` (binary multiples), `64MiB`, `64MB`.
pub fn parse_size(v: &str) -> Option<usize> {
    let v = v.trim();
    let digits = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (num, unit) = v.split_at(digits);
    let n: usize = num.parse().ok()?;
    let mult: usize = match unit.trim().to_ascii_uppercase().trim_end_matches("IB").trim_end_matches('B') {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// One line on stderr, prefixed like every ompadapt diagnostic.
pub fn warn(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "ompadapt-dataperf: warning: {msg}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(pairs: &[(&str, &str)]) -> Option<Config> {
        let m: std::collections::HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(|k| m.get(k).cloned())
    }

    #[test]
    fn off_unless_asked() {
        assert!(cfg(&[]).is_none());
        assert!(cfg(&[("OMPADAPT_DATA", "0")]).is_none());
        assert!(cfg(&[("OMPADAPT_DATA", "  ")]).is_none());
        assert!(cfg(&[("OMPADAPT_DATA", "bogus")]).is_none());
        assert!(cfg(&[("OMPADAPT_DATA", "json:")]).is_none());
    }

    #[test]
    fn outputs() {
        assert_eq!(cfg(&[("OMPADAPT_DATA", "1")]).unwrap().output, Output::Stderr);
        assert_eq!(cfg(&[("OMPADAPT_DATA", "json:/tmp/r.json")]).unwrap().output, Output::Json("/tmp/r.json".into()));
        assert_eq!(cfg(&[("OMPADAPT_DATA", "text: r.txt")]).unwrap().output, Output::Text("r.txt".into()));
        assert_eq!(cfg(&[("OMPADAPT_DATA", "counters")]).unwrap().output, Output::CountersOnly);
        let pid = std::process::id();
        assert_eq!(cfg(&[("OMPADAPT_DATA", "json:r.%p.json")]).unwrap().output, Output::Json(format!("r.{pid}.json").into()));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("64K"), Some(64 << 10));
        assert_eq!(parse_size("8M"), Some(8 << 20));
        assert_eq!(parse_size("2GiB"), Some(2 << 30));
        assert_eq!(parse_size("3mb"), Some(3 << 20));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("12Q"), None);
        let c = cfg(&[("OMPADAPT_DATA", "1"), ("OMPADAPT_DATA_MEM", "1K")]).unwrap();
        assert_eq!(c.mem_cap, MIN_MEM_CAP);
        let c = cfg(&[("OMPADAPT_DATA", "1"), ("OMPADAPT_DATA_MEM", "lots")]).unwrap();
        assert_eq!(c.mem_cap, DEFAULT_MEM_CAP);
    }
}
