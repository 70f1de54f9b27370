//! One-line diagnostics on stderr. Never panics (a closed stderr is ignored), every line starts
//! with `ompadapt: `, and `warn_once` deduplicates by key so a region says a thing once.

use std::collections::HashSet;
use std::io::Write;
use std::sync::{Mutex, OnceLock};

/// Writes `ompadapt: warning: MSG` on stderr.
pub fn warn(msg: &str) {
    line(&format!("warning: {msg}"));
}

/// Writes `ompadapt: MSG` on stderr.
pub fn line(msg: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "ompadapt: {msg}");
}

/// Like [`warn`], but only the first time `key` is seen in this process. Returns whether it
/// printed.
pub fn warn_once(key: &str, msg: &str) -> bool {
    static SEEN: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    let seen = SEEN.get_or_init(|| Mutex::new(HashSet::new()));
    let first = seen.lock().unwrap_or_else(|e| e.into_inner()).insert(key.to_owned());
    if first {
        warn(msg);
    }
    first
}
