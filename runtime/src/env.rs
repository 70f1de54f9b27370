//! The one place the runtime reads its environment, and the secure-execution check.
//!
//! A program built with the plugin may be installed setuid or setgid, or with file
//! capabilities. The kernel then runs it in *secure-execution mode* (`getauxval(AT_SECURE)`
//! non-zero), and the environment belongs to a less privileged user: glibc's loader ignores
//! `LD_PRELOAD` and `LD_LIBRARY_PATH` for that reason, and ompadapt does the same with its own
//! variables. In that mode [`var`] answers "unset" for every name, so the runtime runs on its
//! built-in defaults, keeps what it learns in memory (no report, nothing saved unless the
//! program names a store with `ompadapt_set_dir`), and [`announce_ignored`] says once on
//! stderr which variables it ignored.
//!
//! Every reader goes through [`var`]: `config` (the `OMPADAPT_*` table), the Apollo ABI
//! (`APOLLO_POLICY_MODEL`), the MPI launcher's rank variables (`mpi`) and the export tool
//! (`OMPADAPT_DIR`). The generated loader (`plugin/include/ompadapt_lowering.h`) makes the
//! same check in C before it reads `OMPADAPT_RUNTIME`. Other components (the OMPT tool) call
//! [`secure_execution`] and [`var`] too, and write files through [`crate::safe_fs`].

use std::sync::OnceLock;

use crate::diag;

/// Whether the process runs in secure-execution mode: setuid, setgid or file capabilities
/// (`getauxval(AT_SECURE)`; the kernel decides it at `execve`, so it is read once).
pub fn secure_execution() -> bool {
    static SECURE: OnceLock<bool> = OnceLock::new();
    // SAFETY: getauxval has no preconditions; 0 means "not secure" or "no such entry".
    *SECURE.get_or_init(|| unsafe { libc::getauxval(libc::AT_SECURE) } != 0)
}

/// The value of environment variable `name`, or `None` when it is unset, not UTF-8, or the
/// process runs in secure-execution mode (then nothing is read).
pub fn var(name: &str) -> Option<String> {
    if secure_execution() {
        return None;
    }
    std::env::var(name).ok()
}

/// Whether `name` is one of the variables ompadapt reads (its own and Apollo's).
fn ours(name: &str) -> bool {
    name.starts_with("OMPADAPT_") || name.starts_with("APOLLO_")
}

/// The names (never the values) of the ompadapt and Apollo variables present in the
/// environment, sorted: what secure-execution mode ignores.
pub fn present_names() -> Vec<String> {
    let mut names: Vec<String> = std::env::vars_os().filter_map(|(k, _)| k.into_string().ok()).filter(|k| ours(k)).collect();
    names.sort();
    names.dedup();
    names
}

/// The line [`announce_ignored`] prints for `names` (`None` when nothing was ignored).
pub fn ignored_message(names: &[String], store: Option<&std::path::Path>) -> Option<String> {
    if names.is_empty() {
        return None;
    }
    let kept = match store {
        Some(d) => format!("learned data is saved only in {} (the program's ompadapt_set_dir)", d.display()),
        None => "what the program learns stays in memory (no report, nothing saved)".to_owned(),
    };
    Some(format!("secure-execution mode (setuid, setgid or file capabilities): ignored {} from the environment; {kept}", names.join(", ")))
}

/// In secure-execution mode, says once on stderr which variables were ignored (nothing when
/// none was set, or when not in that mode). `store` is the directory the program named.
pub fn announce_ignored(store: Option<&std::path::Path>) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if !secure_execution() {
        return;
    }
    ONCE.call_once(|| {
        if let Some(m) = ignored_message(&present_names(), store) {
            diag::line(&m);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_secure_in_tests_and_reads_variables() {
        assert!(!secure_execution(), "the test runner is not setuid");
        std::env::set_var("OMPADAPT_ENV_MODULE_TEST", "42");
        assert_eq!(var("OMPADAPT_ENV_MODULE_TEST").as_deref(), Some("42"));
        assert!(present_names().iter().any(|n| n == "OMPADAPT_ENV_MODULE_TEST"));
        assert!(!present_names().iter().any(|n| n == "PATH"));
        std::env::remove_var("OMPADAPT_ENV_MODULE_TEST");
    }

    #[test]
    fn message_names_what_was_ignored() {
        assert_eq!(ignored_message(&[], None), None);
        let names = vec!["OMPADAPT_DIR".to_owned(), "OMPADAPT_REPORT".to_owned()];
        let m = ignored_message(&names, None).unwrap();
        assert!(m.contains("ignored OMPADAPT_DIR, OMPADAPT_REPORT") && m.contains("stays in memory"), "{m}");
        let m = ignored_message(&names, Some(std::path::Path::new("/var/lib/app"))).unwrap();
        assert!(m.contains("saved only in /var/lib/app"), "{m}");
    }
}
