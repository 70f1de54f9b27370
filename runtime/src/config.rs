//! Runtime configuration, read once from the environment.
//!
//! | Variable           | Default       | Meaning |
//! |--------------------|---------------|---------|
//! | `OMPADAPT_REPORT`  | `0`           | `1`: at exit, print a per-region report on stderr (executions, training samples, mean/median time per feature vector and variant, the trained model, the current decision per feature vector). |
//! | `OMPADAPT_DIR`     | `./.ompadapt` | Directory of persisted samples; each program gets `<dir>/<program-name>/<model>.json`. |
//! | `OMPADAPT_PERSIST` | `1`           | `0`: neither load samples at region creation nor save them at exit. |
//! | `OMPADAPT_WARMUP`  | `1`           | `0`: record the first execution of each variant too (by default it runs but is not recorded, because the first offload initialises the device). |
//! | `OMPADAPT_MODEL`   | (unset)       | Override the model of every region: `dtree[,max_depth]` or `rfc[,trees[,max_depth]]`, e.g. `dtree,3` or `rfc,10,2`. |
//!
//! Booleans accept `1/0`, `true/false`, `yes/no`, `on/off`; anything else keeps the default and
//! prints one warning line.

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::diag;
use crate::model::ModelChoice;

/// The runtime configuration. See the module documentation for the variables.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// `OMPADAPT_REPORT`.
    pub report: bool,
    /// `OMPADAPT_PERSIST`.
    pub persist: bool,
    /// `OMPADAPT_DIR`.
    pub dir: PathBuf,
    /// `OMPADAPT_WARMUP`.
    pub warmup: bool,
    /// `OMPADAPT_MODEL`.
    pub model_override: Option<ModelChoice>,
    /// Name of the program, the sub-directory of `dir` its samples go to.
    pub program: String,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            report: false,
            persist: true,
            dir: PathBuf::from(".ompadapt"),
            warmup: true,
            model_override: None,
            program: program_name(),
        }
    }
}

impl Config {
    /// Reads the configuration from the process environment.
    pub fn from_env() -> Config {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads the configuration through `get` (the environment, or a map in tests).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Config {
        let mut c = Config::default();
        c.report = bool_var(&get, "OMPADAPT_REPORT", c.report);
        c.persist = bool_var(&get, "OMPADAPT_PERSIST", c.persist);
        c.warmup = bool_var(&get, "OMPADAPT_WARMUP", c.warmup);
        if let Some(d) = get("OMPADAPT_DIR").filter(|d| !d.is_empty()) {
            c.dir = PathBuf::from(d);
        }
        if let Some(m) = get("OMPADAPT_MODEL").filter(|m| !m.trim().is_empty()) {
            match ModelChoice::parse_override(&m) {
                Ok(choice) => c.model_override = Some(choice),
                Err(e) => diag::warn(&format!("OMPADAPT_MODEL='{m}' ignored: {e}")),
            }
        }
        c
    }
}

/// The process configuration, read from the environment on first use.
pub fn config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(Config::from_env)
}

fn bool_var(get: &impl Fn(&str) -> Option<String>, name: &str, default: bool) -> bool {
    let Some(v) = get(name) else { return default };
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => true,
        "0" | "false" | "no" | "off" => false,
        "" => default,
        _ => {
            diag::warn(&format!("{name}='{v}' is not a boolean (use 1 or 0); using {}", default as u8));
            default
        }
    }
}

/// The executable's file name (`/proc/self/exe`), or `argv[0]`'s, or `unknown-program`.
pub fn program_name() -> String {
    let from_path = |p: PathBuf| p.file_name().map(|n| n.to_string_lossy().into_owned());
    std::env::current_exe()
        .ok()
        .and_then(from_path)
        .or_else(|| std::env::args_os().next().map(PathBuf::from).and_then(from_path))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "unknown-program".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelChoice;
    use std::collections::HashMap;

    fn cfg(vars: &[(&str, &str)]) -> Config {
        let m: HashMap<String, String> =
            vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(|k| m.get(k).cloned())
    }

    #[test]
    fn defaults() {
        let c = cfg(&[]);
        assert!(!c.report && c.persist && c.warmup);
        assert_eq!(c.dir, PathBuf::from(".ompadapt"));
        assert_eq!(c.model_override, None);
        assert!(!c.program.is_empty());
    }

    #[test]
    fn values() {
        let c = cfg(&[
            ("OMPADAPT_REPORT", "1"),
            ("OMPADAPT_PERSIST", "off"),
            ("OMPADAPT_WARMUP", "0"),
            ("OMPADAPT_DIR", "/tmp/x"),
            ("OMPADAPT_MODEL", "rfc,5,3"),
        ]);
        assert!(c.report && !c.persist && !c.warmup);
        assert_eq!(c.dir, PathBuf::from("/tmp/x"));
        assert_eq!(c.model_override, Some(ModelChoice::Forest { trees: 5, max_depth: 3 }));
        let c = cfg(&[("OMPADAPT_MODEL", "dtree,3"), ("OMPADAPT_REPORT", "maybe")]);
        assert_eq!(c.model_override, Some(ModelChoice::Tree { max_depth: 3 }));
        assert!(!c.report);
        assert_eq!(cfg(&[("OMPADAPT_MODEL", "svm")]).model_override, None);
    }
}
