//! A store (`OMPADAPT_DIR`) that cannot be written: a file, a path below a file, `/proc`, a
//! read-only directory, a full disk. The first save that meets it says so once, with where,
//! why and what is not saved; at exit, that it is lost; data kept for a later save is saved
//! once the store can be written. Nothing is lost silently.
//!
//! The processes are this test binary itself, re-run with `OMPADAPT_TEST_CHILD` set. The
//! read-only directory and the full disk are real file systems (a read-only tmpfs, a tmpfs of
//! 64 KiB filled up) mounted in a private mount namespace (`unshare -m`); where that is not
//! permitted those two cases say so and fail unless `OMPADAPT_TEST_NO_NAMESPACES=1` allows it.

use std::os::raw::{c_char, c_void};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::ptr::null_mut;

use ompadapt_rt::store;
use ompadapt_rt::{ompadapt_begin, ompadapt_end, ompadapt_save, Ctx};

const SPEC: &[u8] = b"ompadapt1;model=paths;loc=store_paths.rs:1;features=n;variants=a,b\0";
/// Executions per child round: 5 vectors, each variant once.
const PER_ROUND: u64 = 10;

fn record_round(slot: &mut *mut c_void, round: u64) {
    for i in 0..PER_ROUND {
        let f = [(round * 100 + i / 2) as f64];
        let mut c = Ctx::zeroed();
        unsafe {
            ompadapt_begin(slot, SPEC.as_ptr() as *const c_char, 1_000_000, -1, -1, f.as_ptr(), 1, &mut c);
            ompadapt_end(&mut c);
        }
    }
}

/// The body of a child process (does nothing in a normal test run).
#[test]
fn child() {
    if std::env::var("OMPADAPT_TEST_CHILD").is_err() {
        return;
    }
    let mut slot: *mut c_void = null_mut();
    record_round(&mut slot, 0);
    if let Ok(blocker) = std::env::var("OMPADAPT_TEST_BLOCKER") {
        // the store is a file: a periodic save keeps the data; once the file is gone the
        // next save writes it all
        assert_eq!(ompadapt_save(), 0, "nothing can be written");
        std::fs::remove_file(blocker).unwrap();
        record_round(&mut slot, 1);
        assert_eq!(ompadapt_save(), 1, "rounds 0 and 1 saved");
    }
    // the rest is saved (or not) by the exit handler
}

struct Case {
    dir: PathBuf,
}

impl Case {
    fn new(tag: &str) -> Case {
        let dir = std::env::temp_dir().join(format!("ompadapt-paths-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Case { dir }
    }

    /// Runs a child with `OMPADAPT_DIR=store`, under `wrapper` (a shell command that ends by
    /// running `"$@"`) when given.
    fn run(&self, store: &Path, env: &[(&str, &str)], wrapper: Option<&str>) -> Output {
        let exe = std::env::current_exe().unwrap();
        let mut c = match wrapper {
            Some(w) => {
                let mut c = Command::new("unshare");
                c.args(["-m", "--propagation", "private", "sh", "-c", w, "sh"]).arg(exe);
                c
            }
            None => Command::new(exe),
        };
        c.args(["--exact", "child", "--nocapture", "--test-threads=1"])
            .env("OMPADAPT_TEST_CHILD", "1")
            .env("OMPADAPT_DIR", store)
            .env("OMPADAPT_WARMUP", "0")
            .env("OMPADAPT_EXPLORE_ONLY", "1")
            .env_remove("OMPADAPT_REPORT")
            .env_remove("OMPADAPT_PERSIST")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    }
}

impl Drop for Case {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The lines that speak of saving (or not saving) region 'paths'.
fn save_lines(err: &str) -> Vec<&str> {
    err.lines().filter(|l| l.contains("'paths'")).collect()
}

/// At exit: exactly one line, naming the store, the reason, what is lost.
fn assert_lost_once(out: &Output, store: &Path, reason: &str) {
    let err = stderr(out);
    assert!(out.status.success(), "{err}");
    let lines = save_lines(&err);
    assert_eq!(lines.len(), 1, "one line says the data is lost:\n{err}");
    let l = lines[0];
    assert!(l.contains(&format!("cannot save to the store {}", store.display())), "names the store:\n{err}");
    assert!(l.contains(reason), "says why ({reason}):\n{err}");
    assert!(l.contains(&format!("{PER_ROUND} measurements of region 'paths'")), "says what:\n{err}");
    assert!(l.contains("are lost") && !l.contains("next save"), "says it is lost:\n{err}");
}

#[test]
fn a_file_as_the_store() {
    if std::env::var("OMPADAPT_TEST_CHILD").is_ok() {
        return;
    }
    let case = Case::new("file");
    let store = case.dir.join("saxpy.c");
    std::fs::write(&store, "int main;").unwrap();
    let out = case.run(&store, &[], None);
    assert_lost_once(&out, &store, "is not a directory");
    assert_eq!(std::fs::read_to_string(&store).unwrap(), "int main;", "the file is left alone");
}

#[test]
fn a_path_below_a_file() {
    if std::env::var("OMPADAPT_TEST_CHILD").is_ok() {
        return;
    }
    let case = Case::new("below");
    let file = case.dir.join("notes.txt");
    std::fs::write(&file, "").unwrap();
    let store = file.join("store");
    let out = case.run(&store, &[], None);
    assert_lost_once(&out, &store, &format!("{} is not a directory", file.display()));
}

#[test]
fn a_store_in_proc() {
    if std::env::var("OMPADAPT_TEST_CHILD").is_ok() {
        return;
    }
    let case = Case::new("proc");
    let store = PathBuf::from("/proc/nope");
    let out = case.run(&store, &[], None);
    assert_lost_once(&out, &store, "cannot be created");
}

/// A periodic save says the data is kept; once the store can be written, it is all saved.
#[test]
fn data_kept_by_a_failed_save_is_saved_when_the_store_is_fixed() {
    if std::env::var("OMPADAPT_TEST_CHILD").is_ok() {
        return;
    }
    let case = Case::new("fixed");
    let store = case.dir.join("store");
    std::fs::write(&store, "").unwrap();
    let out = case.run(&store, &[("OMPADAPT_TEST_BLOCKER", store.to_str().unwrap())], None);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let lines = save_lines(&err);
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("not saved now") && lines[0].contains("kept in memory"), "{err}");
    let saved = store::export(&store, None, Some("paths"));
    let measurements: u64 = saved.iter().flat_map(|f| &f.samples).map(|s| s.count).sum();
    assert_eq!(measurements, 2 * PER_ROUND, "both rounds on disk: {saved:?}\n{err}");
}

/// Runs `body` (a shell command run in a private mount namespace before the child) and says
/// whether namespaces are available at all.
fn namespaces_available() -> bool {
    let ok = Command::new("unshare").args(["-m", "--propagation", "private", "true"]).status().is_ok_and(|s| s.success());
    if !ok {
        let allowed = std::env::var("OMPADAPT_TEST_NO_NAMESPACES").as_deref() == Ok("1");
        assert!(allowed, "`unshare -m` is not permitted here: the read-only and full-disk cases need a mount namespace (OMPADAPT_TEST_NO_NAMESPACES=1 skips them)");
        eprintln!("skipped: `unshare -m` is not permitted here");
    }
    ok
}

#[test]
fn a_read_only_directory() {
    if std::env::var("OMPADAPT_TEST_CHILD").is_ok() || !namespaces_available() {
        return;
    }
    let case = Case::new("ro");
    let store = case.dir.join("ro");
    std::fs::create_dir_all(&store).unwrap();
    let wrapper = format!("mount -t tmpfs -o ro,size=64k none '{}' && exec \"$@\"", store.display());
    let out = case.run(&store, &[], Some(&wrapper));
    assert_lost_once(&out, &store, "Read-only file system");
}

#[test]
fn a_full_disk() {
    if std::env::var("OMPADAPT_TEST_CHILD").is_ok() || !namespaces_available() {
        return;
    }
    let case = Case::new("full");
    let store = case.dir.join("full");
    std::fs::create_dir_all(&store).unwrap();
    // a 64 KiB file system, filled before the program starts
    let wrapper = format!(
        "mount -t tmpfs -o size=64k none '{0}' && (dd if=/dev/zero of='{0}/filler' bs=4k count=64 2>/dev/null; true) && exec \"$@\"",
        store.display()
    );
    let out = case.run(&store, &[], Some(&wrapper));
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let lines = save_lines(&err);
    assert_eq!(lines.len(), 1, "one line says the data is lost:\n{err}");
    assert!(lines[0].contains("No space left on device"), "says why:\n{err}");
    assert!(lines[0].contains(&format!("{PER_ROUND} measurements")), "says what:\n{err}");
    assert!(lines[0].contains("lost") && !lines[0].contains("next save"), "says it is lost:\n{err}");
}
