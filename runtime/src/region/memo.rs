//! The trained path's memo (issue 35 item 8): an execution whose vector this thread ran lately
//! under the current decision is started and ended without the feature hash, the index probe,
//! the entry policy and the recording's checks. Everything that is not that plain case (a
//! vector not in the memo, an epoch change, a variant's cold first execution, a region with an
//! entry policy or declared ranges, tracing, the data-movement tool) returns false and takes
//! the full path, which puts the slot in the memo again once it has a trained decision for it
//! (and the data-movement tool is known to be absent: it is looked for at the first `begin`).
//! A timed sample starts here too; its `end` (which reads the clock) takes the full path.
//!
//! Sound by construction: the memo holds slot pointers of the calling thread's own shard, and
//! a slot holds its key, its decision and the epoch the decision is for; a hit is a slot whose
//! key has the vector's exact bits (so the one [`Shard::find`] would return), and its decision
//! is used only when its epoch is the region's current one, as on the full path. Per thread
//! (the shard's), so no thread reads another's memo; a forked child has the parent's thread's
//! shard and memo, as it has its counts.

use super::*;

impl Region {
    /// Starts a trained execution from the memo when it can (see the module's comment): fills
    /// `ctx` as [`Region::enter`] would and returns true; false: nothing was changed.
    ///
    /// # Safety
    /// `features` is null or points to `nfeatures` doubles.
    #[inline(always)]
    pub(crate) unsafe fn begin_memo(&self, features: *const f64, nfeatures: c_int, ctx: &mut Ctx) -> bool {
        let n = nfeatures as u32 as usize; // a negative count is huge: the full path's case
        // below MAX_FEATURES: `end` finds its slot in the scratch entry past the features
        if !self.memo_ok || n >= MAX_FEATURES || (features.is_null() && n != 0) {
            return false;
        }
        // declared ranges (per region); the trace or the data-movement tool (process-wide)
        if self.declared.hooked() || crate::every_execution::needed() {
            return false;
        }
        let f = if n == 0 { &[][..] } else { std::slice::from_raw_parts(features, n) };
        let epoch = self.epoch.load(Acquire);
        if epoch & 1 == 0 {
            return false;
        }
        let shard = self.shards.local();
        let Some(slot) = shard.memo_find(f) else { return false };
        let v = slot.variant.load(Relaxed);
        if slot.epoch.load(Relaxed) != epoch || v == EXPLORE {
            return false;
        }
        let v = (v as usize).min(self.nvariants() - 1);
        let Some(&value) = self.spec.values.get(v) else { return false };
        let left = shard.sample_left.load(Relaxed);
        let timed = left == 0;
        if timed {
            // the sample (as `begin_trained`); a variant's first execution here is cold, which
            // the full path records
            if self.warmup && !self.warmed.get(v).is_some_and(|w| w.load(Relaxed)) {
                return false;
            }
            shard.sample_left.store(self.sample - 1, Relaxed);
            bump(&shard.turns, 1);
        } else {
            shard.sample_left.store(left - 1, Relaxed);
        }
        super::select::copy_features(&mut ctx.features, f);
        ctx.region = self as *const Region as *mut c_void;
        ctx.nfeatures = n as c_int;
        ctx.variant = v as c_int;
        ctx.value = value;
        ctx.t0 = Start::decided(0);
        ctx.keep_for_end((slot as *const Slot).cast());
        if timed {
            ctx.t0 = ctx.t0.with_time(clock::now()); // last: the execution starts now
        }
        true
    }

    /// Ends an execution [`Region::begin_memo`] (or the full path) started as an untimed trained
    /// one with its slot kept, as [`Region::leave`] would: counts it in the slot. False:
    /// anything else, for the full path.
    #[inline(always)]
    pub(crate) fn end_memo(&self, ctx: &Ctx) -> bool {
        if !ctx.t0.is_plain_trained() || crate::every_execution::needed() {
            return false;
        }
        // SAFETY: what `begin` kept there is a slot of this region's shards, which live as long
        // as the region.
        let Some(slot) = (unsafe { ctx.kept_for_end().cast::<Slot>().as_ref() }) else { return false };
        let v = ctx.variant as u32 as usize;
        if v >= self.nvariants() || !slot.owned_here() {
            return false;
        }
        bump(slot.count(v), 1);
        true
    }
}
