//! Rechecks: a label that its own trained executions contradict is measured again, once, in
//! the middle of a later run.
//!
//! Exploration measures a vector's variants in its first executions in a process, and those
//! can run several times slower than the steady state: libomp's first forks (40 µs for 5–60 ms
//! where the steady cost is 1.5 µs: `benchmarks/c/fork_startup.c`), a program's first passes
//! over its data (page faults, the allocator growing its heap: miniFE's offloaded matvec takes
//! 26, 23, then 8 ms and finally 4 ms per execution). Such a transient does not slow every
//! variant alike, so a label measured inside it can be the slower variant for the rest of every
//! run (miniFE's matvec labelled `cpu`: 12.2 ms measured against `gpu`'s 19.0 ms, while the
//! steady state is 6.5 ms against 4.1 ms). Drift detection (`drift`) does not see it: it looks
//! for slowdowns, and a run of a few hundred executions never fills its windows.
//!
//! The evidence is in the store: every run saves its trained executions' timed samples per
//! (vector, variant) (`monitored`). When a run loads them and the label's mean over at least
//! [`MIN_TIMED`] of them is [`FASTER`] times below the robust time the label was chosen on (and
//! `OMPADAPT_DRIFT_MIN_NS` below it), the measurements were taken in a transient: the vector
//! is *rechecked*. It keeps its label until one of its timed executions in this run is nearer
//! that steady mean than the measured time (the geometric midpoint, [`gate_ns`]): the process
//! is past its transient. Then its variants are measured afresh, as after a drift (the new
//! measurements supersede the old ones for it, the model retrains where the label changed).
//!
//! Once only: a pair measured afresh already (after a drift or a recheck: its stored data say
//! `superseded`) is never rechecked, so a region whose alternated measurements never agree
//! with its steady runs costs one re-measurement, not one per run. Only the faster direction:
//! a mean *above* the measured time is what every region run a few times per process shows
//! (its cold first execution is timed; the label was chosen on warm ones), and slowdowns
//! within a run are drift's. `OMPADAPT_RECHECK=0` turns rechecks off.

use crate::config::DriftConfig;

/// The label's trained mean must be this many times below its measured time.
pub const FASTER: f64 = 1.5;

/// Timed trained executions of the label needed before their mean says anything.
pub const MIN_TIMED: u64 = 8;

/// Whether a label measured at `measured_ns` is contradicted by `timed` trained executions of
/// it with mean `mean_ns`.
pub fn contradicted(measured_ns: f64, mean_ns: f64, timed: u64, cfg: &DriftConfig) -> bool {
    cfg.enabled
        && cfg.recheck
        && timed >= MIN_TIMED
        && measured_ns.is_finite()
        && mean_ns.is_finite()
        && mean_ns > 0.0
        && mean_ns * FASTER < measured_ns
        && measured_ns - mean_ns >= cfg.min_ns
}

/// The time at or below which a timed execution shows that the process runs the label at its
/// steady rate: the geometric midpoint of the measured time and the steady mean.
pub fn gate_ns(measured_ns: f64, mean_ns: f64) -> f64 {
    (measured_ns * mean_ns).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_clearly_faster_steady_state_contradicts() {
        let c = DriftConfig::default();
        assert!(contradicted(12.18e6, 6.58e6, 10, &c), "miniFE's matvec");
        assert!(!contradicted(12.18e6, 6.58e6, 7, &c), "too few timed executions");
        assert!(!contradicted(9.0e6, 6.58e6, 10, &c), "within 1.5x");
        assert!(!contradicted(3_000.0, 1_500.0 - 1.0, 100, &DriftConfig { min_ns: 2_000.0, ..c }), "under min_ns");
        assert!(!contradicted(1.0e6, 4.0e6, 100, &c), "slower: drift's business");
        assert!(!contradicted(12.18e6, 6.58e6, 10, &DriftConfig { recheck: false, ..c }));
        assert!(!contradicted(12.18e6, 6.58e6, 10, &DriftConfig { enabled: false, ..c }));
        assert!(!contradicted(f64::NAN, 1.0, 10, &c));
        assert_eq!(gate_ns(16.0, 4.0), 8.0);
    }
}
