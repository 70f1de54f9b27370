//! Writing the report file the way the ompadapt runtime writes its files: never through a
//! planted symbolic link, never world-writable, never half-written.
//!
//! The report goes to a new temporary file beside the target, created exclusively
//! (`O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0644 before the umask), and is then renamed over the
//! target. A rename replaces a symbolic link at the target instead of following it, and a reader
//! sees either the old file or the complete new one.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Writes `contents` to `path` as the module describes (temporary file, then rename).
pub fn write_report(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "report path names no file"))?;
    let mut last = None;
    for attempt in 0..16u32 {
        let tmp = dir.join(format!(".{}.{}.{attempt}.tmp", name.to_string_lossy(), std::process::id()));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp);
        let mut file = match file {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                last = Some(e);
                continue;
            }
            Err(e) => return Err(e),
        };
        // No fsync: a report need not survive a power cut, and a flush to a loaded disk would
        // lengthen the program's run by more than the analysis itself.
        let written = file.write_all(contents);
        drop(file);
        if let Err(e) = written.and_then(|_| std::fs::rename(&tmp, path)) {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        return Ok(());
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no temporary file name available")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn writes_and_replaces() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        write_report(&p, b"one").unwrap();
        write_report(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let mode = std::fs::metadata(&p).unwrap().permissions().mode();
        assert_eq!(mode & 0o002, 0, "world-writable: {mode:o}");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1, "temporary files left behind");
    }

    #[test]
    fn never_follows_a_planted_link() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let p = d.path().join("r.json");
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        write_report(&p, b"report").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(!std::fs::symlink_metadata(&p).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&p).unwrap(), b"report");
    }

    #[test]
    fn planted_temporary_link_is_skipped() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let p = d.path().join("r.json");
        let tmp0 = d.path().join(format!(".r.json.{}.0.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &tmp0).unwrap();
        write_report(&p, b"report").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(&p).unwrap(), b"report");
    }
}
