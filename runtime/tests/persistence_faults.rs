//! Persistence under faults a real run meets: processes killed with SIGKILL in the middle of
//! saves and compactions, a save that runs out of space, a FIFO where a data file should be.
//! Nothing recorded and saved may be lost, nothing may be counted twice.
//!
//! The processes are this test binary itself, re-run with `OMPADAPT_TEST_CHILD` set. A child
//! records its executions on feature vectors `(child, round)`, [`PER_ROUND`] per round, saves
//! after every round and appends `begin <round>` / `done <round>` to its own journal around
//! each round. So after any kill the truth is exact: every round the journal says is done has
//! exactly `PER_ROUND` measurements on disk, the round it was in has 0 or `PER_ROUND` (its part
//! may or may not have landed), no other round has any.
//!
//! `OMPADAPT_KILL_TRIALS=N` sets how many random kills the random-kill test makes (400 by
//! default, a few seconds per hundred kills).

use std::collections::HashMap;
use std::io::Write;
use std::os::raw::{c_char, c_void};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use ompadapt_rt::stats::XorShift;
use ompadapt_rt::store::{self, fault};
use ompadapt_rt::{ompadapt_begin, ompadapt_end, ompadapt_save, Ctx};

const PER_ROUND: u64 = 6;
const SPEC: &[u8] = b"ompadapt1;model=crash;loc=crash_safety.rs:1;features=child,round;variants=a,b,c\0";

fn journal_line(path: &Path, line: &str) {
    // one write(2) per line on an O_APPEND file: whole lines, even when killed
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap();
    f.write_all(format!("{line}\n").as_bytes()).unwrap();
}

/// The body of a child process (does nothing in a normal test run).
#[test]
fn child() {
    let Ok(uid) = std::env::var("OMPADAPT_TEST_CHILD") else { return };
    let uid: f64 = uid.parse().unwrap();
    let journal = PathBuf::from(std::env::var("OMPADAPT_TEST_JOURNAL").unwrap());
    let rounds: u64 = std::env::var("OMPADAPT_TEST_ROUNDS").map_or(u64::MAX, |r| r.parse().unwrap());
    match std::env::var("OMPADAPT_TEST_STOP").as_deref() {
        // a compaction renamed merged.json into place and is about to delete what it merged:
        // stop there (the parent kills the process) — the unlink delayed indefinitely
        Ok("before-unlink") => fault::set_hook(Some(|p| {
            if p == fault::Point::BeforeUnlink {
                let marker = std::env::var("OMPADAPT_TEST_MARKER").unwrap();
                std::fs::write(marker, "").unwrap();
                std::thread::sleep(Duration::from_secs(60));
            }
        })),
        Ok(other) => panic!("unknown stop point {other}"),
        Err(_) => {}
    }
    match std::env::var("OMPADAPT_TEST_MODE").as_deref() {
        Ok("file-size-limit") => return file_size_limit_child(uid),
        Ok("lost-at-exit") => {
            // the exit handler's save cannot write: nothing comes after it
            unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
            record_round(&mut null_mut(), uid, 0);
            return set_file_size_limit(Some(16));
        }
        _ => {}
    }
    let mut slot: *mut c_void = null_mut();
    let mut round = 0;
    while round < rounds {
        journal_line(&journal, &format!("begin {round}"));
        let f = [uid, round as f64];
        for _ in 0..PER_ROUND {
            let mut c = Ctx::zeroed();
            unsafe {
                ompadapt_begin(&mut slot, SPEC.as_ptr() as *const c_char, 1_000_000, -1, -1, f.as_ptr(), 2, &mut c);
                ompadapt_end(&mut c);
            }
        }
        assert_eq!(ompadapt_save(), 1, "save of round {round}");
        journal_line(&journal, &format!("done {round}"));
        round += 1;
    }
}

/// Records round `round` of child `uid` (not saved).
fn record_round(slot: &mut *mut c_void, uid: f64, round: u64) {
    let f = [uid, round as f64];
    for _ in 0..PER_ROUND {
        let mut c = Ctx::zeroed();
        unsafe {
            ompadapt_begin(slot, SPEC.as_ptr() as *const c_char, 1_000_000, -1, -1, f.as_ptr(), 2, &mut c);
            ompadapt_end(&mut c);
        }
    }
}

fn set_file_size_limit(bytes: Option<u64>) {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: plain system calls on this process's own limits.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_FSIZE, &mut lim), 0);
        lim.rlim_cur = bytes.unwrap_or(lim.rlim_max);
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &lim), 0);
    }
}

/// A save that cannot write (a file size limit: what a full disk does to a write, without
/// needing one) keeps its measurements for the next save; a part that was written but could
/// not be merged is saved.
fn file_size_limit_child(uid: f64) {
    // SAFETY: writes past the limit then fail with EFBIG instead of killing the process.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    let mut slot: *mut c_void = null_mut();
    record_round(&mut slot, uid, 0);
    set_file_size_limit(Some(16));
    assert_eq!(ompadapt_save(), 0, "nothing can be written");
    set_file_size_limit(None);
    record_round(&mut slot, uid, 1);
    assert_eq!(ompadapt_save(), 1, "rounds 0 and 1 saved");
    // the next part fits under the limit, the merge of both parts does not
    let rdir = PathBuf::from(std::env::var("OMPADAPT_TEST_REGION_DIR").unwrap());
    let first = parts_on_disk(&rdir);
    assert_eq!(first.len(), 1);
    let size = std::fs::metadata(rdir.join(&first[0])).unwrap().len();
    record_round(&mut slot, uid, 2);
    set_file_size_limit(Some(size));
    assert_eq!(ompadapt_save(), 1, "the part was written: saved, though not merged");
    set_file_size_limit(None);
    assert_eq!(parts_on_disk(&rdir).len(), 2, "not merged");
    record_round(&mut slot, uid, 3);
    assert_eq!(ompadapt_save(), 1);
}

struct Store {
    dir: PathBuf,
}

impl Store {
    fn new(tag: &str) -> Store {
        let dir = std::env::temp_dir().join(format!("ompadapt-crash-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Store { dir }
    }

    fn journal(&self, uid: u32) -> PathBuf {
        self.dir.join(format!("journal-{uid}"))
    }

    fn spawn(&self, uid: u32, env: &[(&str, &str)]) -> Child {
        let mut c = Command::new(std::env::current_exe().unwrap());
        c.args(["--exact", "child", "--nocapture", "--test-threads=1"])
            .env("OMPADAPT_TEST_CHILD", uid.to_string())
            .env("OMPADAPT_TEST_JOURNAL", self.journal(uid))
            .env("OMPADAPT_DIR", self.dir.join("store"))
            .env("OMPADAPT_WARMUP", "0")
            .env("OMPADAPT_PERSIST", "1")
            .env("OMPADAPT_COMPACT_AFTER", "2")
            // data collection: every execution is a recorded measurement
            .env("OMPADAPT_EXPLORE_ONLY", "1")
            .env_remove("OMPADAPT_REPORT")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            c.env(k, v);
        }
        c.spawn().unwrap()
    }

    fn region_dir(&self) -> PathBuf {
        let exe = std::env::current_exe().unwrap();
        let program = store::Program::new(&exe.file_name().unwrap().to_string_lossy(), &exe.canonicalize().unwrap().to_string_lossy());
        store::region_dir(&self.dir.join("store"), &program, "crash")
    }

    /// Measurements on disk per (child, round), as a fresh process would load them.
    fn counts(&self) -> HashMap<(u32, u64), u64> {
        let m = store::load_dir(&self.region_dir(), "crash", None);
        let mut out = HashMap::new();
        for ((f, _variant), p) in &m.samples {
            *out.entry((f[0] as u32, f[1] as u64)).or_insert(0) += p.count;
        }
        out
    }

    /// (rounds done, the round in progress when the child stopped) from its journal.
    fn journal_state(&self, uid: u32) -> (u64, Option<u64>) {
        let text = std::fs::read_to_string(self.journal(uid)).unwrap_or_default();
        let (mut done, mut open) = (0, None);
        for l in text.lines() {
            match l.split_once(' ') {
                Some(("begin", r)) => open = Some(r.parse().unwrap()),
                Some(("done", r)) => {
                    done = r.parse::<u64>().unwrap() + 1;
                    open = None;
                }
                _ => panic!("journal line {l:?}"),
            }
        }
        (done, open)
    }

    /// Samples lost and doubled over children `uids`, against their journals.
    fn audit(&self, uids: impl IntoIterator<Item = u32>) -> (u64, u64, Vec<String>) {
        let counts = self.counts();
        let (mut lost, mut doubled, mut what) = (0, 0, Vec::new());
        let mut seen = 0;
        for uid in uids {
            let (done, open) = self.journal_state(uid);
            for round in 0..done + 1 {
                let n = counts.get(&(uid, round)).copied().unwrap_or(0);
                seen += 1;
                let ok = if round < done {
                    n == PER_ROUND
                } else {
                    // in progress: its part landed or not; never begun: nothing
                    n == 0 || (open == Some(round) && n == PER_ROUND)
                };
                if !ok {
                    if n < PER_ROUND && round < done {
                        lost += PER_ROUND - n;
                    } else {
                        doubled += n.saturating_sub(PER_ROUND);
                    }
                    what.push(format!("child {uid} round {round}: {n} measurements (done {done}, open {open:?})"));
                }
            }
        }
        // nothing on disk that no journal accounts for
        let _ = seen;
        (lost, doubled, what)
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn kill(c: &mut Child) {
    // SAFETY: a child this test spawned and has not reaped.
    unsafe { libc::kill(c.id() as i32, libc::SIGKILL) };
}

fn parts_on_disk(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("part-") && n.ends_with(".json"))
        .collect();
    v.sort();
    v
}

#[test]
fn a_save_that_cannot_write_keeps_its_measurements_for_the_next() {
    if std::env::var("OMPADAPT_TEST_CHILD").is_ok() {
        return;
    }
    let store = Store::new("fsize");
    let rdir = store.region_dir();
    let out = store
        .spawn(0, &[("OMPADAPT_TEST_MODE", "file-size-limit"), ("OMPADAPT_TEST_REGION_DIR", rdir.to_str().unwrap())])
        .wait_with_output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let counts = store.counts();
    for round in 0..4 {
        assert_eq!(counts.get(&(0, round)), Some(&PER_ROUND), "round {round}: {counts:?}\n{err}");
    }
    assert_eq!(counts.len(), 4);
    let not_saved: Vec<&str> = err.lines().filter(|l| l.contains("data not saved now")).collect();
    assert_eq!(not_saved.len(), 1, "one line for the failed save:\n{err}");
    assert!(not_saved[0].contains("region 'crash'") && not_saved[0].contains("next save"), "{err}");
    let merge_failed: Vec<&str> = err.lines().filter(|l| l.contains("merging its files failed")).collect();
    assert_eq!(merge_failed.len(), 1, "one line for the failed merge:\n{err}");
    assert!(merge_failed[0].contains("was saved"), "{err}");
    assert_eq!(parts_on_disk(&rdir), Vec::<String>::new(), "the last save merged everything");
}

/// The exit handler's save is the last: when it cannot write, the line says the data is lost
/// (not that a next save will write it).
#[test]
fn a_failed_last_save_says_the_data_is_lost() {
    if std::env::var("OMPADAPT_TEST_CHILD").is_ok() {
        return;
    }
    let store = Store::new("lost");
    let out = store.spawn(0, &[("OMPADAPT_TEST_MODE", "lost-at-exit")]).wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("region 'crash'")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("could not be saved") && lines[0].contains("it is lost") && !lines[0].contains("next save"), "{err}");
}

/// A FIFO (or any file that is not a regular file) named like a data file never blocks a
/// process or the export: skipped with one line.
#[test]
fn a_fifo_among_the_data_files_blocks_nothing() {
    if std::env::var("OMPADAPT_TEST_CHILD").is_ok() {
        return;
    }
    let store = Store::new("fifo");
    let rdir = store.region_dir();
    std::fs::create_dir_all(&rdir).unwrap();
    let mkfifo = |name: &str| {
        let p = std::ffi::CString::new(rdir.join(name).to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(p.as_ptr(), 0o644) }, 0);
    };
    mkfifo("part-fifo.json");
    mkfifo("merged.json");
    let finish = |mut c: Child, what: &str| -> (std::process::ExitStatus, String) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(st) = c.try_wait().unwrap() {
                let mut err = String::new();
                let _ = std::io::Read::read_to_string(c.stderr.as_mut().unwrap(), &mut err);
                return (st, err);
            }
            if Instant::now() > deadline {
                kill(&mut c);
                panic!("{what} blocked on a FIFO");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    let (st, err) = finish(store.spawn(0, &[("OMPADAPT_TEST_ROUNDS", "3")]), "a program");
    assert!(st.success(), "{err}");
    for name in ["part-fifo.json", "merged.json"] {
        assert_eq!(err.lines().filter(|l| l.contains(&format!("/{name} "))).count(), 1, "one line for {name}:\n{err}");
    }
    let counts = store.counts();
    assert_eq!((0..3).map(|r| counts.get(&(0, r)).copied()).collect::<Vec<_>>(), vec![Some(PER_ROUND); 3]);

    // the export (`ompadapt export`, `list`, `show` read through it) reads without changing
    // anything: a FIFO stays, skipped (its one line is checked in cli/tests/commands.rs)
    mkfifo("part-fifo2.json");
    let root = store.dir.join("store");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(ompadapt_rt::store::export(&root, None, None));
    });
    let regions = rx.recv_timeout(Duration::from_secs(60)).expect("the export blocked on a FIFO");
    assert_eq!(regions.len(), 1);
    assert!(rdir.join("part-fifo2.json").exists());
}

/// A compaction killed between renaming its `merged.json` into place and deleting the parts
/// it merged: the parts are still there, listed in `merged.json`. Neither loading nor any later
/// compaction may count them twice.
#[test]
fn a_compaction_killed_before_its_unlinks_counts_nothing_twice() {
    if std::env::var("OMPADAPT_TEST_CHILD").is_ok() {
        return;
    }
    let store = Store::new("unlink");
    let marker = store.dir.join("stopped");
    let mut c = store.spawn(0, &[("OMPADAPT_TEST_STOP", "before-unlink"), ("OMPADAPT_TEST_MARKER", marker.to_str().unwrap())]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !marker.exists() {
        assert!(Instant::now() < deadline, "the child never reached its first compaction");
        assert!(c.try_wait().unwrap().is_none(), "the child ended before its first compaction");
        std::thread::sleep(Duration::from_millis(2));
    }
    kill(&mut c);
    assert_eq!(c.wait().unwrap().signal(), Some(libc::SIGKILL));
    let rdir = store.region_dir();
    let merged: store::DataFile = serde_json::from_slice(&std::fs::read(rdir.join("merged.json")).unwrap()).unwrap();
    let left = parts_on_disk(&rdir);
    assert_eq!(merged.merged_parts.len(), 2, "the compaction merged two parts");
    assert!(merged.merged_parts.iter().all(|p| left.contains(p)), "its parts are still on disk: {left:?}");
    assert_eq!(store.audit([0]), (0, 0, vec![]), "loading skips what merged.json contains");
    assert_eq!(store.counts()[&(0, 0)], PER_ROUND);

    // later processes save and compact (several times) over the leftovers
    for uid in 1..=3 {
        let out = store.spawn(uid, &[("OMPADAPT_TEST_ROUNDS", "3")]).wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let (lost, doubled, what) = store.audit(0..=uid);
        assert_eq!((lost, doubled), (0, 0), "after child {uid}: {what:?}");
    }
    assert!(parts_on_disk(&rdir).iter().all(|p| !merged.merged_parts.contains(p)), "the leftovers were deleted");
    store::compact(&rdir, "crash").unwrap();
    assert_eq!(store.audit(0..=3), (0, 0, vec![]));
    assert_eq!(parts_on_disk(&rdir), Vec::<String>::new());
    let total: u64 = store.counts().values().sum();
    assert_eq!(total, PER_ROUND * (2 + 3 * 3), "child 0 saved rounds 0 and 1, the others 3 each");
}

/// Processes saving and compacting the same region at once, killed with SIGKILL at random
/// moments: 0 measurements lost, 0 counted twice.
#[test]
fn random_kills_during_saves_and_compactions_lose_and_double_nothing() {
    if std::env::var("OMPADAPT_TEST_CHILD").is_ok() {
        return;
    }
    let wanted: u32 = std::env::var("OMPADAPT_KILL_TRIALS").map_or(400, |n| n.parse().unwrap());
    let store = Store::new("random");
    let mut rng = XorShift::new(0x5eed ^ std::process::id() as u64);
    const AT_ONCE: u32 = 4;
    let (mut kills, mut mid_round, mut uid) = (0u32, 0u32, 0u32);
    let started = Instant::now();
    while kills < wanted {
        let first = uid;
        let mut children: Vec<(u32, Child)> = (0..AT_ONCE)
            .map(|_| {
                uid += 1;
                (uid - 1, store.spawn(uid - 1, &[]))
            })
            .collect();
        // each child dies at its own random moment, 10 to 130 ms after the start
        let spawned = Instant::now();
        let mut at: Vec<u64> = (0..AT_ONCE).map(|_| 10 + rng.below(120) as u64).collect();
        at.sort_unstable();
        for ((_, c), ms) in children.iter_mut().zip(&at) {
            let t = spawned + Duration::from_millis(*ms);
            if let Some(d) = t.checked_duration_since(Instant::now()) {
                std::thread::sleep(d);
            }
            kill(c);
        }
        for (id, mut c) in children.drain(..) {
            let st = c.wait().unwrap();
            let mut err = String::new();
            let _ = std::io::Read::read_to_string(c.stderr.as_mut().unwrap(), &mut err);
            assert_eq!(st.signal(), Some(libc::SIGKILL), "child {id} ended by itself: {err}");
            kills += 1;
            mid_round += store.journal_state(id).1.is_some() as u32;
        }
        let (lost, doubled, what) = store.audit(first..uid);
        assert_eq!((lost, doubled), (0, 0), "after {kills} kills: {what:?}");
    }
    // every child's data once more, after a final compaction over whatever the kills left
    let rdir = store.region_dir();
    store::compact(&rdir, "crash").unwrap();
    let (lost, doubled, what) = store.audit(0..uid);
    let saved: u64 = store.counts().values().sum();
    println!(
        "random SIGKILLs: {kills} kills ({mid_round} inside a round's executions, save or compaction), \
         {} measurements on disk, {lost} lost, {doubled} doubled, {:.1} s",
        saved,
        started.elapsed().as_secs_f64()
    );
    assert_eq!((lost, doubled), (0, 0), "{what:?}");
    assert!(mid_round * 2 >= kills, "most kills must land while saving ({mid_round} of {kills})");
}
