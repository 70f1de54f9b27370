//! Executions recorded for the timeline (`OMPADAPT_TRACE`, see [`crate::trace`]): the start
//! every traced execution gets, and what its end hands to the trace once the region recorded it.

use super::*;
use crate::trace::{self, Decided, Execution};

impl Region {
    /// Marks the execution started on `ctx` as traced. An execution that recording does not
    /// time (a trained one between samples, a cold one) gets a start for the trace alone.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_start(ctx: &mut Ctx) {
        ctx.t0.set_traced(clock::now);
    }

    /// Ends a traced execution: the region records it as it would an untraced one, then the
    /// trace gets its start, end and how its variant was chosen.
    #[cold]
    #[inline(never)]
    pub(super) fn end_traced(&self, ctx: &Ctx) {
        let end = clock::now();
        let (start, untraced) = ctx.t0.untraced();
        self.end_as(ctx, untraced);
        let v = ctx.variant;
        let recorded = untraced.records() && v >= 0 && (v as usize) < self.nvariants();
        let decided = (recorded && untraced.was_decided()).then(|| self.decided_by(ctx.feature_slice()));
        trace::record(&Execution {
            region: self as *const Region as usize,
            features: ctx.feature_slice(),
            variant: v,
            start,
            end,
            decided,
            cold: untraced.is_cold(),
            recorded,
            ctx: ctx as *const Ctx as usize,
        });
    }

    /// What chose the variant of a decided execution on `features`: a fixed variant (or coarse
    /// mode's pin for the run), the label exploration measured for the vector (the model was
    /// trained on it), or the model's prediction. The trace keeps per thread what the decision
    /// function of the current epoch was trained on.
    fn decided_by(&self, features: &[f64]) -> Decided {
        let epoch = self.epoch.load(Acquire);
        let decides = || match self.model.load_full() {
            Some(t) if t.origin != Origin::Fixed => trace::Decides::Model(t.labels.iter().map(|(k, _)| *k).collect()),
            _ => trace::Decides::Fixed,
        };
        trace::decided_by(self as *const Region as usize, epoch, decides, &FeatureKey::new(features))
    }

    /// What the trace says about this region: its name, where it is, its variants and features.
    pub fn trace_info(&self) -> trace::RegionInfo {
        trace::RegionInfo {
            id: self as *const Region as usize,
            name: self.spec.model.clone(),
            loc: self.spec.loc.clone(),
            variants: self.spec.variants.clone(),
            features: self.spec.features.clone(),
        }
    }
}
