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
use crate::program_memo::{MemoEntry, MEMO_FEATURES};

impl Region {
    /// Starts a trained execution from the memo when it can (see the module's comment): fills
    /// `ctx` as [`Region::enter`] would and returns true; false: nothing was changed.
    ///
    /// # Safety
    /// `features` is null or points to `nfeatures` doubles.
    #[inline(always)]
    pub(crate) unsafe fn begin_memo(&self, features: *const f64, nfeatures: c_int, ctx: &mut Ctx) -> bool {
        let n = nfeatures as u32 as usize; // a negative count is huge: the full path's case
        if n > MAX_FEATURES || (features.is_null() && n != 0) {
            return false;
        }
        let f = if n == 0 { &[][..] } else { std::slice::from_raw_parts(features, n) };
        // the cached shard only: finding it otherwise touches thread-locals, which may panic
        // in a thread's destructors, and nothing here is inside `catch_unwind`
        let Some(shard) = self.shards.local_cached() else { return false };
        let Some(start) = self.memo_start(shard, f) else { return false };
        super::select::copy_features(&mut ctx.features, f);
        self.start_from_memo(n, start, ctx);
        true
    }

    /// [`Region::begin_memo`] with the `n` features already in `ctx.features` (Apollo's ABI
    /// collects them there, one call at a time) and the calling thread's shard of the region
    /// at hand ([`Region::cached_shard`], kept by the caller between executions).
    #[inline(always)]
    pub(crate) fn begin_memo_filled(&self, shard: &Shard, n: usize, ctx: &mut Ctx) -> bool {
        let n = n.min(MAX_FEATURES);
        let Some(start) = self.memo_start(shard, &ctx.features[..n]) else { return false };
        self.start_from_memo(n, start, ctx);
        true
    }

    /// The calling thread's shard of the region if the thread cache has it (no thread-local
    /// access, nothing that can panic). Only this thread may use it, while it lives.
    #[inline(always)]
    pub(crate) fn cached_shard(&self) -> Option<&Shard> {
        self.shards.local_cached()
    }

    /// The memo's decision for `f` in `shard` (the calling thread's: its slot, variant, value
    /// and whether the execution is the thread's timed sample), the thread's sampling
    /// countdown stepped; None: the full path's case, nothing changed.
    #[inline(always)]
    fn memo_start<'s>(&self, shard: &'s Shard, f: &[f64]) -> Option<(&'s Slot, usize, f64, bool)> {
        // declared ranges (per region); the trace or the data-movement tool (process-wide)
        if !self.memo_ok || self.declared.hooked() || crate::every_execution::needed() {
            return None;
        }
        let epoch = self.epoch.load(Acquire);
        if epoch & 1 == 0 {
            return None;
        }
        let slot = shard.memo_find(f)?;
        let v = slot.variant.load(Relaxed);
        if slot.epoch.load(Relaxed) != epoch || v == EXPLORE {
            return None;
        }
        let v = (v as usize).min(self.nvariants() - 1);
        let value = *self.spec.values.get(v)?;
        let left = shard.sample_left.load(Relaxed);
        let timed = left == 0;
        if timed {
            // the sample (as `begin_trained`). A variant's first execution in the process (cold)
            // never starts here: the slot's decision ran on the full path first, which marked
            // it (`begin_trained`); should one come, the full path flags it.
            if !self.warmed.get(v).is_some_and(|w| w.load(Relaxed)) {
                return None;
            }
            shard.sample_left.store(self.sample - 1, Relaxed);
            bump(&shard.turns, 1);
        } else {
            shard.sample_left.store(left - 1, Relaxed);
        }
        Some((slot, v, value, timed))
    }

    /// Fills `ctx` (all but its features) for the execution [`Region::memo_start`] decided.
    #[inline(always)]
    fn start_from_memo(&self, n: usize, (slot, v, value, timed): (&Slot, usize, f64, bool), ctx: &mut Ctx) {
        ctx.region = self as *const Region as *mut c_void;
        ctx.nfeatures = n as c_int;
        ctx.variant = v as c_int;
        ctx.value = value;
        ctx.t0 = Start::decided(0);
        ctx.keep_for_end((slot as *const Slot).cast());
        if timed {
            ctx.t0 = ctx.t0.with_time(clock::now()); // last: the execution starts now
        }
    }

    /// Ends an execution [`Region::begin_memo`] (or the full path) started as an untimed trained
    /// one with its slot kept, as [`Region::leave`] would: counts it in the slot. False:
    /// anything else, for the full path.
    #[inline(always)]
    pub(crate) fn end_memo(&self, ctx: &Ctx) -> bool {
        self.end_memo_checked::<true>(ctx)
    }

    /// [`Region::end_memo`] for a context started on the calling thread (Apollo's ABI: a
    /// thread's frames never leave it), whose kept slot is therefore the thread's own.
    #[inline(always)]
    pub(crate) fn end_memo_on_own_thread(&self, ctx: &Ctx) -> bool {
        self.end_memo_checked::<false>(ctx)
    }

    #[inline(always)]
    fn end_memo_checked<const CHECK_OWNER: bool>(&self, ctx: &Ctx) -> bool {
        if !ctx.t0.is_plain_trained() || crate::every_execution::needed() {
            return false;
        }
        // SAFETY: what `begin` kept there is a slot of this region's shards, which live as long
        // as the region.
        let Some(slot) = (unsafe { ctx.kept_for_end().cast::<Slot>().as_ref() }) else { return false };
        let v = ctx.variant as u32 as usize;
        if v >= self.nvariants() || (CHECK_OWNER && !slot.owned_here()) {
            return false;
        }
        bump(slot.count(v), 1);
        true
    }
}

impl Region {
    /// Fills `e`, the calling thread's entry of the program's memo for call site `site` (see
    /// [`crate::program_memo`]), after `ctx` started an execution, where [`Region::begin_memo`]
    /// would start the next execution of the same vector the same way: a trained, recorded,
    /// untraced execution whose slot (the thread's own) holds its decision for the current
    /// epoch, in a region whose memo is on, no pin or declared range hooked, nothing needing
    /// every execution. `generation` was read before the execution started, so that anything
    /// that changed the decision since leaves the entry stale.
    pub(crate) fn fill_program_memo(&self, site: *const c_void, ctx: &Ctx, generation: u64, e: &mut MemoEntry) {
        let n = ctx.nfeatures as u32 as usize;
        let t0 = ctx.t0;
        if !self.memo_ok || n > MEMO_FEATURES || !t0.was_decided() || !t0.records() || t0.is_traced() {
            return;
        }
        if self.declared.hooked() || crate::every_execution::needed() || !crate::dataflow::absent() {
            return;
        }
        // SAFETY: what `begin` kept is a slot of this region's shards, which live as long as it.
        let Some(slot) = (unsafe { ctx.kept_for_end().cast::<Slot>().as_ref() }) else { return };
        let v = ctx.variant as u32;
        let epoch = self.epoch.load(Acquire);
        let decided = slot.epoch.load(Relaxed) == epoch && slot.variant.load(Relaxed) == v;
        if epoch & 1 == 0 || !decided || v as usize >= self.nvariants() || !slot.owned_here() {
            return;
        }
        e.site = site;
        e.generation = generation;
        e.nfeatures = n as c_int;
        e.variant = v as c_int;
        e.value = ctx.value;
        e.region = ctx.region;
        e.kept = ctx.kept;
        e.count = slot.count(v as usize);
        e.sample_left = &slot.shard().sample_left;
        for (b, f) in e.features.iter_mut().zip(&ctx.features[..n]) {
            *b = f.to_bits();
        }
    }

    /// An execution the program's memo counted at its start leaves that count (before its
    /// variant changes or it stops being recorded): recording sees an ordinary trained
    /// execution from then on. Nothing for any other execution.
    pub(crate) fn uncount(&self, ctx: &mut Ctx) {
        if !ctx.t0.is_counted() {
            return;
        }
        ctx.t0 = ctx.t0.uncounted();
        // SAFETY: as in `fill_program_memo`.
        let Some(slot) = (unsafe { ctx.kept_for_end().cast::<Slot>().as_ref() }) else { return };
        let v = ctx.variant as u32 as usize;
        if v < self.nvariants() && slot.owned_here() {
            bump(slot.count(v), u64::MAX); // minus one
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(sample: u32) -> Region {
        let spec = crate::spec::parse("ompadapt1;model=m;loc=m.c:1;features=n;variants=a,b").unwrap().descriptor;
        RegionBuilder::new().min_train(2).warmup(false).sample(sample).learn(0.0).build(spec)
    }

    /// One execution as `ompadapt_begin`/`ompadapt_end` run it: the memo where it can, else
    /// the full path. Returns (variant, whether the memo started it).
    fn run(r: &Region, f: &[f64], ns: impl Fn(usize) -> u64) -> (usize, bool) {
        let mut c = Ctx::zeroed();
        // SAFETY: `f` holds `f.len()` doubles.
        let memo = unsafe { r.begin_memo(f.as_ptr(), f.len() as c_int, &mut c) };
        if !memo {
            r.enter(f, &|_| None, &mut c);
        }
        assert_eq!(c.feature_slice(), f);
        if c.t0.is_timed() {
            c.t0.backdate(super::super::tests_ticks(ns(c.variant as usize)));
        }
        if !r.end_memo(&c) {
            r.leave(&c);
        }
        (c.variant as usize, memo)
    }

    fn train(r: &Region) {
        for _ in 0..4 {
            for f in [1.0, 2.0] {
                run(r, &[f], |v| if (v == 0) == (f < 1.5) { 10_000 } else { 900_000 });
            }
        }
        assert!(r.is_trained());
    }

    /// After training, repeating vectors start from the memo; every execution is counted once
    /// and one in `sample` is timed, as on the full path; a vector whose bits a key normalises
    /// (-0.0) takes the full path and counts in the same slot.
    #[test]
    fn the_memo_counts_what_the_full_path_would() {
        let r = region(4);
        train(&r);
        let timed = |r: &Region| -> u64 { r.snapshot().entries.iter().flat_map(|e| &e.per_variant).map(|p| p.model_timed).sum() };
        let before = (r.snapshot().recorded_model, timed(&r));
        let mut from_memo = 0;
        for i in 0..400 {
            let f = [1.0 + (i % 2) as f64];
            let (v, memo) = run(&r, &f, |_| 10_000);
            assert_eq!(v, i % 2, "the trained decision");
            from_memo += memo as usize;
        }
        assert!(from_memo >= 300, "{from_memo} of 400 from the memo");
        assert_eq!(r.snapshot().recorded_model - before.0, 400);
        assert_eq!(timed(&r) - before.1, 100, "one in 4 timed");
        run(&r, &[0.0], |_| 1);
        for _ in 0..3 {
            assert!(!run(&r, &[-0.0], |_| 1).1, "-0.0 never matches 0.0's bits");
        }
        let zero = r.snapshot().entries.into_iter().find(|e| e.key == FeatureKey::new(&[0.0])).unwrap();
        assert_eq!(zero.per_variant.iter().map(|p| p.model_count).sum::<u64>(), 4);
    }

    /// A republished decision (a re-measured vector: the epoch moves) is never taken from the
    /// memo: the vector explores again, then runs its new decision.
    #[test]
    fn an_epoch_change_bypasses_the_memo() {
        let r = region(1 << 20);
        train(&r);
        assert_eq!(run(&r, &[1.0], |_| 1).0, 0);
        assert_eq!(run(&r, &[1.0], |_| 1), (0, true));
        r.remeasure(&[1.0]);
        let (_, memo) = run(&r, &[1.0], |_| 1);
        assert!(!memo, "the slot's decision is for an older epoch");
        // the vector is measured again (variant 1 now the fast one) until a decision is
        // published for it; from then on the memo serves that decision
        let mut n = 0;
        loop {
            let (v, memo) = run(&r, &[1.0], |v| if v == 1 { 10_000 } else { 900_000 });
            if memo {
                assert_eq!(Some(v), r.decide(&[1.0]), "the memo serves the current decision");
                break;
            }
            n += 1;
            assert!(n < 200, "decided again");
        }
        let now = r.decide(&[1.0]).unwrap();
        assert_eq!(run(&r, &[1.0], |_| 1), (now, true), "the current decision, from the memo");
    }

    /// The program's memo: an entry is filled only for a trained execution the region's memo
    /// would repeat; a start the program makes from it (counted at once) counts exactly as
    /// the runtime's would, `uncount` takes it back before a switch, and a change of decision
    /// makes the entry's generation stale.
    #[test]
    fn the_programs_memo_is_filled_for_trained_executions_only() {
        use crate::program_memo::generation;
        let r = region(1 << 20);
        let mut e = crate::program_memo::tests_empty();
        let site = 0x1000 as *const c_void;
        // exploring: no entry
        let mut c = Ctx::zeroed();
        r.enter(&[1.0], &|_| None, &mut c);
        r.fill_program_memo(site, &c, generation(), &mut e);
        assert!(e.site.is_null(), "an exploring execution fills nothing");
        r.leave(&c);
        train(&r);
        run(&r, &[1.0], |_| 1);
        let g = generation();
        let mut c = Ctx::zeroed();
        r.enter(&[1.0], &|_| None, &mut c);
        r.fill_program_memo(site, &c, g, &mut e);
        assert_eq!((e.site, e.generation, e.nfeatures, e.variant), (site, g, 1, c.variant));
        assert_eq!(e.features[0], 1.0f64.to_bits());
        r.leave(&c);
        let count = |r: &Region| -> u64 { r.snapshot().recorded_model };
        let before = count(&r);
        // what the generated code's begin does on a hit, then its end (nothing)
        // SAFETY: the entry's pointers are this thread's counters.
        unsafe {
            bump(&*e.count, 1);
            let left = &*e.sample_left;
            left.store(left.load(Relaxed) - 1, Relaxed);
        }
        let mut hit = Ctx::zeroed();
        hit.region = e.region;
        hit.t0 = Start::MEMO_COUNTED;
        hit.variant = e.variant;
        hit.nfeatures = 1;
        hit.features[0] = 1.0;
        hit.kept = e.kept;
        assert_eq!(count(&r), before + 1, "counted once, at its start");
        r.uncount(&mut hit);
        assert_eq!(count(&r), before, "taken back before a switch");
        assert!(!hit.t0.is_counted());
        assert!(r.end_memo(&hit), "an ordinary trained execution from then on");
        assert_eq!(count(&r), before + 1);
        r.remeasure(&[1.0]);
        assert_ne!(generation(), g, "a changed decision makes every entry stale");
    }

    /// Each thread has its own memo: another thread's first execution of a vector takes the
    /// full path, and its counts are its own.
    #[test]
    fn the_memo_is_per_thread() {
        let r = region(1 << 20);
        train(&r);
        run(&r, &[2.0], |_| 1);
        assert!(run(&r, &[2.0], |_| 1).1);
        std::thread::scope(|s| {
            s.spawn(|| {
                assert_eq!(run(&r, &[2.0], |_| 1), (1, false), "not this thread's memo");
                assert_eq!(run(&r, &[2.0], |_| 1), (1, true));
            });
        });
        assert!(run(&r, &[2.0], |_| 1).1);
        assert_eq!(r.snapshot().threads, 2);
    }
}
