//! File operations that keep many writers safe: atomic writes, the directory lock, moving a
//! damaged file aside.

use std::fs;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use super::unix_ns;
use crate::diag;

/// An flock(2) lock on `<region dir>/.lock`, released on drop.
pub(super) struct Lock(fs::File);

impl Lock {
    pub(super) fn take(dir: &Path, exclusive: bool) -> std::io::Result<Lock> {
        let f = fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(".lock"))?;
        let op = if exclusive { libc::LOCK_EX } else { libc::LOCK_SH };
        loop {
            // SAFETY: a valid open descriptor.
            if unsafe { libc::flock(f.as_raw_fd(), op) } == 0 {
                return Ok(Lock(f));
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // SAFETY: a valid open descriptor (closing it would release the lock too).
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

/// Renames `path` aside with `tag` and says so once. Silent if another process moved it first.
pub(super) fn move_aside(path: &Path, tag: &str, what: &str, todo: &str) {
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".{tag}-{}", unix_ns()));
    let aside = PathBuf::from(aside);
    match fs::rename(path, &aside) {
        Ok(()) => {
            diag::warn_once(
                &format!("aside:{}", path.display()),
                &format!("{} {what}; moved to {} and not loaded; {todo}", path.display(), aside.display()),
            );
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            diag::warn_once(
                &format!("aside:{}", path.display()),
                &format!("{} {what}; it could not be moved aside ({e}) and is ignored; {todo}", path.display()),
            );
        }
    }
}


/// Writes `bytes` to `path` atomically: a temporary file in the same directory, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path.parent().ok_or("no parent directory")?;
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let name = path.file_name().ok_or("no file name")?.to_string_lossy();
    let tmp = dir.join(format!(".tmp-{name}-{}-{}", std::process::id(), unix_ns()));
    let write = || -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        // make the rename itself durable (best effort: not every filesystem allows it)
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

