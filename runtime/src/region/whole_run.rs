//! Whole-run trials (see [`crate::whole_run`]): the own variant of an own run, and whether this
//! run of the region was clean.

use super::*;

impl Region {
    /// The variant every execution runs in an own run of the whole-run trial: the program's own,
    /// where the region has one and it is available (None: the region decides as usual).
    #[inline]
    pub fn whole_run_own(&self) -> Option<usize> {
        if !crate::whole_run::own_run() {
            return None;
        }
        own::own_variant(&self.spec.variants).filter(|&o| self.available(o))
    }

    /// What this run of the region says to the whole-run trial: apart (broken, held,
    /// associated: alike in every run), clean (one fixed variant, as in an own run or Apollo's
    /// `Static`; or a stored model that decided from the start, with nothing explored, drifted,
    /// rechecked or on a control trial), else unclean. (Variants unavailable in this run are no
    /// difference between runs: every run finds them so.)
    pub fn whole_run_taking(&self) -> crate::whole_run::RegionRun {
        use crate::whole_run::{labels_hash, RegionRun};
        if self.broken.is_some() || self.held.is_some() || self.is_associated() {
            return RegionRun::Apart;
        }
        let Some(t) = self.model.load_full() else { return RegionRun::Unclean };
        let clean = |labels: u64| RegionRun::Clean { executions: self.executions(), labels };
        if matches!(t.origin, Origin::Fixed) {
            return clean(0);
        }
        let stored = matches!(t.origin, Origin::Stored { .. } | Origin::Loaded | Origin::Frozen(_));
        if !stored || self.learn_execs.load(Relaxed) != 0 || self.trials.load(Relaxed) || self.retrains.load(Relaxed) != 0 {
            return RegionRun::Unclean;
        }
        let quiet = {
            let g = self.lock();
            g.drifts.is_empty() && g.rechecked.is_empty()
        };
        if quiet {
            clean(labels_hash(&t.labels))
        } else {
            RegionRun::Unclean
        }
    }
}
