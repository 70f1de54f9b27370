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

use std::sync::OnceLock;

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
}
