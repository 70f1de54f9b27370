//! What the team-size variants of a host parallel region mean on this machine: `serial` (one
//! thread, no team), `num_threads=N` (as the user asked) and `threads=F`, a share of the team
//! the program would get — `max(1, round(F × team))`, the team being the region's own
//! `num_threads` clause (which only the generated code knows, plugin/include/ompadapt_lowering.h)
//! or `omp_get_max_threads()`; here, without the clause, the latter.
//!
//! Shares keep one binary portable: on 2 cores `threads=0.125` and `threads=0.5` are both one
//! thread, on 128 cores 16 and 64. Variants that give the same team here are one variant here:
//! all but one of them are made unavailable for the run, so exploration measures each team
//! once ([`duplicates`]).
//!
//! What the variants resolved to is saved with the run's data ([`TeamRecord`]): a measurement
//! of one counts for every variant that ran the same team in every run the data records
//! ([`TeamRecord::stand_ins`]), so a region measured on a 2-thread machine is complete there,
//! and a later run with a larger team, where those variants differ, does not count them as
//! measured.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use ompadapt_abi::openmp;

/// libomp's `omp_get_max_threads` and `omp_in_parallel`, found in the process (an OpenMP
/// program links libomp); None in a process without it.
struct Omp {
    max_threads: unsafe extern "C" fn() -> libc::c_int,
    in_parallel: unsafe extern "C" fn() -> libc::c_int,
}

fn omp() -> Option<&'static Omp> {
    static OMP: OnceLock<Option<Omp>> = OnceLock::new();
    OMP.get_or_init(|| {
        // SAFETY: dlsym with NUL-terminated names; the symbols have these types when present.
        unsafe {
            let m = libc::dlsym(libc::RTLD_DEFAULT, openmp::GET_MAX_THREADS.as_ptr());
            let p = libc::dlsym(libc::RTLD_DEFAULT, openmp::IN_PARALLEL.as_ptr());
            (!m.is_null() && !p.is_null()).then(|| Omp {
                max_threads: std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn() -> libc::c_int>(m),
                in_parallel: std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn() -> libc::c_int>(p),
            })
        }
    })
    .as_ref()
}

/// `omp_get_max_threads()` (None without libomp).
pub fn max_threads() -> Option<u32> {
    // SAFETY: libomp's function, no arguments.
    omp().map(|o| unsafe { (o.max_threads)() }.max(1) as u32)
}

/// Whether the calling thread is in an active parallel region (false without libomp).
#[inline]
pub fn in_parallel() -> bool {
    // SAFETY: libomp's function, no arguments.
    omp().is_some_and(|o| unsafe { (o.in_parallel)() } != 0)
}

/// The team a variant named `name` runs with when the program's team is `max` threads; None
/// for a variant that sets no team size.
pub fn team_size(name: &str, max: u32) -> Option<u32> {
    use ompadapt_abi::kinds::{self, Kind};
    let kind = kinds::decode(name).filter(Kind::sets_team_size)?;
    if kind == Kind::Serial {
        return Some(1);
    }
    let (absolute, share) = kind.team_arguments();
    let max = max.min(i32::MAX as u32) as i32;
    Some(kinds::team_size(absolute as i32, share, max).max(1) as u32)
}

/// One variant that gives the same team as another: `variant` runs as `same_as` here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duplicate {
    /// The variant made unavailable.
    pub variant: usize,
    /// The variant that runs its team.
    pub same_as: usize,
    /// That team's threads.
    pub threads: u32,
}

/// The variants of `names` that give the same team as another one with `max` threads: each
/// team keeps `serial` if it is one, else an absolute `num_threads`, else the largest share
/// (for the whole machine: the team as written).
pub fn duplicates(names: &[String], max: u32) -> Vec<Duplicate> {
    let rank = |n: &str| -> (u8, f64) {
        match n.split_once('=') {
            None => (0, 0.0),
            Some(("num_threads", _)) => (1, 0.0),
            Some((_, v)) => (2, -v.parse::<f64>().unwrap_or(0.0)),
        }
    };
    let sized: Vec<(usize, u32)> = names.iter().enumerate().filter_map(|(i, n)| team_size(n, max).map(|t| (i, t))).collect();
    let mut out = Vec::new();
    for &(i, t) in &sized {
        let kept = sized
            .iter()
            .filter(|&&(_, u)| u == t)
            .map(|&(j, _)| j)
            .min_by(|&a, &b| rank(&names[a]).partial_cmp(&rank(&names[b])).unwrap_or(std::cmp::Ordering::Equal).then(a.cmp(&b)))
            .unwrap_or(i);
        if kept != i {
            out.push(Duplicate { variant: i, same_as: kept, threads: t });
        }
    }
    out
}

/// How a host region's team-size variants resolved in one run: what its data file keeps so
/// that readers know which variants were one measurement there.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct TeamRecord {
    /// The team the program would get (`omp_get_max_threads()`) in that run.
    pub team: u32,
    /// Per variant that sets a team size, by name: the threads it ran with.
    pub threads: BTreeMap<String, u32>,
}

impl TeamRecord {
    /// The resolution of `names` with a team of `max` threads (None: fewer than two variants
    /// set a team size).
    pub fn of(names: &[String], max: u32) -> Option<TeamRecord> {
        let threads: BTreeMap<String, u32> = names.iter().filter_map(|n| team_size(n, max).map(|t| (n.clone(), t))).collect();
        (threads.len() > 1).then_some(TeamRecord { team: max, threads })
    }

    /// Whether variants `a` and `b` ran the same team in every record that resolves both (and
    /// at least one does).
    pub fn same_team(records: &[TeamRecord], a: &str, b: &str) -> bool {
        let mut both = records.iter().filter_map(|r| Some((r.threads.get(a)?, r.threads.get(b)?))).peekable();
        both.peek().is_some() && both.all(|(x, y)| x == y)
    }

    /// Per variant of `names`: the other variants whose measurements count for it (the same
    /// team in every run `records` describe), in declaration order.
    pub fn stand_ins(records: &[TeamRecord], names: &[String]) -> Vec<Vec<usize>> {
        (0..names.len())
            .map(|u| (0..names.len()).filter(|&w| w != u && TeamRecord::same_team(records, &names[u], &names[w])).collect())
            .collect()
    }

    /// The teams variant `name` ran with over `records`: (the program's team, its threads),
    /// one per distinct pair, by team.
    pub fn resolutions(records: &[TeamRecord], name: &str) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> = records.iter().filter_map(|r| Some((r.team, *r.threads.get(name)?))).collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn shares_resolve_against_the_machine() {
        assert_eq!(team_size("threads=0.5", 2), Some(1));
        assert_eq!(team_size("threads=0.75", 2), Some(2));
        assert_eq!(team_size("threads=0.125", 2), Some(1));
        assert_eq!(team_size("threads=0.125", 128), Some(16));
        assert_eq!(team_size("threads=1", 128), Some(128));
        assert_eq!(team_size("serial", 128), Some(1));
        assert_eq!(team_size("num_threads=3", 2), Some(3));
        assert_eq!(team_size("cpu", 2), None);
        assert_eq!(team_size("schedule=dynamic", 2), None);
    }

    #[test]
    fn one_variant_per_team() {
        let v = names(&["serial", "threads=0.125", "threads=0.25", "threads=0.5", "threads=1"]);
        // 2 threads: serial, 1, 1, 1, 2
        assert_eq!(
            duplicates(&v, 2),
            vec![
                Duplicate { variant: 1, same_as: 0, threads: 1 },
                Duplicate { variant: 2, same_as: 0, threads: 1 },
                Duplicate { variant: 3, same_as: 0, threads: 1 },
            ]
        );
        // 16 threads: 1, 2, 4, 8, 16: all different
        assert!(duplicates(&v, 16).is_empty());
        // without serial, the largest share keeps a team
        let w = names(&["threads=0.25", "threads=0.5", "threads=0.75", "threads=1", "schedule=dynamic"]);
        assert_eq!(
            duplicates(&w, 2),
            vec![Duplicate { variant: 0, same_as: 1, threads: 1 }, Duplicate { variant: 2, same_as: 3, threads: 2 }]
        );
    }

    /// A measurement counts for the variants that ran the same team in every recorded run: on
    /// 2 threads serial and the small shares are one; once a 16-thread run is recorded, none
    /// of them stands in for another.
    #[test]
    fn stand_ins_need_the_same_team_in_every_recorded_run() {
        let v = names(&["serial", "threads=0.25", "threads=0.5", "threads=1", "schedule=dynamic"]);
        let two = TeamRecord::of(&v, 2).unwrap();
        assert_eq!(two.threads.len(), 4, "schedule=dynamic sets no team: {two:?}");
        let s = TeamRecord::stand_ins(&[two.clone()], &v);
        assert_eq!(s, vec![vec![1, 2], vec![0, 2], vec![0, 1], vec![], vec![]]);
        let sixteen = TeamRecord::of(&v, 16).unwrap();
        assert!(TeamRecord::stand_ins(&[two.clone(), sixteen.clone()], &v).iter().all(Vec::is_empty));
        assert_eq!(TeamRecord::resolutions(&[sixteen, two.clone(), two], "threads=0.5"), vec![(2, 1), (16, 8)]);
        assert!(TeamRecord::stand_ins(&[], &v).iter().all(Vec::is_empty), "no record: nothing stands in");
        assert_eq!(TeamRecord::of(&names(&["serial", "cpu"]), 2), None);
    }
}
