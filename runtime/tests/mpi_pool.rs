//! Collective training across MPI ranks (issue 3, item 7), with `--features mpi`:
//!
//! ```sh
//! cargo test --release -p ompadapt-rt --features mpi --test mpi_pool
//! ```
//!
//! `mpi_four_ranks` runs this very test executable under `mpirun -np 4 --oversubscribe` (root:
//! with OMPI_ALLOW_RUN_AS_ROOT*), where the test `rank_program` plays the MPI application: it
//! owns `MPI_Init`/`MPI_Finalize` (rsmpi's `Universe`) and uses the runtime, which only attaches.
//! Every rank measures a *different* pair of feature values (f = 2r+1, 2r+2 out of 1..=8) with
//! controlled costs (spinning 30 µs for the best variant, 300 µs for the other), so no single
//! rank's samples can train the right model: the best variant is `a` for f ∈ {1,2,3,7,8} and
//! `b` for f ∈ {4,5,6}. At the collective point the ranks pool their samples (one
//! `mpi::pool_all` for every region, including a region only one rank created) and train; then
//! every rank must decide correctly, and identically, for every f. Each rank then saves only its
//! own samples to `<model>.rank<R>.json`; the four files must be distinct and hold exactly their
//! rank's feature values, and loading all four pools them across runs with no communication.
//! After `MPI_Finalize` the runtime must fall back to local behaviour.
//!
//! Skipped, with the reason printed, when `mpirun` is not installed.

#![cfg(feature = "mpi")]

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ompadapt_rt::config::Config;
use ompadapt_rt::mpi::{self, Row};
use ompadapt_rt::persist;
use ompadapt_rt::region::Region;
use ompadapt_rt::registry::Registry;
use ompadapt_rt::stats::{FKey, VariantStats};
use ompadapt_rt::Ctx;

use rsmpi::collective::CommunicatorCollectives;
use rsmpi::topology::Communicator;

const CHILD: &str = "OMPADAPT_MPI_TEST_CHILD";
const DIR: &str = "OMPADAPT_MPI_TEST_DIR";
const RANKS: i32 = 4;
const MODEL: &str = "pooled";
const SPEC: &str = "ompadapt1;model=pooled;loc=mpi_pool.rs:1;features=f;variants=a,b";
/// Best variant per f = 1..=8 (0 = a, 1 = b): needs a depth-2 tree over all eight values.
const BEST: [usize; 8] = [0, 0, 0, 1, 1, 1, 0, 0];
const FAST_US: u64 = 30;
const SLOW_US: u64 = 300;
/// Measurements per (f, variant) on each rank (medians are robust to a few preempted ones).
const REPS: usize = 9;

// ---------------------------------------------------------------------------------------------
// The launcher (an ordinary test).

fn mpirun_flavour() -> Option<String> {
    let out = Command::new("mpirun").arg("--version").stdin(Stdio::null()).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    Some(text)
}

#[test]
fn mpi_four_ranks() {
    if std::env::var_os(CHILD).is_some() {
        return; // inside mpirun: only `rank_program` runs there
    }
    let Some(version) = mpirun_flavour() else {
        println!("skipped: mpirun not found on PATH (Debian: apt-get install openmpi-bin libopenmpi-dev)");
        return;
    };
    let exe = std::env::current_exe().unwrap();
    let dir = std::env::temp_dir().join(format!("ompadapt-mpi-pool-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();

    let mut cmd = Command::new("mpirun");
    cmd.args(["-np", &RANKS.to_string()]);
    if version.contains("Open MPI") || version.contains("OpenRTE") {
        // 4 ranks on this 2-core machine. (MPICH's Hydra oversubscribes without being asked.)
        cmd.arg("--oversubscribe");
    }
    cmd.arg(&exe)
        .args(["--exact", "rank_program", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env(DIR, &dir)
        // CI runs as root; Open MPI refuses that unless told (ignored by other MPIs).
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        // Containers often forbid the cross-memory-attach single copy (ptrace); not needed here.
        .env("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
        .env("OMPADAPT_PERSIST", "0")
        .env_remove("OMPADAPT_MODEL")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let t0 = Instant::now();
    let mut child = cmd.spawn().expect("spawn mpirun");
    // A deadlocked collective would hang forever: give up after 3 minutes.
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
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("mpirun ({:.1} s):\n{stdout}\n{stderr}", t0.elapsed().as_secs_f64());
    let status = status.expect("mpirun did not finish within 180 s (deadlock?)");
    assert!(status.success(), "mpirun failed: {status}");

    // Every rank reported, and all made the same, correct decisions.
    let expected: String = BEST.iter().map(|&v| ["a", "b"][v]).collect();
    let mut seen = Vec::new();
    // (ranks' output interleaves: a RESULT may follow libtest's "test rank_program ... ")
    for line in stdout.lines().filter_map(|l| l.find("RESULT ").map(|i| &l[i + 7..])) {
        let kv: HashMap<&str, &str> = line.split_whitespace().filter_map(|w| w.split_once('=')).collect();
        seen.push(kv["rank"].parse::<i32>().unwrap());
        assert_eq!(kv["pooled"], expected, "rank {}: pooled decisions", kv["rank"]);
        assert_ne!(kv["local"], expected, "rank {}: its own samples alone cannot be right", kv["rank"]);
        assert_eq!(kv["files"], expected, "rank {}: decisions from the four rank files", kv["rank"]);
        assert_eq!(kv["after_finalize"], "local", "rank {}", kv["rank"]);
    }
    seen.sort();
    assert_eq!(seen, (0..RANKS).collect::<Vec<_>>(), "one RESULT line per rank");
    let files: Vec<String> = std::fs::read_dir(dir.join("mpi_pool_test"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut files = files;
    files.sort();
    assert_eq!(files, (0..RANKS).map(|r| format!("{MODEL}.rank{r}.json")).collect::<Vec<_>>());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without mpirun (and without `MPI_Init`) the module is the identity.
#[test]
fn not_an_mpi_program() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    assert_eq!(mpi::rank(), None);
    let rows = vec![Row { features: vec![1.0], variant: 1, ns: 5.0 }];
    assert_eq!(mpi::pool(rows.clone()), rows);
    assert_eq!(mpi::pool_all(vec![("m".into(), rows.clone())]), vec![("m".to_owned(), rows)]);
}

// ---------------------------------------------------------------------------------------------
// The MPI program (one per rank, under mpirun).

fn spin(us: u64) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_micros(us) {
        std::hint::spin_loop();
    }
}

fn cost(f: f64, v: usize) -> u64 {
    if BEST[f as usize - 1] == v { FAST_US } else { SLOW_US }
}

fn registry() -> Registry {
    Registry::new(Config { persist: false, warmup: false, report: false, model_override: None, ..Config::default() })
}

/// A fresh region (its own registry) that never trains online: the test trains it explicitly.
fn measuring_region() -> &'static Region {
    Box::leak(Box::new(registry())).lookup(Some(SPEC), 1_000_000, -1, -1)
}

/// The region's recorded measurements as rows.
fn rows_of(r: &Region) -> Vec<Row> {
    let mut out = Vec::new();
    for e in r.snapshot().entries {
        for (v, s) in e.per_variant.iter().enumerate() {
            for ns in s.recent_in_order() {
                out.push(Row { features: e.key.values(), variant: v as u32, ns: ns as f64 });
            }
        }
    }
    out
}

/// Trains a fresh region on `rows` (grouped by (features, variant) in the order given, which
/// is the same on every rank for pooled rows) and returns its decisions for f = 1..=8.
fn decisions_from_rows(rows: &[Row]) -> String {
    let samples = mpi::group_rows(rows)
        .into_iter()
        .map(|(features, v, times)| {
            let mut s = VariantStats::default();
            for t in times {
                s.record(t as u64);
            }
            (FKey::new(&features), v as usize, s)
        })
        .collect();
    decisions_from_samples(samples)
}

fn decisions_from_samples(samples: Vec<(FKey, usize, VariantStats)>) -> String {
    let r = Box::leak(Box::new(registry())).lookup(Some(SPEC), -1, -1, -1);
    r.absorb(samples);
    assert!(r.is_trained(), "enough samples to train");
    (1..=8).map(|f| ["a", "b"][r.decide(&[f as f64]).unwrap()]).collect()
}

#[test]
fn rank_program() {
    if std::env::var_os(CHILD).is_none() {
        return; // only under mpirun (see `mpi_four_ranks`)
    }
    let dir = PathBuf::from(std::env::var_os(DIR).expect("test directory"));

    // Before MPI_Init the runtime is local, but knows its rank from the launcher for file names.
    assert_eq!(mpi::rank(), None);
    let env_rank = mpi::launcher_rank().expect("mpirun sets the rank in the environment");

    // The application initialises MPI; the runtime only attaches.
    let universe = rsmpi::initialize().expect("MPI_Init");
    let world = universe.world();
    // Any failure below must end the whole job at once, not leave the other ranks in a
    // collective.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        hook(info);
        rsmpi::topology::SimpleCommunicator::world().abort(3);
    }));

    let (r, n) = mpi::rank().expect("MPI is initialised");
    assert_eq!((r, n), (world.rank(), world.size()));
    assert_eq!(n, RANKS);
    assert_eq!(env_rank, (r as u32, n as u32), "launcher environment agrees with MPI");
    assert_eq!(mpi::persist_rank(), Some((r as u32, n as u32)));
    let mut ranks = vec![0i32; n as usize];
    world.all_gather_into(&r, &mut ranks[..]);
    assert_eq!(ranks, (0..n).collect::<Vec<_>>(), "distinct rank ids");

    // Measure this rank's share of the feature values, with known costs.
    let region = measuring_region();
    let mine = [2.0 * r as f64 + 1.0, 2.0 * r as f64 + 2.0];
    for _ in 0..REPS {
        for &f in &mine {
            for _ in 0..2 {
                let mut ctx = Ctx::zeroed();
                region.begin(&[f], &mut ctx);
                spin(cost(f, ctx.variant as usize));
                region.end(&ctx);
            }
        }
    }
    assert!(!region.is_trained());
    let local_rows = rows_of(region);
    assert_eq!(local_rows.len(), 2 * 2 * REPS);
    let local = decisions_from_rows(&local_rows);

    // The collective point: one pool_all for every region this rank knows, including one that
    // only this rank has.
    let only_mine = format!("only-rank-{r}");
    let marker = vec![Row { features: vec![r as f64], variant: r as u32, ns: 1e3 * r as f64 }];
    let pooled = mpi::pool_all(vec![(MODEL.to_owned(), local_rows.clone()), (only_mine, marker)]);
    assert_eq!(mpi::stats().calls, 1);
    let names: Vec<&str> = pooled.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(names, ["pooled", "only-rank-0", "only-rank-1", "only-rank-2", "only-rank-3"]);
    let rows = &pooled[0].1;
    assert_eq!(rows.len(), n as usize * 2 * 2 * REPS);
    // Rank order: rank k's block holds its two feature values, and ours is exactly what we sent.
    let block = 2 * 2 * REPS;
    for k in 0..n as usize {
        let want = [2.0 * k as f64 + 1.0, 2.0 * k as f64 + 2.0];
        assert!(rows[k * block..(k + 1) * block].iter().all(|x| want.contains(&x.features[0])), "block of rank {k}");
    }
    assert_eq!(&rows[r as usize * block..(r as usize + 1) * block], &local_rows[..]);
    for k in 0..n {
        assert_eq!(pooled[1 + k as usize].1, vec![Row { features: vec![k as f64], variant: k as u32, ns: 1e3 * k as f64 }]);
    }
    // The single-region form, too.
    let one = mpi::pool(vec![Row { features: vec![], variant: r as u32, ns: 0.0 }]);
    assert_eq!(one.iter().map(|x| x.variant as i32).collect::<Vec<_>>(), (0..n).collect::<Vec<_>>());

    let pooled_decisions = decisions_from_rows(rows);

    // Every rank made the same decisions (checked here over MPI, and by the launcher).
    let mine_bytes: Vec<u8> = pooled_decisions.bytes().collect();
    let mut all = vec![0u8; mine_bytes.len() * n as usize];
    world.all_gather_into(&mine_bytes[..], &mut all[..]);
    assert!(all.chunks(mine_bytes.len()).all(|c| c == &mine_bytes[..]), "same decisions on every rank");

    // Persistence keeps ranks apart: each rank saves only its own samples, to its own file.
    let (pr, _) = mpi::persist_rank().unwrap();
    let path = persist::path_for(&dir, "mpi_pool_test", &format!("{MODEL}.rank{pr}"));
    persist::save(&path, region, "mpi_pool_test").unwrap();
    world.barrier();
    let mut from_files = Vec::new();
    for k in 0..n {
        let p = persist::path_for(&dir, "mpi_pool_test", &format!("{MODEL}.rank{k}"));
        let persist::Loaded::Samples(s) = persist::load(&p, region) else { panic!("{} not loaded", p.display()) };
        let want = [2.0 * k as f64 + 1.0, 2.0 * k as f64 + 2.0];
        assert_eq!(s.len(), 4, "rank {k}'s file: 2 feature values x 2 variants");
        assert!(s.iter().all(|(key, _, _)| want.contains(&key.get(0))), "rank {k}'s file holds only rank {k}'s samples");
        from_files.extend(s);
    }
    let files = decisions_from_samples(from_files);
    world.barrier(); // nobody finalises while another rank still reads

    drop(universe); // MPI_Finalize, by the application
    let after = if mpi::rank().is_none() && mpi::pool(vec![Row { features: vec![], variant: 7, ns: 1.0 }]).len() == 1 {
        "local"
    } else {
        "still-mpi"
    };
    assert_eq!(mpi::persist_rank(), Some((r as u32, n as u32)), "the rank is remembered after MPI_Finalize");
    println!("\nRESULT rank={r} pooled={pooled_decisions} local={local} files={files} after_finalize={after}");
}
