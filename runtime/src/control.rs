//! Control runs: a label that is not the program's own variant is kept only if, run after run,
//! it is faster than the own variant run the same way.
//!
//! Exploration compares variants one execution at a time, alternating them. A variant whose
//! cost depends on what ran before it is misjudged that way: miniFE's offloaded matvec
//! allocates and copies its 30 MB operands at every launch, and run launch after launch (as
//! the program as written runs it) the allocator settles and it takes 4 ms, while a launch
//! between `cpu` executions takes 17 ms, even in the middle of a run (a recheck measured it
//! there: `recheck`). Exploration labels `cpu` (6.5 ms) and the adaptive build runs 1.45x
//! stock's time. Only the variant's own steady state shows the difference, and the program's
//! own variant is the one whose steady state costs nothing to see: it is what the program
//! does without ompadapt.
//!
//! So when a run loads a vector whose label is not the own variant (`gpu` for an offload,
//! `threads=1` for a host region: `region::own`), with [`crate::recheck::MIN_TIMED`] or more
//! timed trained executions of the label stored:
//! * if the own variant has fewer stored trained executions than that, this run is its *trial*:
//!   the vector runs the own variant throughout (stock's behaviour and speed), and every one
//!   of those executions is timed (not 1 in `OMPADAPT_SAMPLE`), so that a vector run 8 times
//!   or more per run has its trial in one run;
//! * otherwise the two means decide: the own variant runs from now on unless the label's mean
//!   is faster by more than [`OWN_MARGIN`], the issue's own bar for "as fast as stock" (a
//!   benefit that small is not worth leaving the program's own code for). Not exploration's
//!   10 % indifference: measured on PolyBench durbin (125 vectors, `serial` labels), that
//!   margin gave 21 vectors to `threads=1` whose means were 5–9 % slower, and the trained run
//!   went from 0.717 to 0.795 of stock's time (medians of 9 alternations, load 0.5–0.8).
//!
//! Only labels whose stored mean is [`MIN_MEAN_NS`] (100 µs) or more are judged: below that a
//! mean of a few timed executions is as much the machine's preemptions as the variant's cost.
//!
//! No trial where exploration measured the own variant more than [`TRIAL_BOUND`] times slower
//! than the label's stored mean: that is twice the largest effect of a variant's history
//! measured here (miniFE's matvec, 17 ms against 4.1 ms), and a trial would run a variant that
//! much slower for a whole run (the lu sweep mapped per kernel: `gpu` 1.4 ms per launch
//! against `cpu`'s 0.1 ms; trials of its 72 vectors took its adaptive runs from 0.08 to 0.26 of
//! stock's time while they lasted).
//!
//! The means are over every stored run of each (transients included on both sides: each ran
//! whole runs). A vector being rechecked in this run waits for its trial. Re-judged at every
//! load, from the data alone: nothing is stored but the trained executions themselves.
//! `OMPADAPT_CONTROL=0` turns control runs off.

use crate::recheck::MIN_TIMED;

/// The label's stored mean must be faster than the own variant's by more than this fraction
/// for the label to run.
pub const OWN_MARGIN: f64 = 0.02;

/// Labels whose stored mean is shorter than this are not judged: one preempted execution (tens
/// of µs on a busy machine) moves a mean of 8 to 16 timed samples far more than the margin.
/// PolyBench durbin's 1–8 µs vectors had trial means up to 2.4x below their labels' and ran
/// slower in whole runs with the own variant (0.678 → 0.764 of stock, 9 alternations). Judging
/// a region's short labels together (a pooled trial, totals weighted by how often each label
/// ran) did not help either: durbin's first region got an own verdict on 33 labels, and the
/// trained run went from 1.049 to 1.146 of stock's time (11 alternations on copies of one
/// store). The own variant's trial time says nothing about what it does to the executions
/// around it: the team it wakes spins beside the serial executions of the other vectors.
/// Dropped (docs/performance.md, session 11).
pub const MIN_MEAN_NS: f64 = 100_000.0;

/// The own variant's measured time over the label's stored mean above which no trial runs.
pub const TRIAL_BOUND: f64 = 8.0;

/// What a vector's stored trained executions say about its label against the own variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The own variant has too few timed executions: it runs throughout this run.
    Trial,
    /// The label is not clearly faster: the own variant runs.
    Own,
    /// The label is faster by more than the indifference margin: it runs.
    Label,
}

/// The verdict from the label's stored trained executions (mean, timed), the own variant's
/// (None: none stored) and the own variant's measured time (exploration's robust estimate);
/// None when the label's are too few or too short ([`MIN_MEAN_NS`]) to say anything, or where
/// the own variant measured
/// [`TRIAL_BOUND`] times slower and has no trained executions stored.
pub fn verdict(label: (f64, u64), own: Option<(f64, u64)>, own_measured: Option<f64>) -> Option<Verdict> {
    let (label_mean, label_timed) = label;
    if label_timed < MIN_TIMED || !label_mean.is_finite() || label_mean < MIN_MEAN_NS {
        return None;
    }
    let far_slower = own_measured.is_some_and(|m| m > TRIAL_BOUND * label_mean);
    Some(match own {
        Some((own_mean, timed)) if timed >= MIN_TIMED && own_mean.is_finite() => {
            if own_mean <= label_mean * (1.0 + OWN_MARGIN) {
                Verdict::Own
            } else {
                Verdict::Label
            }
        }
        _ if far_slower => return None,
        _ => Verdict::Trial,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        assert_eq!(verdict((6.5e6, 7), None, None), None, "too few of the label");
        assert_eq!(verdict((6.5e6, 9), None, Some(16.6e6)), Some(Verdict::Trial));
        assert_eq!(verdict((6.5e6, 9), Some((4.1e6, 3)), None), Some(Verdict::Trial), "too few of the own variant");
        assert_eq!(verdict((6.5e6, 9), Some((4.1e6, 9)), None), Some(Verdict::Own), "miniFE's matvec");
        assert_eq!(verdict((6.5e6, 9), Some((6.6e6, 9)), None), Some(Verdict::Own), "within 2 %");
        assert_eq!(verdict((6.5e6, 9), Some((7.0e6, 9)), None), Some(Verdict::Label), "7.7 % faster: the label runs");
        assert_eq!(verdict((6.5e6, 9), Some((7.5e6, 9)), Some(1e9)), Some(Verdict::Label));
        assert_eq!(verdict((f64::NAN, 9), None, None), None);
        assert_eq!(verdict((0.1e6, 9), None, Some(1.4e6)), None, "the lu sweep: no trial 14x slower");
        assert_eq!(verdict((6.9e3, 9), Some((2.9e3, 200)), None), None, "durbin: microseconds are not judged");
        assert_eq!(verdict((0.1e6, 9), Some((1.3e6, 9)), Some(1.4e6)), Some(Verdict::Label), "stored data still judge");
    }
}
