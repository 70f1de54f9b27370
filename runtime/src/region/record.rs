//! The end of an execution: its time recorded (trained executions in the thread's shard,
//! exploring ones buffered and handed to the measurements), drift checks, and training when ready.

use super::*;

impl Region {
    /// Ends the execution started by `begin` on `ctx`: records it; may train.
    #[inline(always)]
    pub fn end(&self, ctx: &Ctx) {
        self.end_as(ctx, ctx.t0);
    }

    /// [`Region::end`] with `start` as the context's start (a traced execution's end passes
    /// the start recording sees).
    #[inline(always)]
    pub(super) fn end_as(&self, ctx: &Ctx, start: Start) {
        let v = ctx.variant;
        if !start.records() || start.is_traced() || v < 0 || v as usize >= self.nvariants() {
            if start.is_traced() {
                return self.end_traced(ctx);
            }
            self.unrecorded.fetch_add(1, Relaxed);
            return;
        }
        let t0 = start.at();
        // SAFETY: what `begin` kept there is a slot of this region's shards, and shards live as
        // long as the region.
        let slot = unsafe { ctx.kept_for_end().cast::<Slot>().as_ref() }.filter(|s| s.owned_here());
        if start.was_decided() {
            match slot {
                Some(slot) => self.record_slot(slot, v as usize, t0),
                None => self.record_trained(ctx.feature_slice(), v as usize, t0),
            }
            return;
        }
        let ns = clock::to_ns(clock::now().saturating_sub(t0));
        let cold = self.cold_recorded(start);
        match slot {
            Some(slot) => self.record_explore_fast(slot, v as usize, ns, cold),
            None => self.record_explore(&FeatureKey::new(ctx.feature_slice()), v as usize, ns, cold, None, None),
        }
    }

    /// Records a trained execution in this thread's slot: plain loads and stores; the clock is
    /// read only for a timed one (`t0` ≠ 0).
    #[inline(always)]
    fn record_slot(&self, slot: &Slot, v: usize, t0: u64) {
        bump(slot.count(v), 1);
        if t0 != 0 {
            self.record_timed(slot, v, clock::now().saturating_sub(t0));
        }
    }

    #[inline(never)]
    fn record_timed(&self, slot: &Slot, v: usize, ticks: u64) {
        bump(slot.timed(v), 1);
        bump(slot.ticks(v), ticks);
        let gate = slot.recheck_ticks.load(Relaxed);
        if gate != 0 && ticks <= gate {
            return self.recheck_now(slot, v, ticks);
        }
        let bar = slot.bar_ticks.load(Relaxed);
        if bar != u64::MAX && self.monitor.load(Relaxed) && slot.variant.load(Relaxed) as usize == v {
            let n = slot.window_judged.load(Relaxed) + 1;
            slot.window_judged.store(n, Relaxed);
            if ticks > bar {
                slot.window_slow.store(slot.window_slow.load(Relaxed) + 1, Relaxed);
            }
            if n >= self.drift_cfg.window {
                self.end_window(slot, v);
            }
        }
    }

    /// Records a trained execution whose slot `begin` could not stash (another thread began
    /// it, 16 features, or a full shard).
    #[cold]
    fn record_trained(&self, f: &[f64], v: usize, t0: u64) {
        let shard = self.shards.local();
        let h = hash_features(f);
        match shard.find(h, f).or_else(|| shard.insert(h, &FeatureKey::new(f))) {
            Some(slot) => self.record_slot(slot, v, t0),
            None => {
                let ticks = if t0 != 0 { clock::now().saturating_sub(t0) } else { 0 };
                let mut g = self.lock();
                let e = g.overflow.entry((FeatureKey::new(f), v)).or_insert((0, 0, 0));
                e.0 = e.0.saturating_add(1);
                if t0 != 0 {
                    e.1 = e.1.saturating_add(1);
                    e.2 = e.2.saturating_add(ticks);
                }
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn end_window(&self, slot: &Slot, v: usize) {
        let (flags, n) = (slot.window_slow.load(Relaxed), slot.window_judged.load(Relaxed));
        let (slow, previous) = (flags & !drift::PREVIOUS_WINDOW_DRIFTED, flags & drift::PREVIOUS_WINDOW_DRIFTED != 0);
        let this = drift::window_drifted(slow, n, &self.drift_cfg);
        slot.window_judged.store(0, Relaxed);
        // two drifting windows in a row are a drift; one is remembered for the next
        slot.window_slow.store(if this && !previous { drift::PREVIOUS_WINDOW_DRIFTED } else { 0 }, Relaxed);
        if this && previous {
            self.drifted(slot.key(), v, slow, n, slot.epoch.load(Relaxed));
        }
    }

    /// Measures vector `features` afresh: its retained measurements are set aside (they stay
    /// in the saved files), every variant is measured again and the vector labelled again; a
    /// trained model keeps deciding every other vector and retrains once the new label is
    /// known. Returns the vector's label before (None: not measured yet, or undecided).
    pub fn remeasure(&self, features: &[f64]) -> Option<usize> {
        let mut g = self.lock();
        self.adopt_pending(&mut g);
        self.reopen_locked(&mut g, &FeatureKey::new(features))
    }

    pub(super) fn reopen_locked(&self, g: &mut Inner, key: &FeatureKey) -> Option<usize> {
        g.measurements.find(key)?;
        let before = g.measurements.reopen(key);
        self.exploration_version.fetch_add(1, Release);
        let e = self.epoch.load(Relaxed);
        if e & 1 == 1 && self.model.load().is_some() {
            // every thread looks its decisions up again: this vector now explores
            self.epoch.store(e + 2, Release);
            crate::program_memo::invalidate();
        }
        before
    }

    /// A measured pair ran slower than its measured time in most of a window under `epoch`:
    /// its vector is measured afresh (see [`Region::remeasure`]).
    pub(super) fn drifted(&self, key: &FeatureKey, v: usize, slow: u32, window: u32, epoch: u64) {
        let executions = self.executions();
        let mut g = self.lock();
        if self.epoch.load(Relaxed) != epoch || self.mode.frozen {
            return; // another thread acted already, or the model changed
        }
        if self.resets.load(Relaxed) >= self.drift_cfg.max_resets {
            self.monitor.store(false, Relaxed);
            diag::warn_once(
                &format!("drift-max:{}", self.spec.model),
                &format!(
                    "region '{}': execution times keep drifting after {} re-measured feature vectors; keeping \
                     the current model and no longer checking (OMPADAPT_DRIFT_MAX raises the limit)",
                    self.spec.model, self.drift_cfg.max_resets
                ),
            );
            return;
        }
        self.adopt_pending(&mut g);
        if g.measurements.find(key).is_none() {
            return;
        }
        self.resets.fetch_add(1, Relaxed);
        let label_before = self.reopen_locked(&mut g, key);
        g.drifts.push(DriftEvent { at_execution: executions, key: *key, variant: v, label_before, slow, window });
    }

    /// Records an exploring measurement through this thread's slot: buffered without a lock
    /// unless it is due for assessment (see `fill_view`).
    #[inline(always)]
    pub(super) fn record_explore_fast(&self, slot: &Slot, v: usize, ns: u64, cold: bool) {
        if slot.view.version.load(Relaxed) != self.exploration_version.load(Relaxed) {
            return self.record_explore(slot.key(), v, ns, cold, Some(slot.view.at.load(Relaxed)), Some(slot));
        }
        let left = slot.wanted_of(v).load(Relaxed);
        let undecided = slot.view.decided.load(Relaxed) == u32::MAX;
        if left > 0 {
            slot.wanted_of(v).store(left - 1, Relaxed);
            let w = slot.view.wanted.load(Relaxed).saturating_sub(1);
            slot.view.wanted.store(w, Relaxed);
            if w == 0 && undecided && !self.cycling.load(Relaxed) {
                return self.record_explore(slot.key(), v, ns, cold, Some(slot.view.at.load(Relaxed)), Some(slot));
            }
        }
        if undecided && self.strategy.load(Relaxed) == Strategy::Elimination as u8 {
            return self.record_explore(slot.key(), v, ns, cold, Some(slot.view.at.load(Relaxed)), Some(slot));
        }
        let c = slot.xcnt(v).load(Relaxed) + 1;
        slot.xcnt(v).store(c, Relaxed);
        let done = c == slot.view.threshold.load(Relaxed) as u64;
        let shard = slot.shard();
        let len = shard.buf_len.load(Relaxed);
        if len - shard.buf_taken.load(Acquire) >= BUF as u64 {
            self.flush(shard);
        }
        let e = &shard.buf[len as usize % BUF];
        e.at.store(slot.view.at.load(Relaxed), Relaxed);
        let flags = if done { DONE } else { 0 } | if cold { COLD } else { 0 };
        e.vns.store((v as u64) << V_SHIFT | flags | ns.min(NS_MASK), Relaxed);
        shard.buf_len.store(len + 1, Release);
        // after the entry is visible: whoever hands it over adds back what this takes
        if done && self.slack.fetch_sub(1, AcqRel) <= 1 {
            self.completed();
        }
    }

    /// A buffered pair completion may have made the region ready: hands every thread's buffer
    /// to the measurement table and trains if it is.
    #[cold]
    #[inline(never)]
    fn completed(&self) {
        let job = {
            let mut g = self.lock();
            self.adopt_pending(&mut g);
            self.claim(&mut g)
        };
        if let Some(job) = job {
            self.train_and_publish(job);
        }
    }

    /// Hands `shard`'s buffered measurements to the measurement table; trains if they made it ready
    /// (measurements of several threads may complete a pair there, see `fill_view`).
    #[cold]
    #[inline(never)]
    pub(super) fn flush(&self, shard: &Shard) {
        let job = {
            let mut g = self.lock();
            self.take_pending(&mut g.measurements, shard);
            self.claim(&mut g)
        };
        if let Some(job) = job {
            self.train_and_publish(job);
        }
    }

    /// Moves every thread's buffered measurements into the measurement table (caller holds the lock).
    pub(crate) fn adopt_pending(&self, g: &mut Inner) {
        self.shards.for_each(|s| self.take_pending(&mut g.measurements, s));
    }

    /// Records an exploring measurement under the lock; `at` is where begin saw the vector.
    /// `slot` (owned by the calling thread) gets its view refreshed on the way.
    #[cold]
    #[inline(never)]
    fn record_explore(&self, key: &FeatureKey, v: usize, ns: u64, cold: bool, at: Option<u64>, slot: Option<&Slot>) {
        let job = {
            let mut g = self.lock();
            if let Some(slot) = slot {
                // this thread's earlier measurements first: the measurement table sees them in order,
                // and the view refreshed below counts them
                self.take_pending(&mut g.measurements, slot.shard());
            }
            let st = &mut g.measurements;
            let i = at
                .filter(|&a| (a >> 32) as u32 == st.generation)
                .map(|a| (a & 0xffff_ffff) as usize)
                .filter(|&i| i >= 1 && st.key_is(i - 1, key))
                .map(|i| i - 1)
                .unwrap_or_else(|| st.fv(key));
            self.with_assessment_inputs(|env| st.record_at(i, v, ns as f64, cold, env));
            if let Some(slot) = slot {
                self.fill_view(st, i, slot);
            }
            self.claim(&mut g)
        };
        if let Some(job) = job {
            self.train_and_publish(job);
        }
    }

    /// Moves `shard`'s buffered measurements into `st` (caller holds the region's lock). Those
    /// of an earlier generation count as executions but are dropped.
    pub(super) fn take_pending(&self, st: &mut MeasurementTable, shard: &Shard) {
        let len = shard.buf_len.load(Acquire);
        let mut i = shard.buf_taken.load(Relaxed);
        if i == len {
            return;
        }
        let mut done = 0;
        self.with_assessment_inputs(|env| {
            while i < len {
                let e = &shard.buf[i as usize % BUF];
                let (at, vns) = (e.at.load(Relaxed), e.vns.load(Relaxed));
                let idx = (at & 0xffff_ffff) as usize;
                let (v, ns) = ((vns >> V_SHIFT) as usize, vns & NS_MASK);
                done += (vns & DONE != 0) as i64;
                if (at >> 32) as u32 == st.generation && idx >= 1 && idx <= st.len() && v < st.nv() {
                    st.record_at(idx - 1, v, ns as f64, vns & COLD != 0, env);
                } else {
                    st.recorded_explore += 1;
                }
                i += 1;
            }
        });
        shard.buf_taken.store(len, Release);
        if done != 0 {
            // the completions are in the measurement table's counters now (the lock's release counts them)
            self.slack.fetch_add(done, AcqRel);
        }
    }

    /// Adds measurements loaded from earlier runs (already saved); [`Region::settle`] once all
    /// are in.
    pub fn absorb(&self, key: &FeatureKey, v: usize, count: u64, warm: &[f64], cold: &[f64], fresh: bool) {
        self.lock().measurements.absorb(key, v, count, warm, cold, fresh);
        self.loaded_samples.fetch_add(count, Relaxed);
    }

    /// Notes a vector the model decided in an earlier run (it recurs).
    pub fn note_seen(&self, key: &FeatureKey) {
        self.lock().measurements.seen.insert(*key);
    }

    /// Assesses every vector after loading: labels, and what is still wanted.
    pub fn settle(&self) {
        self.settle_cached(None);
    }

    /// [`Region::settle`], restoring the assessment `cache` where it was made from exactly
    /// the data loaded (see [`crate::measurements::Settled`]); returns what it decided.
    pub fn settle_cached(&self, cache: Option<&crate::measurements::Settled>) -> Option<crate::measurements::Settled> {
        let mut g = self.lock();
        let settled = self.with_assessment_inputs(|env| g.measurements.settle_cached(env, cache));
        self.exploration_version.fetch_add(1, Release);
        settled
    }
}
