//! Files in folders other users may write to (a group's shared store, `/tmp`, a project
//! directory): what ompadapt writes and reads there cannot be redirected by a planted link.
//!
//! * A [`Dir`] is an open directory descriptor. Everything below it is reached with `openat`
//!   and friends relative to that descriptor, with `O_NOFOLLOW`: a symbolic link where ompadapt
//!   expects its own directory or file is refused ([`Error::Symlink`]), never followed, and a
//!   directory renamed or replaced by a link after it was opened cannot redirect later
//!   operations.
//! * The directory a user or program names ([`Dir::open`]: a store root, a report's folder)
//!   is resolved as any path they give, except that a last component that is a symbolic link
//!   owned by someone other than the process's effective user (or root) is refused: another
//!   user planted it. In secure-execution mode a link of the invoking user is refused too.
//! * Files are created with `O_CREAT | O_EXCL | O_NOFOLLOW` under unique names and renamed into
//!   place (never written through an existing name), with mode `0664` and directories `0775`,
//!   minus the umask: never writable by others, whatever the umask.
//! * Reads are bounded ([`MAX_READ`]): a planted multi-gigabyte file is refused from its size
//!   before it is read, and a file that grows while being read stops at the bound. FIFOs and
//!   devices are refused without blocking (`O_NONBLOCK`, then a regular-file check).
//!
//! Renames and removals act on names in the directory, never through links. Component names
//! passed to [`Dir`] methods must be single path components (no `/`, not `.` or `..`).

use std::fmt;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

use rustix::fs::{self as rfs, AtFlags, FileType, FlockOperation, Mode, OFlags};
use rustix::io::Errno;

/// The most ompadapt reads from one stored file: 256 MiB. Its own files stay far below (a
/// region keeps at most 255 measurements per feature vector and variant: 256 MiB is some
/// 50 000 such pairs in one file); a larger file was planted or damaged and is refused.
pub const MAX_READ: u64 = 256 << 20;

/// Permissions of created files before the umask: not writable by others.
pub const FILE_MODE: u32 = 0o664;
/// Permissions of created directories before the umask: not writable by others.
pub const DIR_MODE: u32 = 0o775;

/// Why a file or directory was refused or could not be used.
#[derive(Debug)]
pub enum Error {
    /// A symbolic link where ompadapt follows none (the link's owner, if known).
    Symlink {
        /// The link.
        path: PathBuf,
        /// Its owner's uid (None: unknown).
        owner: Option<u32>,
    },
    /// Something other than a directory where a directory was expected.
    NotDirectory(PathBuf),
    /// A FIFO, socket or device where a regular file was expected.
    NotRegular(PathBuf),
    /// Larger than the bound of the read (its size, or the bound + 1 if it grew while read).
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size, bytes.
        size: u64,
        /// The bound, bytes.
        max: u64,
    },
    /// Nothing by that name.
    NotFound(PathBuf),
    /// A directory that could not be made (read-only file system, permissions, a parent that
    /// cannot hold directories such as `/proc`).
    CannotCreate {
        /// The directory.
        path: PathBuf,
        /// The failure.
        err: std::io::Error,
    },
    /// A name that is not a single path component.
    BadName(String),
    /// Any other I/O failure.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The failure.
        err: std::io::Error,
    },
}

impl Error {
    /// The file or directory concerned.
    pub fn path(&self) -> PathBuf {
        match self {
            Error::Symlink { path, .. } | Error::NotDirectory(path) | Error::NotRegular(path) | Error::NotFound(path) => path.clone(),
            Error::TooLarge { path, .. } | Error::Io { path, .. } | Error::CannotCreate { path, .. } => path.clone(),
            Error::BadName(n) => PathBuf::from(n),
        }
    }

    /// A link refused because another user could have planted it: nothing is read or written
    /// through it, which the first message says once.
    pub fn is_link(&self) -> bool {
        matches!(self, Error::Symlink { .. })
    }

    /// Nothing by that name.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound(_))
    }

    /// A refusal for safety (a link, a special file, a file too large), not an I/O failure.
    pub fn is_refusal(&self) -> bool {
        matches!(self, Error::Symlink { .. } | Error::NotRegular(_) | Error::TooLarge { .. } | Error::NotDirectory(_))
    }
}

impl Error {
    /// What is wrong, without the path: "is a symbolic link ...".
    pub fn reason(&self) -> String {
        match self {
            Error::Symlink { owner, .. } => {
                let by = owner.map(|u| format!(" (owned by uid {u})")).unwrap_or_default();
                format!(
                    "is a symbolic link{by}: refused, ompadapt follows no link that another user could \
                     have planted (use the real directory, or remove the link)"
                )
            }
            Error::NotDirectory(_) => "is not a directory".into(),
            Error::NotRegular(_) => "is not a regular file: refused".into(),
            Error::TooLarge { size, max, .. } => {
                format!("is {} MiB, more than the {} MiB ompadapt reads from one stored file: refused", size.div_ceil(1 << 20), max >> 20)
            }
            Error::NotFound(_) => "does not exist".into(),
            Error::CannotCreate { err, .. } => format!("cannot be created: {err}"),
            Error::BadName(_) => "is not a single file name".into(),
            Error::Io { err, .. } => format!("cannot be used: {err}"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadName(n) => write!(f, "'{n}' {}", self.reason()),
            e => write!(f, "{} {}", e.path().display(), e.reason()),
        }
    }
}

impl std::error::Error for Error {}

/// A failed `mkdir -p path`: something that is not a directory on the way, or a directory
/// that cannot be made.
fn cannot_create(path: &Path, err: std::io::Error) -> Error {
    let blocked = path.ancestors().find(|a| std::fs::symlink_metadata(a).is_ok_and(|m| !m.is_dir()));
    match blocked {
        Some(a) if err.kind() != std::io::ErrorKind::PermissionDenied => Error::NotDirectory(a.to_path_buf()),
        _ => Error::CannotCreate { path: path.to_path_buf(), err },
    }
}

fn io(path: &Path, e: impl Into<std::io::Error>) -> Error {
    let err: std::io::Error = e.into();
    if err.kind() == std::io::ErrorKind::NotFound {
        Error::NotFound(path.to_path_buf())
    } else {
        Error::Io { path: path.to_path_buf(), err }
    }
}

/// Whether a link owned by `uid` was made by this process's user (or root), not planted. In
/// secure-execution mode the invoking (real) user is not trusted: a setgid program runs with
/// that user's uid, and its links are the ones to distrust.
fn trusted_owner(uid: u32) -> bool {
    // SAFETY: geteuid and getuid have no preconditions.
    let (euid, ruid) = unsafe { (libc::geteuid(), libc::getuid()) };
    uid == 0 || (uid == euid && !(crate::env::secure_execution() && uid == ruid))
}

fn check_name(name: &str) -> Result<(), Error> {
    if name.is_empty() || name == "." || name == ".." || name.contains('/') || name.contains('\0') {
        return Err(Error::BadName(name.to_owned()));
    }
    Ok(())
}

/// What a directory entry is (without following links).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// Anything else (FIFO, socket, device).
    Other,
}

/// An flock(2) lock on a directory's `.lock` file, released on drop.
pub struct Lock(OwnedFd);

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = rfs::flock(&self.0, FlockOperation::Unlock);
    }
}

/// An open directory; see the module documentation.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

impl Dir {
    /// Opens the directory `path` names, creating it (and its parents) when `create` is set
    /// and it is missing. The path is resolved as usual, but a last component that is a
    /// symbolic link owned by another user than this process's (or root) is refused.
    pub fn open(path: &Path, create: bool) -> Result<Dir, Error> {
        let path = if path.as_os_str().is_empty() { Path::new(".") } else { path };
        let refuse_foreign_link = || -> Result<(), Error> {
            match std::fs::symlink_metadata(path) {
                Ok(m) if m.file_type().is_symlink() && !trusted_owner(m.uid()) => {
                    Err(Error::Symlink { path: path.to_path_buf(), owner: Some(m.uid()) })
                }
                _ => Ok(()),
            }
        };
        refuse_foreign_link()?;
        if create {
            std::fs::DirBuilder::new().recursive(true).mode(DIR_MODE).create(path).map_err(|e| cannot_create(path, e))?;
        }
        let fd = rfs::open(path, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).map_err(|e| match e {
            Errno::NOTDIR => Error::NotDirectory(path.to_path_buf()),
            e => io(path, e),
        })?;
        // Checked again once open: a link swapped in between the check and the open is seen.
        refuse_foreign_link()?;
        Ok(Dir { fd, path: path.to_path_buf() })
    }

    /// The path this directory was reached by (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether this process may create files here (the kernel's answer for its effective ids;
    /// a read-only file system answers no).
    pub fn writable(&self) -> Result<(), Error> {
        rfs::accessat(&self.fd, ".", rfs::Access::WRITE_OK, AtFlags::EACCESS)
            .map_err(|e| Error::Io { path: self.path.clone(), err: e.into() })
    }

    /// `path()/name`, for messages.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// What `name` is, without following a link (`None`: it does not exist).
    pub fn kind(&self, name: &str) -> Option<(Kind, rfs::Stat)> {
        let st = rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
        let kind = match FileType::from_raw_mode(st.st_mode) {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Symlink,
            _ => Kind::Other,
        };
        Some((kind, st))
    }

    /// The refusal for `name` after an open that failed with ELOOP/ENOTDIR.
    fn classify(&self, name: &str, not_wanted: Error) -> Error {
        match self.kind(name) {
            Some((Kind::Symlink, st)) => Error::Symlink { path: self.join(name), owner: Some(st.st_uid) },
            _ => not_wanted,
        }
    }

    /// Opens the sub-directory `name`, creating it (mode [`DIR_MODE`] minus the umask) when
    /// `create` is set; a symbolic link there is refused.
    pub fn sub(&self, name: &str, create: bool) -> Result<Dir, Error> {
        check_name(name)?;
        let path = self.join(name);
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        for _ in 0..2 {
            match rfs::openat(&self.fd, name, flags, Mode::empty()) {
                Ok(fd) => return Ok(Dir { fd, path }),
                Err(Errno::LOOP | Errno::NOTDIR) => return Err(self.classify(name, Error::NotDirectory(path))),
                Err(Errno::NOENT) if create => match rfs::mkdirat(&self.fd, name, Mode::from_raw_mode(DIR_MODE)) {
                    Ok(()) | Err(Errno::EXIST) => continue,
                    Err(e) => return Err(Error::CannotCreate { path, err: e.into() }),
                },
                Err(e) => return Err(io(&path, e)),
            }
        }
        Err(Error::NotFound(path))
    }

    /// Opens the regular file `name` read-only (`extra`: `CREATE` makes it, mode [`FILE_MODE`]
    /// minus the umask), never through a link and without blocking on a FIFO; anything but a
    /// regular file is refused.
    fn open_regular(&self, name: &str, extra: OFlags) -> Result<(OwnedFd, rfs::Stat, PathBuf), Error> {
        check_name(name)?;
        let path = self.join(name);
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | extra;
        let fd = match rfs::openat(&self.fd, name, flags, Mode::from_raw_mode(FILE_MODE)) {
            Ok(fd) => fd,
            Err(Errno::LOOP) => return Err(self.classify(name, Error::NotRegular(path))),
            // a socket (or a device without a driver) cannot be opened at all
            Err(Errno::NXIO | Errno::NODEV | Errno::OPNOTSUPP) => return Err(Error::NotRegular(path)),
            Err(e) => return Err(io(&path, e)),
        };
        let st = rfs::fstat(&fd).map_err(|e| io(&path, e))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Err(Error::NotRegular(path));
        }
        Ok((fd, st, path))
    }

    /// Reads the regular file `name`, at most `max` bytes: larger files, links, FIFOs and
    /// devices are refused (without blocking on a FIFO).
    pub fn read(&self, name: &str, max: u64) -> Result<Vec<u8>, Error> {
        let (fd, st, path) = self.open_regular(name, OFlags::empty())?;
        let size = st.st_size.max(0) as u64;
        if size > max {
            return Err(Error::TooLarge { path, size, max });
        }
        let mut buf = Vec::with_capacity(size as usize);
        File::from(fd).take(max.saturating_add(1)).read_to_end(&mut buf).map_err(|e| io(&path, e))?;
        if buf.len() as u64 > max {
            return Err(Error::TooLarge { path, size: buf.len() as u64, max });
        }
        Ok(buf)
    }

    /// [`Dir::read`] as UTF-8 text (invalid UTF-8 is an I/O error of kind InvalidData).
    pub fn read_to_string(&self, name: &str, max: u64) -> Result<String, Error> {
        let bytes = self.read(name, max)?;
        String::from_utf8(bytes).map_err(|e| io(&self.join(name), std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
    }

    /// Writes `bytes` as `name` atomically: a new temporary file (`O_EXCL | O_NOFOLLOW`, mode
    /// [`FILE_MODE`] minus the umask), fsync, rename over `name` (which replaces a link named
    /// `name` rather than writing through it), fsync of the directory.
    pub fn write_atomic(&self, name: &str, bytes: &[u8]) -> Result<(), Error> {
        self.write_atomic_with(name, |w| w.write_all(bytes))
    }

    /// [`Dir::write_atomic`] without either fsync: as atomic against a process killed at any
    /// point (the rename publishes a complete file or none), not against a power failure,
    /// after which the file may be missing or empty (an empty file is set aside unread, said
    /// in one line). For what losing costs nothing but statistics: a run's model-chosen
    /// execution counts, whose two fsyncs can take longer than the run (a loaded disk).
    pub fn write_atomic_unsynced(&self, name: &str, bytes: &[u8]) -> Result<(), Error> {
        self.write_atomic_as(name, false, &mut |w| w.write_all(bytes))
    }

    /// [`Dir::write_atomic`] with the content written by `fill` through a buffer, for files too
    /// large to build in memory first (a trace).
    pub fn write_atomic_with(&self, name: &str, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), Error> {
        let mut fill = Some(fill);
        self.write_atomic_as(name, true, &mut |w| fill.take().map_or(Ok(()), |f| f(w)))
    }

    fn write_atomic_as(&self, name: &str, durable: bool, fill: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>) -> Result<(), Error> {
        check_name(name)?;
        let tmp = format!(".tmp-{name}-{}-{}", std::process::id(), unix_ns());
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rfs::openat(&self.fd, tmp.as_str(), flags, Mode::from_raw_mode(FILE_MODE)).map_err(|e| io(&self.join(&tmp), e))?;
        let write = || -> std::io::Result<()> {
            let mut f = File::from(fd);
            let mut buffered = std::io::BufWriter::with_capacity(1 << 16, &mut f);
            fill(&mut buffered)?;
            buffered.flush()?;
            drop(buffered);
            if durable {
                f.sync_all()?;
            }
            rfs::renameat(&self.fd, tmp.as_str(), &self.fd, name)?;
            if durable {
                // make the rename itself durable (best effort: not every filesystem allows it)
                let _ = rfs::fsync(&self.fd);
            }
            Ok(())
        };
        write().map_err(|e| {
            let _ = rfs::unlinkat(&self.fd, tmp.as_str(), AtFlags::empty());
            io(&self.join(name), e)
        })
    }

    /// Renames `from` to `to` in this directory (links are renamed, not followed).
    pub fn rename(&self, from: &str, to: &str) -> Result<(), Error> {
        check_name(from)?;
        check_name(to)?;
        rfs::renameat(&self.fd, from, &self.fd, to).map_err(|e| io(&self.join(from), e))
    }

    /// Removes the file `name` (a link is removed, not its target).
    pub fn remove(&self, name: &str) -> Result<(), Error> {
        check_name(name)?;
        rfs::unlinkat(&self.fd, name, AtFlags::empty()).map_err(|e| io(&self.join(name), e))
    }

    /// The entries of the directory (not `.` and `..`; names that are not UTF-8 are left out:
    /// ompadapt never writes such names).
    pub fn entries(&self) -> Result<Vec<(String, Kind)>, Error> {
        let mut d = rfs::Dir::read_from(&self.fd).map_err(|e| io(&self.path, e))?;
        let mut out = Vec::new();
        while let Some(e) = d.read() {
            let e = e.map_err(|e| io(&self.path, e))?;
            let Ok(name) = e.file_name().to_str() else { continue };
            if name == "." || name == ".." {
                continue;
            }
            let kind = match e.file_type() {
                FileType::RegularFile => Kind::File,
                FileType::Directory => Kind::Dir,
                FileType::Symlink => Kind::Symlink,
                FileType::Unknown => self.kind(name).map_or(Kind::Other, |(k, _)| k),
                _ => Kind::Other,
            };
            out.push((name.to_owned(), kind));
        }
        Ok(out)
    }

    /// Seconds since `name` was modified (`None`: it does not exist).
    pub fn age_secs(&self, name: &str) -> Option<u64> {
        let (_, st) = self.kind(name)?;
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?.as_secs() as i64;
        #[allow(clippy::unnecessary_cast)] // c_long: i64 here, i32 on 32-bit targets
        let mtime = st.st_mtime as i64;
        Some(now.saturating_sub(mtime).max(0) as u64)
    }

    /// Takes an flock(2) lock on `.lock` in this directory (created if missing, never through
    /// a link; opened read-only, which flock allows, so a shared store's lock file works for
    /// every user who can read it).
    pub fn lock(&self, exclusive: bool) -> Result<Lock, Error> {
        let (fd, _, path) = self.open_regular(".lock", OFlags::CREATE)?;
        let op = if exclusive { FlockOperation::LockExclusive } else { FlockOperation::LockShared };
        loop {
            match rfs::flock(&fd, op) {
                Ok(()) => return Ok(Lock(fd)),
                Err(Errno::INTR) => continue,
                Err(e) => return Err(io(&path, e)),
            }
        }
    }
}

fn unix_ns() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

/// Splits `path` into its folder (`.` when it has none) and file name.
fn split(path: &Path) -> Result<(&Path, &str), Error> {
    let name = path.file_name().and_then(|n| n.to_str()).ok_or_else(|| Error::BadName(path.display().to_string()))?;
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Ok((parent, name))
}

/// Writes the file `path` names atomically (see [`Dir::write_atomic`]), creating its folder if
/// missing. For files a user names, such as the report.
pub fn write_file_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let (parent, name) = split(path)?;
    Dir::open(parent, true)?.write_atomic(name, bytes)
}

/// [`write_file_atomic`] with the content written by `fill` (see [`Dir::write_atomic_with`]).
pub fn write_file_atomic_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), Error> {
    let (parent, name) = split(path)?;
    Dir::open(parent, true)?.write_atomic_with(name, fill)
}

/// Reads the file `path` names, at most `max` bytes (see [`Dir::read`]).
pub fn read_file(path: &Path, max: u64) -> Result<Vec<u8>, Error> {
    let (parent, name) = split(path)?;
    Dir::open(parent, false)?.read(name, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ompadapt-safe-fs-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn links_below_a_directory_are_refused_never_followed() {
        let d = tmp("links");
        let outside = d.join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("secret"), "x").unwrap();
        let root = Dir::open(&d.join("root"), true).unwrap();
        symlink(&outside, d.join("root/sub")).unwrap();
        symlink(outside.join("secret"), d.join("root/file")).unwrap();
        symlink(outside.join("new"), d.join("root/.lock")).unwrap();
        assert!(matches!(root.sub("sub", true), Err(Error::Symlink { .. })));
        assert!(matches!(root.read("file", MAX_READ), Err(Error::Symlink { .. })));
        assert!(matches!(root.lock(true), Err(Error::Symlink { .. })), "a dangling .lock link creates nothing");
        assert!(!outside.join("new").exists());
        // writing over a link replaces the link; the target is untouched
        root.write_atomic("file", b"mine").unwrap();
        assert_eq!(std::fs::read_to_string(outside.join("secret")).unwrap(), "x");
        assert_eq!(std::fs::read_to_string(d.join("root/file")).unwrap(), "mine");
        let msg = root.sub("sub", false).unwrap_err().to_string();
        assert!(msg.contains("is a symbolic link") && msg.contains("root/sub"), "{msg}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_named_directory_that_is_our_own_link_is_followed() {
        let d = tmp("own-link");
        std::fs::create_dir(d.join("real")).unwrap();
        symlink(d.join("real"), d.join("named")).unwrap();
        let dir = Dir::open(&d.join("named"), false).unwrap();
        dir.write_atomic("f", b"1").unwrap();
        assert!(d.join("real/f").exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn reads_are_bounded_and_special_files_refused() {
        let d = tmp("bounded");
        let dir = Dir::open(&d, false).unwrap();
        std::fs::write(d.join("big"), vec![b'x'; 4096]).unwrap();
        assert_eq!(dir.read("big", 4096).unwrap().len(), 4096);
        match dir.read("big", 4095) {
            Err(Error::TooLarge { size: 4096, max: 4095, .. }) => {}
            other => panic!("{other:?}"),
        }
        // a sparse file of 1 TiB is refused from its size, without reading it
        let f = File::create(d.join("huge")).unwrap();
        f.set_len(1 << 40).unwrap();
        let e = dir.read("huge", MAX_READ).unwrap_err();
        assert!(e.to_string().contains("1048576 MiB, more than the 256 MiB"), "{e}");
        // a FIFO does not block the reader
        rfs::mkfifoat(&dir.fd, "fifo", Mode::from_raw_mode(0o644)).unwrap();
        assert!(matches!(dir.read("fifo", MAX_READ), Err(Error::NotRegular(_))));
        assert!(matches!(dir.read("missing", MAX_READ), Err(Error::NotFound(_))));
        assert!(matches!(dir.read("../x", MAX_READ), Err(Error::BadName(_))));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn created_files_are_never_world_writable() {
        let d = tmp("modes");
        // SAFETY: umask only changes this process's creation mask; restored below.
        let old = unsafe { libc::umask(0) };
        let dir = Dir::open(&d.join("a"), true).unwrap();
        let sub = dir.sub("b", true).unwrap();
        sub.write_atomic("f", b"1").unwrap();
        drop(sub.lock(false).unwrap());
        unsafe { libc::umask(old) };
        for p in [d.join("a"), d.join("a/b"), d.join("a/b/f"), d.join("a/b/.lock")] {
            let mode = std::fs::metadata(&p).unwrap().permissions().mode();
            assert_eq!(mode & 0o002, 0, "{} is world-writable ({mode:o})", p.display());
        }
        assert_eq!(std::fs::metadata(d.join("a/b/f")).unwrap().permissions().mode() & 0o777, 0o664);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
