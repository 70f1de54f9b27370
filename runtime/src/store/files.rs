//! File operations that keep many writers safe: atomic writes, the directory lock, moving a
//! damaged file aside. Everything goes through [`crate::safe_fs`]: no link in the store is
//! followed, created files are never writable by others, reads are bounded.

use std::path::Path;

use super::unix_ns;
use crate::diag;
use crate::safe_fs::{self, Dir};

/// Renames `name` in `dir` aside with `tag` and says so once. Silent if another process moved
/// it first.
pub(super) fn move_aside(dir: &Dir, name: &str, tag: &str, what: &str, todo: &str) {
    let aside = format!("{name}.{tag}-{}", unix_ns());
    let path = dir.join(name);
    match dir.rename(name, &aside) {
        Ok(()) => {
            diag::warn_once(
                &format!("aside:{}", path.display()),
                &format!("{} {what}; moved to {} and not loaded; {todo}", path.display(), dir.join(&aside).display()),
            );
        }
        Err(e) if e.is_not_found() => {}
        Err(e) => {
            diag::warn_once(
                &format!("aside:{}", path.display()),
                &format!("{} {what}; it could not be moved aside ({e}) and is ignored; {todo}", path.display()),
            );
        }
    }
}

/// Writes `bytes` to `path` atomically: a new temporary file in the same directory (never
/// through a link, never writable by others), fsync, rename. The directory is created if
/// missing.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    safe_fs::write_file_atomic(path, bytes).map_err(|e| write_error(path, e))
}

/// "cannot write PATH: why" (a refusal already names what it refused).
pub(super) fn write_error(path: &Path, e: safe_fs::Error) -> String {
    match e {
        safe_fs::Error::Io { err, .. } => format!("cannot write {}: {err}", path.display()),
        e => format!("cannot write {}: {e}", path.display()),
    }
}
