//! Collective training across MPI ranks (Artemis §3.6 "collective training").
//! Only built with `--features mpi` (rsmpi against the system's Open MPI or MPICH).
//!
//! # Who owns MPI
//!
//! The runtime is a library inside somebody else's MPI program: the *application* calls
//! `MPI_Init`/`MPI_Init_thread` and `MPI_Finalize`. This module never does either. It never
//! creates an rsmpi `Universe` (whose `Drop` would call `MPI_Finalize`); it only asks
//! `MPI_Initialized`/`MPI_Finalized` (callable at any time, from any thread) and, while MPI is
//! up, talks on `MPI_COMM_WORLD` ([`SimpleCommunicator::world`], a handle that is never freed).
//! In a program that is not an MPI program at all, or before `MPI_Init`, or after
//! `MPI_Finalize`, [`rank`] is `None` and [`pool`]/[`pool_all`] return their input unchanged.
//! The shared library built with the feature depends on `libmpi.so`; loaded into an MPI program
//! (directly or by `dlopen`) it uses that program's MPI library instance and state.
//!
//! # When ranks pool: only at collective points, never inside `end()`
//!
//! [`pool`] and [`pool_all`] are MPI collectives (`MPI_Allgather` of the byte counts, then
//! `MPI_Allgatherv` of the rows): every rank of `MPI_COMM_WORLD` must call them the same number
//! of times, in the same order, from one thread each (a thread allowed to call MPI at the
//! application's thread level). A collective that one rank enters and another never does hangs
//! the first one forever, so the runtime must only call them where the *application* guarantees
//! that every rank arrives:
//!
//! * **the explicit training call** (`ompadapt_train()` in the C API and Apollo's train call,
//!   both the core's, in `ffi.rs`/`ompadapt.h`), documented as collective over `MPI_COMM_WORLD`, like `MPI_Barrier`: "call it on every
//!   rank, from one thread, at the same point of every step". This is exactly Artemis's design
//!   (the user invokes the optimisation API at the end of a step; every process then issues an
//!   allgather). The core calls [`pool_all`] **once** per training call with every region it
//!   knows, so ranks that created different sets of regions (data-dependent code paths, rank 0
//!   doing I/O) still make exactly one matching collective; a region that exists on only some
//!   ranks is pooled all the same.
//!
//! Rejected alternatives, and why:
//!
//! * *A collective inside `end()` when `min_train` is reached.* Ranks reach `min_train` at
//!   different executions (different feature vectors, warm-ups, data-dependent control flow),
//!   some never do, and `end()` runs on OpenMP worker threads, possibly many at once, where an
//!   MPI call may be illegal (`MPI_THREAD_FUNNELED`). Any mismatch is a deadlock.
//! * *Agreeing on the training step by counting executions.* Holds for perfectly SPMD codes
//!   only; one rank that executes a region once more or less (a boundary rank, a convergence
//!   test) hangs the job. The runtime cannot verify the assumption before it is too late.
//! * *A non-blocking `MPI_Iallgather` with a deadline.* Still a collective: a rank that never
//!   posts it leaves the others' requests pending forever; collective requests cannot be
//!   cancelled (`MPI_Cancel` is not allowed on them), and a pending request at `MPI_Finalize`
//!   is erroneous. Progress also needs MPI calls from some thread.
//! * *One-sided (RMA) publication of every rank's rows.* Creating the window is itself
//!   collective, and passive-target progress without a progress thread is not guaranteed by
//!   Open MPI's TCP transports.
//! * *An `MPI_Finalize` hook* (PMPI interposition, or a delete callback on `MPI_COMM_SELF`,
//!   which `MPI_Finalize` runs while MPI still works). PMPI interposition does not work when the
//!   runtime is `dlopen`ed (the plugin's default), and the callback would have to be registered
//!   on every rank or on none, which a lazily initialised runtime cannot promise (a rank that
//!   never executes an adaptive region never registers it, the others hang in their
//!   callbacks). It would also only help the *next* run, which the file-system pooling below
//!   already does without any communication.
//!
//! Between collective points a region under MPI behaves as without MPI: it may train online on
//! its own rank's samples (a provisional, rank-local model; no communication on the execution
//! path). Each collective point replaces it with the model trained on the pooled samples, which
//! is the same on every rank because every rank receives byte-identical pooled rows in the same
//! order (rank 0's first) and training is deterministic (fixed seed per region). For that to
//! hold the core must train from the pooled rows *in their pooled order* (or in an order that
//! does not depend on the rank, e.g. sorted), not from its local tables merged with them.
//!
//! Programs that never call the training function still pool across runs, without any
//! communication, through persistence (next section).
//!
//! # Persistence keeps ranks apart
//!
//! Each rank saves only *its own* measurements (never the pooled copies: those are the other
//! ranks' files, and saving them would multiply every sample by the number of ranks each run)
//! to its own part file, with the rank from [`persist_rank`] in the name and in the contents
//! (see [`crate::store`]):
//!
//! ```text
//! $OMPADAPT_DIR/<program>/<region>/part-<run>-r<R>-<n>.json    under MPI, R = world rank
//! $OMPADAPT_DIR/<program>/<region>/part-<run>-<n>.json         not under MPI
//! ```
//!
//! so no two ranks ever write the same file, and loading the region's directory pools all
//! ranks' samples of the previous runs (whatever their number of ranks) with no communication:
//! every rank of the next run starts from the same data. [`persist_rank`] also works before
//! `MPI_Init` and after `MPI_Finalize` (the runtime's exit handler runs after `MPI_Finalize`):
//! it remembers the rank once MPI has told it, and before that reads it from the launcher's
//! environment (`OMPI_COMM_WORLD_RANK`, `PMI_RANK`, `MV2_COMM_WORLD_RANK`, `PMIX_RANK`,
//! `SLURM_PROCID`, in that order, with the matching sizes).
//!
//! # Limits
//!
//! * Pooling is over `MPI_COMM_WORLD` ([`pool_all_in`] takes another communicator from Rust).
//!   A program that uses only MPI-4 sessions (no `MPI_Init`) counts as not an MPI program.
//! * With the feature, `libompadapt_rt.so` depends on the MPI library it was built against
//!   (once the core calls into this module) and `libompadapt_rt.a` needs `-lmpi` (link with
//!   `mpicc`). Tested with Debian 12's Open MPI 4.1.4; MPICH is supported by rsmpi but untested
//!   here (the two packages conflict on Debian).
//!
//! # Integration
//!
//! `ompadapt_train()` (ffi), called collectively by the application, gathers every region's
//! rows, pools them with [`pool_all`] (one allgather for all regions; identity without MPI) and
//! retrains each region from the pooled rows grouped by [`group_rows`], so every rank trains
//! the same model. Tested by tests/mpi_train.rs under `mpirun -np 4`.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;

use rsmpi::collective::CommunicatorCollectives;
use rsmpi::datatype::PartitionMut;
use rsmpi::environment::{is_finalized, is_initialized};
use rsmpi::topology::{Communicator, SimpleCommunicator};
use rsmpi::Count;

use crate::diag;

/// One measured execution: features, variant index, time in ns.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The feature vector.
    pub features: Vec<f64>,
    /// The variant's index in the region's declaration order.
    pub variant: u32,
    /// Execution time, ns.
    pub ns: f64,
}

/// Whether MPI is usable now: initialised by the application and not yet finalised.
/// Both queries may be made at any time from any thread (MPI 4.0 §11.2.1, §11.6).
pub fn active() -> bool {
    is_initialized() && !is_finalized()
}

/// `(rank, size)` in `MPI_COMM_WORLD` when the program runs under MPI and MPI is initialised
/// (and not finalised); `None` otherwise, including in programs that are not MPI programs.
pub fn rank() -> Option<(i32, i32)> {
    if !active() {
        return None;
    }
    let cached = WORLD.load(Ordering::Acquire);
    if cached >= 0 {
        return Some(unpack(cached));
    }
    let w = SimpleCommunicator::world();
    let (r, n) = (w.rank(), w.size());
    WORLD.store(pack(r, n), Ordering::Release);
    Some((r, n))
}

/// `(rank, size)` for naming persisted files: the world rank once MPI has reported it (kept
/// after `MPI_Finalize`), else the rank the MPI launcher put in the environment (so it also
/// works before `MPI_Init`); `None` when not under MPI **or when the job has one process** (a
/// 1-process job shares the plain, rank-less file names with non-MPI runs).
pub fn persist_rank() -> Option<(u32, u32)> {
    let (r, n) = match rank() {
        Some(rn) => rn,
        None => match WORLD.load(Ordering::Acquire) {
            c if c >= 0 => unpack(c),
            _ => {
                let (r, n) = launcher_rank()?;
                (r as i32, n as i32)
            }
        },
    };
    (n > 1 && r >= 0).then_some((r as u32, n as u32))
}

/// The rank and size an MPI launcher (or Slurm) put in this process's environment, if any
/// (size `u32::MAX` when the launcher only gives the rank).
pub fn launcher_rank() -> Option<(u32, u32)> {
    launcher_rank_from(crate::env::var)
}

/// [`launcher_rank`] through a lookup function (tests).
pub fn launcher_rank_from(get: impl Fn(&str) -> Option<String>) -> Option<(u32, u32)> {
    // (rank variable, size variable): Open MPI, PMIx (size unknown here), MPICH/Intel MPI
    // (Hydra's PMI), MVAPICH2, Slurm's srun.
    const VARS: [(&str, Option<&str>); 5] = [
        ("OMPI_COMM_WORLD_RANK", Some("OMPI_COMM_WORLD_SIZE")),
        ("PMI_RANK", Some("PMI_SIZE")),
        ("MV2_COMM_WORLD_RANK", Some("MV2_COMM_WORLD_SIZE")),
        ("PMIX_RANK", None),
        ("SLURM_PROCID", Some("SLURM_NTASKS")),
    ];
    let num = |k: &str| get(k).and_then(|v| v.trim().parse::<u32>().ok());
    VARS.iter().find_map(|&(rv, sv)| {
        let r = num(rv)?;
        // Without a size variable (PMIx alone), the size is reported as u32::MAX ("several"):
        // rank 0 cannot tell a 1-process job apart, and its files are then named `.rank0`.
        let n = sv.and_then(num).unwrap_or(u32::MAX);
        Some((r, n.max(r + 1)))
    })
}

/// Allgather of one region's rows: every rank's rows, in rank order (identity when MPI is not
/// active or the job has one process).
///
/// **Collective** over `MPI_COMM_WORLD`: see the module documentation. To pool several regions
/// use [`pool_all`], which makes one collective for all of them.
pub fn pool(local: Vec<Row>) -> Vec<Row> {
    pool_all(vec![(String::new(), local)]).into_iter().next().map(|(_, rows)| rows).unwrap_or_default()
}

/// Allgather of the rows of many regions in **one** collective, keyed by model name.
///
/// Returns one entry per model that any rank contributed (ranks may contribute different
/// sets), in the order of first appearance over ranks 0, 1, … (so the same order on every
/// rank); each entry's rows are every contributing rank's rows, in rank order. Identity (with
/// entries of the same name merged) when MPI is not active or the job has one process.
///
/// **Collective** over `MPI_COMM_WORLD`: every rank must call it the same number of times
/// (with any input, even empty) from one thread. See the module documentation.
pub fn pool_all(local: Vec<(String, Vec<Row>)>) -> Vec<(String, Vec<Row>)> {
    match rank() {
        Some((_, n)) if n > 1 => pool_all_in(&SimpleCommunicator::world(), local),
        _ => merge(vec![local]),
    }
}

/// [`pool_all`] on a communicator of the caller's choice (for Rust applications that train
/// over a sub-communicator, e.g. one per coupled code). Collective over `comm`. MPI must be
/// active.
pub fn pool_all_in<C: Communicator>(comm: &C, local: Vec<(String, Vec<Row>)>) -> Vec<(String, Vec<Row>)> {
    // Two threads of one process calling at once would interleave their collectives on the
    // same communicator; serialise them (their order across ranks remains the caller's duty).
    let _guard = COLLECTIVE.lock().unwrap_or_else(|e| e.into_inner());
    check_thread();
    let t0 = std::time::Instant::now();
    let n = comm.size() as usize;
    let mine = encode(&local);

    // 1. Everyone's byte count. u64 so that an oversized total is seen by every rank alike.
    let mut lens = vec![0u64; n];
    comm.all_gather_into(&(mine.len() as u64), &mut lens[..]);
    let total: u64 = lens.iter().sum();
    if total > Count::MAX as u64 {
        // Every rank sees the same counts, so every rank takes this branch: no mismatch.
        diag::warn_once(
            "mpi-pool-too-big",
            &format!("MPI pooling skipped: {total} bytes of samples exceed one MPI_Allgatherv; ranks train on their own samples"),
        );
        return merge(vec![local]);
    }

    // 2. The bytes.
    let counts: Vec<Count> = lens.iter().map(|&l| l as Count).collect();
    let displs: Vec<Count> = counts
        .iter()
        .scan(0, |acc, &c| {
            let d = *acc;
            *acc += c;
            Some(d)
        })
        .collect();
    let mut all = vec![0u8; total as usize];
    {
        let mut part = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
        comm.all_gather_varcount_into(&mine[..], &mut part);
    }

    let mut per_rank = Vec::with_capacity(n);
    for (i, (&d, &c)) in displs.iter().zip(&counts).enumerate() {
        match decode(&all[d as usize..(d + c) as usize]) {
            Ok(regions) => per_rank.push(regions),
            Err(e) => {
                diag::warn_once(
                    &format!("mpi-decode-{i}"),
                    &format!("MPI pooling: the samples of rank {i} are unreadable ({e}); ignoring them"),
                );
            }
        }
    }
    let out = merge(per_rank);
    STATS_CALLS.fetch_add(1, Ordering::Relaxed);
    STATS_BYTES.store(total, Ordering::Relaxed);
    STATS_ROWS.store(out.iter().map(|(_, r)| r.len() as u64).sum(), Ordering::Relaxed);
    STATS_NS.store(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
    out
}

/// Groups rows by (feature vector, variant), in order of first appearance, each with its times
/// in the order given. Feature vectors are compared bit for bit. On pooled rows the result is
/// identical on every rank, so training on it gives every rank the same model: the core can
/// feed each group's times to its statistics (median per group, then the fastest variant per
/// feature vector) without any rank-dependent ordering creeping in.
pub fn group_rows(rows: &[Row]) -> Vec<(Vec<f64>, u32, Vec<f64>)> {
    let mut out: Vec<(Vec<f64>, u32, Vec<f64>)> = Vec::new();
    let mut index: std::collections::HashMap<(Vec<u64>, u32), usize> = std::collections::HashMap::new();
    for r in rows {
        let key = (r.features.iter().map(|f| f.to_bits()).collect::<Vec<u64>>(), r.variant);
        match index.get(&key) {
            Some(&i) => out[i].2.push(r.ns),
            None => {
                index.insert(key, out.len());
                out.push((r.features.clone(), r.variant, vec![r.ns]));
            }
        }
    }
    out
}

/// Figures about the collective pooling done so far (for the report).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Collective pooling calls made (with more than one process).
    pub calls: u64,
    /// Bytes gathered by the last call (all ranks together).
    pub last_bytes: u64,
    /// Rows received by the last call (all ranks and regions together).
    pub last_rows: u64,
    /// Wall time of the last call, ns.
    pub last_ns: u64,
}

/// See [`Stats`].
pub fn stats() -> Stats {
    Stats {
        calls: STATS_CALLS.load(Ordering::Relaxed),
        last_bytes: STATS_BYTES.load(Ordering::Relaxed),
        last_rows: STATS_ROWS.load(Ordering::Relaxed),
        last_ns: STATS_NS.load(Ordering::Relaxed),
    }
}

static STATS_CALLS: AtomicU64 = AtomicU64::new(0);
static STATS_BYTES: AtomicU64 = AtomicU64::new(0);
static STATS_ROWS: AtomicU64 = AtomicU64::new(0);
static STATS_NS: AtomicU64 = AtomicU64::new(0);
static COLLECTIVE: Mutex<()> = Mutex::new(());
/// World (rank, size) packed as `rank << 32 | size`, or -1 before MPI reported it.
static WORLD: AtomicI64 = AtomicI64::new(-1);

fn pack(r: i32, n: i32) -> i64 {
    ((r as i64) << 32) | (n as u32 as i64)
}

fn unpack(p: i64) -> (i32, i32) {
    ((p >> 32) as i32, p as u32 as i32)
}

/// Warns (once) when the collective is made from a thread that may not call MPI.
fn check_thread() {
    use rsmpi::environment::threading_support;
    use rsmpi::Threading;
    if matches!(threading_support(), Threading::Single | Threading::Funneled) {
        let mut main = 0;
        // SAFETY: plain query with an out-parameter, MPI is active.
        unsafe {
            rsmpi::ffi::MPI_Is_thread_main(&mut main);
        }
        if main == 0 {
            diag::warn_once(
                "mpi-thread",
                "MPI pooling called from a thread other than the one that initialised MPI, but MPI \
                 was initialised without MPI_THREAD_SERIALIZED; call ompadapt's training function \
                 from the main thread or use MPI_Init_thread(MPI_THREAD_SERIALIZED or higher)",
            );
        }
    }
}

/// Merges per-rank region lists: model order of first appearance, rows concatenated in order.
fn merge(per_rank: Vec<Vec<(String, Vec<Row>)>>) -> Vec<(String, Vec<Row>)> {
    let mut out: Vec<(String, Vec<Row>)> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for regions in per_rank {
        for (model, rows) in regions {
            match index.get(&model) {
                Some(&i) => {
                    let e: &mut (String, Vec<Row>) = &mut out[i];
                    e.1.extend(rows)
                }
                None => {
                    index.insert(model.clone(), out.len());
                    out.push((model, rows));
                }
            }
        }
    }
    out
}

// Wire format of one rank's contribution (little-endian, so mixed-endian jobs agree):
//   b"OAP1", u32 regions, then per region: u32 name length, name (UTF-8), u32 rows,
//   then per row: u32 features, f64 × features, u32 variant, f64 ns.
const MAGIC: &[u8; 4] = b"OAP1";

fn encode(regions: &[(String, Vec<Row>)]) -> Vec<u8> {
    let rows: usize = regions.iter().map(|(_, r)| r.iter().map(|x| 16 + 8 * x.features.len()).sum::<usize>()).sum();
    let mut b = Vec::with_capacity(8 + rows + regions.iter().map(|(m, _)| 8 + m.len()).sum::<usize>());
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&(regions.len() as u32).to_le_bytes());
    for (model, rows) in regions {
        b.extend_from_slice(&(model.len() as u32).to_le_bytes());
        b.extend_from_slice(model.as_bytes());
        b.extend_from_slice(&(rows.len() as u32).to_le_bytes());
        for r in rows {
            b.extend_from_slice(&(r.features.len() as u32).to_le_bytes());
            for f in &r.features {
                b.extend_from_slice(&f.to_le_bytes());
            }
            b.extend_from_slice(&r.variant.to_le_bytes());
            b.extend_from_slice(&r.ns.to_le_bytes());
        }
    }
    b
}

fn decode(mut b: &[u8]) -> Result<Vec<(String, Vec<Row>)>, String> {
    fn take<'a>(b: &mut &'a [u8], n: usize) -> Result<&'a [u8], String> {
        if b.len() < n {
            return Err("truncated".to_owned());
        }
        let (h, t) = b.split_at(n);
        *b = t;
        Ok(h)
    }
    fn u32_(b: &mut &[u8]) -> Result<u32, String> {
        Ok(u32::from_le_bytes(take(b, 4)?.try_into().unwrap()))
    }
    fn f64_(b: &mut &[u8]) -> Result<f64, String> {
        Ok(f64::from_le_bytes(take(b, 8)?.try_into().unwrap()))
    }
    if take(&mut b, 4)? != MAGIC {
        return Err("bad magic".to_owned());
    }
    let nreg = u32_(&mut b)? as usize;
    let mut out = Vec::with_capacity(nreg.min(1 << 16));
    for _ in 0..nreg {
        let len = u32_(&mut b)? as usize;
        let model = String::from_utf8(take(&mut b, len)?.to_vec()).map_err(|e| e.to_string())?;
        let nrows = u32_(&mut b)? as usize;
        // Each row is at least 16 bytes: never reserve more than the buffer can hold.
        let mut rows = Vec::with_capacity(nrows.min(b.len() / 16));
        for _ in 0..nrows {
            let nf = u32_(&mut b)? as usize;
            if nf > b.len() / 8 {
                return Err("truncated".to_owned());
            }
            let features = (0..nf).map(|_| f64_(&mut b)).collect::<Result<Vec<_>, _>>()?;
            let variant = u32_(&mut b)?;
            let ns = f64_(&mut b)?;
            rows.push(Row { features, variant, ns });
        }
        out.push((model, rows));
    }
    if !b.is_empty() {
        return Err(format!("{} trailing bytes", b.len()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(f: &[f64], v: u32, ns: f64) -> Row {
        Row { features: f.to_vec(), variant: v, ns }
    }

    /// These unit tests run without mpirun: MPI is never initialised, so everything is local.
    #[test]
    fn without_mpi_everything_is_local() {
        assert!(!active());
        assert_eq!(rank(), None);
        let rows = vec![row(&[1.0, 2.0], 1, 30.0), row(&[3.0], 0, 7.5)];
        assert_eq!(pool(rows.clone()), rows);
        assert_eq!(pool(Vec::new()), Vec::new());
        let all = pool_all(vec![("a".into(), rows.clone()), ("b".into(), vec![]), ("a".into(), vec![row(&[], 2, 1.0)])]);
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].0, "a");
        assert_eq!(all[0].1.len(), 3);
        assert_eq!(all[1], ("b".to_owned(), vec![]));
        assert_eq!(stats().calls, 0, "no collective without MPI");
    }

    #[test]
    fn wire_format_round_trip_and_corruption() {
        let regions = vec![
            ("m/1".to_owned(), vec![row(&[1.0, -2.5, f64::MAX], 3, 12345.0), row(&[], 0, 0.5)]),
            (String::new(), vec![]),
            ("ü".to_owned(), vec![row(&[f64::NAN], u32::MAX, f64::INFINITY)]),
        ];
        let b = encode(&regions);
        let back = decode(&b).unwrap();
        assert_eq!(back.len(), 3);
        assert_eq!(back[0], regions[0]);
        assert_eq!(back[1], regions[1]);
        assert_eq!(back[2].1[0].variant, u32::MAX);
        assert!(back[2].1[0].features[0].is_nan());
        for cut in 0..b.len() {
            assert!(decode(&b[..cut]).is_err(), "truncated at {cut} must fail");
        }
        let mut extra = b.clone();
        extra.push(0);
        assert!(decode(&extra).is_err());
        let mut huge = encode(&[("x".to_owned(), vec![])]);
        huge[13..17].copy_from_slice(&u32::MAX.to_le_bytes()); // rows: u32::MAX, no data
        assert!(decode(&huge).is_err());
    }

    #[test]
    fn merge_keeps_first_appearance_and_rank_order() {
        let r0 = vec![("x".to_owned(), vec![row(&[0.0], 0, 1.0)])];
        let r1 = vec![("y".to_owned(), vec![row(&[1.0], 1, 1.0)]), ("x".to_owned(), vec![row(&[1.0], 0, 2.0)])];
        let m = merge(vec![r0, r1]);
        assert_eq!(m.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["x", "y"]);
        assert_eq!(m[0].1.iter().map(|r| r.ns).collect::<Vec<_>>(), [1.0, 2.0]);
    }

    #[test]
    fn grouping_is_by_first_appearance() {
        let rows = vec![row(&[2.0], 1, 5.0), row(&[1.0], 0, 3.0), row(&[2.0], 1, 6.0), row(&[2.0], 0, 1.0), row(&[1.0], 0, 4.0)];
        let g = group_rows(&rows);
        assert_eq!(g, vec![(vec![2.0], 1, vec![5.0, 6.0]), (vec![1.0], 0, vec![3.0, 4.0]), (vec![2.0], 0, vec![1.0])]);
        assert!(group_rows(&[]).is_empty());
    }

    #[test]
    fn launcher_environment() {
        let env =
            |pairs: &'static [(&'static str, &'static str)]| move |k: &str| pairs.iter().find(|(a, _)| *a == k).map(|(_, v)| v.to_string());
        assert_eq!(launcher_rank_from(env(&[])), None);
        assert_eq!(launcher_rank_from(env(&[("OMPI_COMM_WORLD_RANK", "3"), ("OMPI_COMM_WORLD_SIZE", "4")])), Some((3, 4)));
        assert_eq!(launcher_rank_from(env(&[("PMI_RANK", "1"), ("PMI_SIZE", "2")])), Some((1, 2)));
        assert_eq!(launcher_rank_from(env(&[("PMIX_RANK", "5")])).map(|x| x.0), Some(5));
        assert_eq!(launcher_rank_from(env(&[("SLURM_PROCID", "x")])), None);
        assert_eq!(pack(3, 4), (3 << 32) | 4);
        assert_eq!(unpack(pack(7, 9)), (7, 9));
    }
}
