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
        let untimed = if ctx.t0 & !T0_FLAGS == 0 { clock::now() | T0_UNTIMED } else { 0 };
        ctx.t0 |= T0_TRACED | untimed;
    }

    /// Ends a traced execution: the region records it as it would an untraced one, then the
    /// trace gets its start, end and how its variant was chosen.
    #[cold]
    #[inline(never)]
    pub(super) fn end_traced(&self, ctx: &Ctx) {
        let end = clock::now();
        let flags = ctx.t0 & T0_FLAGS;
        let start = ctx.t0 & !T0_FLAGS;
        let mut untraced = *ctx;
        untraced.t0 = (if flags & T0_UNTIMED != 0 { flags } else { ctx.t0 }) & !(T0_TRACED | T0_UNTIMED);
        self.end(&untraced);
        let v = ctx.variant;
        let recorded = flags & T0_NO_RECORD == 0 && v >= 0 && (v as usize) < self.nvariants();
        let decided = (recorded && flags & T0_MODEL != 0).then(|| self.decided_by(ctx.feature_slice()));
        trace::record(&Execution {
            region: self as *const Region as usize,
            features: ctx.feature_slice(),
            variant: v,
            start,
            end,
            decided,
            cold: flags & T0_COLD != 0,
            recorded,
            ctx: ctx as *const Ctx as usize,
        });
    }

    /// What chose the variant of a decided execution on `features`: a fixed variant (or coarse
    /// mode's pin for the run), the label exploration measured for the vector (the model was
    /// trained on it), or the model's prediction.
    fn decided_by(&self, features: &[f64]) -> Decided {
        let Some(t) = self.model.load_full() else { return Decided::Fixed };
        if t.origin == Origin::Fixed {
            return Decided::Fixed;
        }
        let key = FeatureKey::new(features);
        let trained_on = trace::trained_on(self as *const Region as usize, &t, || t.labels.iter().map(|(k, _)| *k).collect(), &key);
        if trained_on {
            Decided::Explored
        } else {
            Decided::Trained
        }
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
