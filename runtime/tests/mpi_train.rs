//! The runtime's MPI integration, with `--features mpi`:
//!
//! ```sh
//! cargo test --release -p ompadapt-rt --features mpi --test mpi_train
//! ```
//!
//! `ompadapt_train_pools_every_rank` runs this test executable under `mpirun -np 4
//! --oversubscribe`, where `rank_child` is the MPI application: it calls `MPI_Init`, measures
//! through the C ABI only its own two feature values (f = 2r+1, 2r+2) of a region whose best
//! variant over f = 1..8 needs all of them, calls `ompadapt_train(NULL)` (the collective
//! point: one allgather for every region), checks that the model now decides every f
//! correctly, saves, and finalises. Then the launcher checks that each rank wrote its own part
//! file (`-r<rank>` in the name, `writer.rank` inside) holding only its own feature values, and
//! that loading the directory pools all four.
//!
//! Skipped, with the reason printed, when `mpirun` is not installed.

#![cfg(feature = "mpi")]

use std::os::raw::c_void;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use ompadapt_rt::{ompadapt_begin, ompadapt_end, ompadapt_save, ompadapt_train, registry, store, Ctx};
use rsmpi::topology::Communicator;

const CHILD: &str = "OMPADAPT_MPI_TRAIN_CHILD";
const RANKS: usize = 4;
const SPEC: &[u8] = b"ompadapt1;model=mpi_pooled;loc=mpi_train.rs:1;features=f;variants=a,b\0";
/// Best variant per f = 1..=8 (0 = a, 1 = b).
const BEST: [usize; 8] = [0, 0, 0, 1, 1, 1, 0, 0];

/// One execution: the best variant takes 2 ms, the other 40 ms, given as synthetic durations by
/// moving the context's start back (a clock the test controls: four ranks on two cores lose
/// time slices, which a spin would measure).
fn exec(slot: &mut *mut c_void, f: f64) -> usize {
    let mut c = Ctx::zeroed();
    unsafe { ompadapt_begin(slot, SPEC.as_ptr() as *const _, 1_000_000, -1, -1, [f].as_ptr(), 1, &mut c) };
    let v = c.variant as usize;
    let ns: f64 = if v == BEST[f as usize - 1] { 2e6 } else { 4e7 };
    c.t0.backdate((ns / ompadapt_rt::clock::ns_per_tick()).round() as u64);
    unsafe { ompadapt_end(&mut c) };
    v
}

#[test]
fn rank_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let universe = rsmpi::initialize().expect("MPI_Init");
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        hook(info);
        rsmpi::topology::SimpleCommunicator::world().abort(3);
    }));
    let (rank, size) = ompadapt_rt::mpi::rank().expect("MPI is up");
    assert_eq!(size as usize, RANKS);
    let mut slot: *mut c_void = null_mut();
    let mine = [2.0 * rank as f64 + 1.0, 2.0 * rank as f64 + 2.0];
    for _ in 0..7 {
        for &f in &mine {
            exec(&mut slot, f);
        }
    }
    let r = registry::global().find("mpi_pooled").unwrap();
    assert!(!r.is_trained(), "min_train is out of reach: only the explicit call trains");
    assert_eq!(unsafe { ompadapt_train(std::ptr::null()) }, 1, "the region trained on pooled rows");
    let t = r.trained().unwrap();
    assert!(matches!(t.origin, ompadapt_rt::region::Origin::Pooled(_)), "{:?}", t.origin);
    assert_eq!(t.labels.len(), 8, "labels for every rank's vectors");
    let decisions: Vec<usize> = (1..=8).map(|f| r.decide(&[f as f64]).unwrap()).collect();
    assert_eq!(decisions, BEST.to_vec(), "rank {rank}");
    assert_eq!(ompadapt_save(), 1);
    drop(universe);
}

#[test]
fn ompadapt_train_pools_every_rank() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let Ok(out) = Command::new("mpirun").arg("--version").stdin(Stdio::null()).output() else {
        println!("skipped: mpirun not found on PATH");
        return;
    };
    let version = String::from_utf8_lossy(&out.stdout).into_owned();
    let dir = std::env::temp_dir().join(format!("ompadapt-mpi-train-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new("mpirun");
    cmd.args(["-np", &RANKS.to_string()]);
    if version.contains("Open MPI") || version.contains("OpenRTE") {
        cmd.arg("--oversubscribe");
    }
    cmd.arg(&exe)
        .args(["--exact", "rank_child", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
        .env("OMPADAPT_DIR", &dir)
        .env("OMPADAPT_PERSIST", "1")
        .env("OMPADAPT_WARMUP", "0")
        .env("OMPADAPT_REPEATS", "3")
        .env_remove("OMPADAPT_MODEL")
        .env_remove("OMPADAPT_REPORT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let t0 = Instant::now();
    let mut child = cmd.spawn().expect("spawn mpirun");
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if t0.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = child.wait_with_output().unwrap();
    let log = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(status.expect("mpirun timed out (deadlock?)").success(), "{log}");

    let program = store::Program::new(&exe.file_name().unwrap().to_string_lossy(), &exe.canonicalize().unwrap().to_string_lossy());
    let rdir = store::region_dir(&dir, &program, "mpi_pooled");
    let mut parts: Vec<PathBuf> =
        std::fs::read_dir(&rdir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    parts.sort();
    assert_eq!(parts.len(), RANKS, "one part per rank: {parts:?}");
    let mut ranks = Vec::new();
    for p in &parts {
        let f = store::read_file(p).unwrap();
        let r = f.writer.rank.expect("the rank is recorded") as usize;
        assert!(p.file_name().unwrap().to_string_lossy().contains(&format!("-r{r}-")), "{}", p.display());
        assert_eq!(f.writer.size, Some(RANKS as u32));
        let mut fs: Vec<f64> = f.samples.iter().map(|s| s.features[0]).collect();
        fs.sort_by(f64::total_cmp);
        fs.dedup();
        assert_eq!(fs, vec![2.0 * r as f64 + 1.0, 2.0 * r as f64 + 2.0], "rank {r} saved only its own measurements");
        assert!(f.model_trained.is_some());
        ranks.push(r);
    }
    ranks.sort();
    assert_eq!(ranks, (0..RANKS).collect::<Vec<_>>());
    let merged = store::load_dir(&rdir, "mpi_pooled", None);
    assert_eq!(merged.sample_count(), (RANKS * 2 * 7) as u64, "the next run pools every rank's data");
    let _ = std::fs::remove_dir_all(&dir);
}
