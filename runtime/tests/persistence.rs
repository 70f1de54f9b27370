//! Persistence across processes: 16 processes write the same region's data at the same time
//! (several saves each, with compaction racing the writers) and not one sample is lost or
//! counted twice; a later run starts trained from what they wrote.
//!
//! The writers are this test binary itself, re-run with `OMPADAPT_TEST_WRITER` set.

use std::os::raw::{c_char, c_void};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use ompadapt_rt::store;
use ompadapt_rt::{ompadapt_begin, ompadapt_end, ompadapt_save, Ctx};

const WRITERS: usize = 16;
const ROUNDS: usize = 4;
const PER_ROUND: usize = 50;
const SPEC: &[u8] = b"ompadapt1;model=shared;loc=persistence.rs:1;features=n;variants=a,b,c\0";

/// The body of one writer process: waits for the start signal, then records ROUNDS ×
/// PER_ROUND exploring executions, saving after each round.
#[test]
fn writer_child() {
    let Ok(id) = std::env::var("OMPADAPT_TEST_WRITER") else { return };
    let id: usize = id.parse().unwrap();
    let go = PathBuf::from(std::env::var("OMPADAPT_TEST_GO").unwrap());
    let deadline = Instant::now() + Duration::from_secs(60);
    while !go.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    let mut slot: *mut c_void = null_mut();
    for _ in 0..ROUNDS {
        for i in 0..PER_ROUND {
            let f = [((id + i) % 7) as f64];
            let mut c = Ctx::zeroed();
            unsafe {
                ompadapt_begin(&mut slot, SPEC.as_ptr() as *const c_char, 1_000_000, -1, -1, f.as_ptr(), 1, &mut c);
                ompadapt_end(&mut c);
            }
        }
        assert_eq!(ompadapt_save(), 1);
    }
}

fn count_files(dir: &Path, prefix: &str) -> usize {
    std::fs::read_dir(dir).map(|rd| rd.flatten().filter(|e| e.file_name().to_string_lossy().starts_with(prefix)).count()).unwrap_or(0)
}

#[test]
fn sixteen_concurrent_writers_lose_nothing() {
    if std::env::var("OMPADAPT_TEST_WRITER").is_ok() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("ompadapt-writers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let go = dir.join("go");
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..WRITERS)
        .map(|id| {
            Command::new(&exe)
                .args(["--exact", "writer_child", "--nocapture", "--test-threads=1"])
                .env("OMPADAPT_TEST_WRITER", id.to_string())
                .env("OMPADAPT_TEST_GO", &go)
                .env("OMPADAPT_DIR", dir.join("store"))
                .env("OMPADAPT_WARMUP", "0")
                .env("OMPADAPT_PERSIST", "1")
                .env("OMPADAPT_COMPACT_AFTER", "5")
                // data collection: every variant in turn, so the expected counts are known
                .env("OMPADAPT_EXPLORE_ONLY", "1")
                .env_remove("OMPADAPT_REPORT")
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(&go, "").unwrap();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let program = store::Program::new(&exe.file_name().unwrap().to_string_lossy(), &exe.canonicalize().unwrap().to_string_lossy());
    let rdir = store::region_dir(&dir.join("store"), &program, "shared");
    assert_eq!(count_files(&rdir, "merged.json"), 1, "compaction ran");
    assert_eq!(count_files(&rdir, ".tmp-"), 0);
    let m = store::load_dir(&rdir, "shared", None);
    assert_eq!(m.sample_count(), (WRITERS * ROUNDS * PER_ROUND) as u64, "no sample lost or counted twice");
    // per (vector, variant): what round-robin gives each writer, summed over writers
    let mut expect = std::collections::HashMap::new();
    for id in 0..WRITERS {
        let mut seen = [0usize; 7];
        for _ in 0..ROUNDS {
            for i in 0..PER_ROUND {
                let n = (id + i) % 7;
                *expect.entry((n, ["a", "b", "c"][seen[n] % 3])).or_insert(0u64) += 1;
                seen[n] += 1;
            }
        }
    }
    for ((f, v), p) in &m.samples {
        let count = &p.count;
        assert_eq!(Some(count), expect.get(&(f[0] as usize, v.as_str())), "vector {f:?} variant {v}");
    }
    assert_eq!(m.samples.len(), expect.len());

    // the merged view `ompadapt export` archives: the same data, without changing the directory
    let before: Vec<_> = std::fs::read_dir(&rdir).unwrap().map(|e| e.unwrap().file_name()).collect();
    let regions = store::export(&dir.join("store"), Some(&program.name), None);
    assert_eq!(regions.len(), 1);
    assert_eq!(regions[0].model, "shared");
    assert_eq!(regions[0].variants, ["a", "b", "c"]);
    let exported: u64 = regions[0].samples.iter().map(|s| s.count).sum();
    assert_eq!(exported, (WRITERS * ROUNDS * PER_ROUND) as u64);
    let after: Vec<_> = std::fs::read_dir(&rdir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(before.len(), after.len(), "export changes nothing");
    let _ = std::fs::remove_dir_all(&dir);
}
