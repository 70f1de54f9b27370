//! The start of an execution: the variant it runs (a trained decision from the thread's shard, or
//! exploration), its features and its clock.

use super::*;

impl Region {
    /// Starts one execution: fills `ctx` (features, variant, value, start time).
    #[inline]
    pub fn begin(&self, features: &[f64], ctx: &mut Ctx) {
        let n = features.len().min(MAX_FEATURES);
        copy_features(&mut ctx.features, &features[..n]);
        self.begin_filled(n, ctx);
    }

    /// [`Region::begin`] with the `n` features already in `ctx.features` (Apollo's ABI collects
    /// them there, one call at a time).
    #[inline(always)]
    pub(super) fn begin_filled(&self, n: usize, ctx: &mut Ctx) {
        self.start_execution(n, ctx);
        // off: one relaxed load and a branch that is never taken
        if crate::trace::on() {
            Self::trace_start(ctx);
        }
    }

    /// Fills `ctx` for one execution: its variant and start time.
    #[inline(always)]
    fn start_execution(&self, n: usize, ctx: &mut Ctx) {
        let n = n.min(MAX_FEATURES);
        ctx.region = self as *const Region as *mut c_void;
        ctx.kept = std::ptr::null(); // until a slot is kept: `end` records by key
        ctx.nfeatures = n as c_int;
        if self.broken.is_some() {
            let v = self.fallback_variant();
            ctx.variant = v as c_int;
            ctx.value = self.spec.values.get(v).copied().unwrap_or(0.0);
            ctx.t0 = Start::unrecorded();
            return;
        }
        let f = &ctx.features[..n];
        if self.declared.hooked() {
            if let Some(v) = self.declared_begin(f) {
                // fixed by an associated region for this run: recorded as an exploring measurement
                let v = self.usable(None, v.min(self.nvariants() - 1));
                let cold = self.first_run(v);
                ctx.variant = v as c_int;
                ctx.value = self.spec.values[v];
                ctx.t0 = Start::exploring(clock::now(), cold);
                return;
            }
        }
        let epoch = self.epoch.load(Acquire);
        let shard = self.shards.local();
        if epoch & 1 == 1 {
            // the memo first (see `memo`): what Apollo's ABI reaches, which fills the context
            // itself
            if let Some(slot) = shard.memo_find(f) {
                let v = slot.variant.load(Relaxed);
                if slot.epoch.load(Relaxed) == epoch && v != EXPLORE {
                    self.begin_trained(shard, v as usize, slot, n, ctx);
                    return;
                }
            }
        }
        let h = hash_features(f);
        let mut found = shard.find(h, f);
        if epoch & 1 == 1 {
            let cached = match found {
                Some(slot) if slot.epoch.load(Relaxed) == epoch => Some((slot.variant.load(Relaxed), slot as *const Slot)),
                _ => self.decide_slow(shard, h, f, epoch),
            };
            if let Some((v, slot)) = cached {
                if v != EXPLORE {
                    self.begin_trained(shard, v as usize, slot, n, ctx);
                    return;
                }
                found = unsafe { slot.as_ref() };
            }
        }
        self.begin_exploring(shard, h, found, n, ctx);
    }

    /// A trained execution on the first `n` features of `ctx`: the cached decision (its slot,
    /// of `shard`, goes in the memo); one in `sample` is timed.
    #[inline(always)]
    fn begin_trained(&self, shard: &Shard, v: usize, slot: *const Slot, n: usize, ctx: &mut Ctx) {
        let v = v.min(self.nvariants() - 1);
        ctx.variant = v as c_int;
        ctx.value = self.spec.values[v];
        ctx.t0 = Start::decided(0); // not timed
                                    // the variant's first execution in the process is cold, whatever decided it: the trace
                                    // says so, and it is never timed (with OMPADAPT_WARMUP)
        let cold = self.first_run(v);
        ctx.t0.set_cold(cold);
        // SAFETY: a slot of `shard` (found or inserted there), which lives as long as it
        let trial = match unsafe { slot.as_ref() } {
            Some(s) => {
                let trial = s.trial.load(Relaxed);
                // the memo starts executions only once the data-movement tool is known absent,
                // and never a trial's (each of those is timed)
                if crate::dataflow::absent() && !trial {
                    shard.memo_put(&ctx.features[..n], s);
                }
                ctx.keep_for_end(slot.cast());
                trial
            }
            None => false,
        };
        let left = shard.sample_left.load(Relaxed);
        if left != 0 {
            shard.sample_left.store(left - 1, Relaxed);
            if !trial {
                return;
            }
        } else {
            shard.sample_left.store(self.sample - 1, Relaxed);
            bump(&shard.turns, 1);
        }
        // the first execution of a variant in this process is cold: counted, not timed
        if !(cold && self.warmup) {
            ctx.t0 = ctx.t0.with_time(clock::now()); // last: the execution starts now
        }
    }

    /// Whether this execution of variant `v` is its first in the process (a cold one), for
    /// whatever chose it: exploration, a decision, a pin, an associated region, a
    /// replacement. Exactly one execution per variant gets true. Recording keeps it apart as
    /// a cold measurement only with `OMPADAPT_WARMUP` (see [`Region::cold_recorded`]).
    #[inline(always)]
    pub(super) fn first_run(&self, v: usize) -> bool {
        !self.warmed[v].load(Relaxed) && !self.warmed[v].swap(true, Relaxed)
    }

    /// Whether recording keeps an execution that `start` says is cold apart as a cold
    /// measurement (`OMPADAPT_WARMUP`; off: every measurement counts as warm).
    #[inline(always)]
    pub(super) fn cold_recorded(&self, start: Start) -> bool {
        self.warmup && start.is_cold()
    }

    /// An exploring execution: a variant the vector's view wants (or its label).
    fn begin_exploring(&self, shard: &Shard, h: u64, found: Option<&Slot>, n: usize, ctx: &mut Ctx) {
        let (v, slot) = self.explore_begin(shard, h, found, &ctx.features[..n]);
        // a view taken before a variant became unavailable may still name it
        let v = self.usable(None, v);
        let v = v.min(self.nvariants() - 1);
        // The variant's first execution in this process is recorded as a cold measurement (the
        // first offload initialises the device; see `explore`).
        let cold = self.first_run(v);
        if self.epoch.load(Relaxed) & 1 == 1 {
            self.learn_execs.fetch_add(1, Relaxed);
        }
        ctx.variant = v as c_int;
        ctx.value = self.spec.values[v];
        ctx.t0 = Start::exploring(0, cold);
        if !slot.is_null() {
            ctx.keep_for_end(slot.cast());
        }
        ctx.t0 = ctx.t0.with_time(clock::now()); // last: the execution starts now
    }

    /// The decision for `f` under `epoch` (odd) when this thread has none cached, with the
    /// slot `end` records into (null if the shard is full). [`EXPLORE`]: the vector explores.
    #[cold]
    #[inline(never)]
    fn decide_slow(&self, shard: &Shard, h: u64, f: &[f64], epoch: u64) -> Option<(u32, *const Slot)> {
        let key = FeatureKey::new(f);
        let slot = shard.find(h, f).or_else(|| shard.insert(h, &key));
        let mut cache = true;
        // the program's own variant in an own run of the whole-run trial: nothing explores,
        // drifts or is rechecked (the run is stock's)
        let whole = self.whole_run_own();
        let (variant, bar) = match self.model.load_full() {
            Some(t) => {
                // that, or the region's own variant where it settled on it: no model to evaluate
                let own = whole.or_else(|| self.settled_on_own(&t));
                let v = if whole.is_none() && self.learns_after_training(&t) {
                    let (v, c) = self.route(&key, &t, slot, own);
                    cache = c;
                    v
                } else {
                    own.unwrap_or_else(|| t.predict(&key)) as u32
                };
                let v = if v == EXPLORE { v } else { self.usable(Some((&key, &t)), v as usize) as u32 };
                let bar = match v {
                    EXPLORE => u64::MAX,
                    v if self.monitor.load(Relaxed) && whole.is_none() => {
                        match drift::bar_ns(t.time.predict(&key, v as usize), &self.drift_cfg) {
                            u64::MAX => u64::MAX,
                            ns => (ns as f64 / clock::ns_per_tick()) as u64,
                        }
                    }
                    _ => u64::MAX,
                };
                (v, bar)
            }
            None if self.mode.coarse => (self.coarse_pin(&key) as u32, u64::MAX),
            None => return None, // not trained (any more): explore
        };
        if let Some(s) = slot {
            s.variant.store(if variant == EXPLORE { EXPLORE } else { variant.min(self.nvariants() as u32 - 1) }, Relaxed);
            s.bar_ticks.store(bar, Relaxed);
            s.recheck_ticks.store(if variant == EXPLORE || whole.is_some() { 0 } else { self.recheck_gate(&key, variant) }, Relaxed);
            s.trial.store(variant != EXPLORE && self.on_trial(&key), Relaxed);
            s.window_judged.store(0, Relaxed);
            s.window_slow.store(0, Relaxed);
            // epochs are odd: 0 makes the next execution decide again
            s.epoch.store(if cache { epoch } else { 0 }, Relaxed);
        }
        Some((variant, slot.map_or(std::ptr::null(), |s| s as *const Slot)))
    }

    /// Whether a trained region still learns: explores new vectors and re-measures drifting
    /// ones (not frozen, not a fixed variant, not coarse, training allowed).
    pub(super) fn learns_after_training(&self, t: &Trained) -> bool {
        !self.mode.frozen && !self.mode.coarse && !matches!(t.origin, Origin::Fixed | Origin::Frozen(_)) && !self.cycling.load(Relaxed)
    }

    /// A trained region's decision for `key` (under the lock): the label of a decided vector
    /// (the own variant where the region settled on it), [`EXPLORE`] for one being explored
    /// (new, or re-measured after a drift) or that starts exploring now (it recurs and the
    /// budget allows), else the model's prediction (`own` where the region settled on it). The second
    /// value says whether the decision may be cached for the epoch: not for a vector seen for
    /// the first time (its next execution asks again: it may recur).
    fn route(&self, key: &FeatureKey, t: &Trained, slot: Option<&Slot>, own: Option<usize>) -> (u32, bool) {
        let decide = |k: &FeatureKey| own.unwrap_or_else(|| t.predict(k)) as u32;
        let mut g = self.lock();
        if let Some(i) = g.measurements.find(key) {
            let r = g.measurements.rec(i);
            if let Some(l) = r.decided() {
                // a control run's verdict: the program's own variant (see `control`)
                let l = if g.own_decides.contains_key(key) { own::own_variant(&self.spec.variants).unwrap_or(l) } else { l };
                return (own.unwrap_or(l) as u32, true);
            }
            // being explored: a vector first explored after training goes on while the budget
            // lasts; one the first exploration or a drift opened is finished
            let novel = r.flags & crate::explore::NOVEL != 0;
            return (if !novel || self.learning_allowed(&mut g) { EXPLORE } else { decide(key) }, true);
        }
        let nv = self.nvariants();
        let recurs = slot.is_some_and(|s| (0..nv).any(|v| s.count(v).load(Relaxed) > 0)) || g.measurements.seen.contains(key);
        if !recurs {
            return (decide(key), slot.is_none() || self.learn <= 0.0);
        }
        let decision = decide(key) as usize;
        // the budget first: where it is spent, whether the neighbours settle the vector (a walk
        // over every trained vector) changes nothing
        if !self.learning_allowed(&mut g) || super::settled::settled(&t.labels, &t.time, nv, key, decision) {
            // no budget, or the trained vectors around it agree by a wide margin: nothing to
            // learn here
            return (decision as u32, true);
        }
        let i = g.measurements.fv(key);
        g.measurements.mark_novel(i);
        // its exploration starts with what would decide: nothing is lost where that is right
        if let Some(s) = slot {
            s.view.round_robin.store(decision as u32, Relaxed);
        }
        (EXPLORE, true)
    }

    /// Whether exploring executions after training are within budget: `learn` × this run's
    /// executions, plus one pass over the variants. The run's trained executions are
    /// estimated from the threads' sampling turns (one read per thread).
    fn learning_allowed(&self, g: &mut Inner) -> bool {
        if self.learn <= 0.0 {
            return false;
        }
        let mut n = self.unrecorded.load(Relaxed) + g.measurements.recorded_explore;
        self.shards.for_each(|s| n += s.turns.load(Relaxed) * self.sample as u64);
        let budget = (self.learn * n as f64) as u64 + self.nvariants() as u64;
        self.learn_execs.load(Relaxed) < budget
    }

    /// Coarse mode without a model: the variant `key` runs for this whole run (the one with
    /// the fewest recorded runs, lowest index on ties), fixed at its first execution.
    pub(super) fn coarse_pin(&self, key: &FeatureKey) -> usize {
        let mut g = self.lock();
        if let Some(&v) = g.measurements.pins.get(key) {
            return v;
        }
        let v = g.measurements.least_measured(key);
        g.measurements.pins.insert(*key, v);
        v
    }

    /// An exploring execution's variant, chosen from this thread's view of its vector, and the
    /// slot `end` records through (null: record by key under the lock).
    fn explore_begin(&self, shard: &Shard, h: u64, found: Option<&Slot>, f: &[f64]) -> (usize, *const Slot) {
        if self.mode.frozen {
            // frozen and nothing published (not after creation)
            return (self.fallback_variant(), std::ptr::null());
        }
        let Some(slot) = found.or_else(|| shard.insert(h, &FeatureKey::new(f))) else {
            return (self.explore_locked(f), std::ptr::null());
        };
        if slot.view.version.load(Relaxed) != self.exploration_version.load(Acquire) {
            self.refresh_view(slot);
        }
        let nv = self.nvariants();
        let strategy = self.strategy.load(Relaxed);
        if self.cycling.load(Relaxed) {
            // data collection (explore-only, Apollo's RoundRobin and Random): every variant
            // in turn, whatever the labels
            return (self.next_of(shard, slot, strategy, |v| self.available(v)), slot);
        }
        let decided = slot.view.decided.load(Relaxed);
        if decided != u32::MAX {
            return (decided as usize, slot);
        }
        if slot.view.wanted.load(Relaxed) == 0 {
            // this thread delivered what its view wanted, and others have not settled the
            // vector yet: look again
            self.refresh_view(slot);
            let decided = slot.view.decided.load(Relaxed);
            if decided != u32::MAX {
                return (decided as usize, slot);
            }
            if slot.view.wanted.load(Relaxed) == 0 {
                return (self.explore_locked(f), slot);
            }
        }
        let wanted = |v: usize| slot.wanted_of(v).load(Relaxed) > 0 && self.available(v);
        let v = if strategy == Strategy::Random as u8 {
            self.next_of(shard, slot, strategy, wanted)
        } else {
            least_measured_next(slot, nv, wanted)
        };
        (v.min(nv - 1), slot)
    }

    /// The next variant `ok` accepts: in turn from this thread's position, or at random.
    #[inline]
    fn next_of(&self, shard: &Shard, slot: &Slot, strategy: u8, ok: impl Fn(usize) -> bool) -> usize {
        let nv = self.nvariants();
        if strategy == Strategy::Random as u8 {
            let n = (0..nv).filter(|&v| ok(v)).count().max(1);
            let mut r = XorShift::from_state(shard.rng.load(Relaxed));
            let k = r.below(n);
            shard.rng.store(r.state(), Relaxed);
            return (0..nv).filter(|&v| ok(v)).nth(k).unwrap_or(0);
        }
        let start = slot.view.round_robin.load(Relaxed) as usize % nv;
        for i in 0..nv {
            let v = if start + i < nv { start + i } else { start + i - nv };
            if ok(v) {
                slot.view.round_robin.store(if v + 1 < nv { v as u32 + 1 } else { 0 }, Relaxed);
                return v;
            }
        }
        start
    }

    /// Copies the measurement table's exploration state of `slot`'s vector into the slot (under the lock).
    #[cold]
    #[inline(never)]
    fn refresh_view(&self, slot: &Slot) {
        let mut g = self.lock();
        // the view counts from the measurement table's counts: this thread's buffered measurements must
        // be in them
        self.take_pending(&mut g.measurements, slot.shard());
        let i = g.measurements.fv(slot.key());
        self.fill_view(&g.measurements, i, slot);
    }

    /// Copies vector `i`'s exploration state into `slot` (caller holds the lock, owns the slot
    /// and has moved its shard's buffered measurements into the measurement table).
    ///
    /// Per variant the view holds the measurements wanted ([`Slot::wanted_of`]) and the pair's
    /// count ([`Slot::xcnt`]). An exploring execution runs a wanted variant (or the label
    /// once decided) and buffers its measurement without the lock, except:
    /// * the measurement that delivers the last of what the view wanted, while the vector is
    ///   undecided: it takes the lock, and the measurement table assesses the vector (label, or more
    ///   wanted);
    /// * under successive elimination, every measurement of an undecided vector (any of them
    ///   may eliminate).
    ///
    /// A measurement that brings the pair's count to the training threshold is flagged
    /// [`DONE`] and takes one atomic step on [`Region::slack`]; only when that says the region
    /// may now be ready does the thread take the lock, hand every buffer to the measurement table and
    /// train. With one thread exploring a vector this is exact: training starts at exactly the
    /// execution that completes the `min_train`-th pair (or the first decided vector after
    /// that). With several, threads may measure the same wanted pair (extra data), and a
    /// completion may be flagged twice (the lock is taken early, harmlessly) or not at all
    /// (training is also checked whenever a buffer reaches the measurement table). Nothing is lost either
    /// way: every buffer reaches the measurement table.
    ///
    /// Changes that make a view wrong (drifts, new parameters, loaded data) bump `exploration_version`, which
    /// invalidates every view.
    pub(super) fn fill_view(&self, st: &MeasurementTable, i: usize, slot: &Slot) {
        let ver = self.exploration_version.load(Relaxed);
        let (f, counts) = (st.rec(i), st.counts(i));
        let mut wants = 0u32;
        for (v, c) in counts.iter().enumerate() {
            slot.wanted_of(v).store(c.want as u64, Relaxed);
            slot.xcnt(v).store(c.count as u64, Relaxed);
            wants += c.want as u32;
        }
        slot.view.wanted.store(wants, Relaxed);
        slot.view.threshold.store(if f.decided().is_some() { 1 } else { st.params.threshold() }, Relaxed);
        slot.view.at.store((st.generation as u64) << 32 | (i as u64 + 1), Relaxed);
        slot.view.alive.store(f.alive, Relaxed);
        slot.view.decided.store(f.decided().map_or(u32::MAX, |d| d as u32), Relaxed);
        slot.view.version.store(ver, Relaxed);
    }

    /// Exploring choice under the lock (the thread's shard is full, or its view wants nothing).
    #[cold]
    fn explore_locked(&self, f: &[f64]) -> usize {
        self.lock().measurements.choose(&FeatureKey::new(f)).0
    }
}

/// Round-robin over the wanted variants, least measured first: the wanted variant with the
/// fewest measurements of this vector (the table's count when the view was filled, plus this
/// thread's since), ties in turn from this thread's position. A thread's position starts at 0
/// in every process, so plain turns made a program that runs the region once per process
/// measure the lowest-numbered wanted variant every run (PolyBench covariance: `serial` six
/// times before `threads=1` once, each exploring run the slower one) while a doubt wanted both.
#[inline]
fn least_measured_next(slot: &Slot, nv: usize, wanted: impl Fn(usize) -> bool) -> usize {
    let start = slot.view.round_robin.load(Relaxed) as usize % nv;
    let mut best: Option<(u64, usize)> = None;
    for i in 0..nv {
        let v = if start + i < nv { start + i } else { start + i - nv };
        if wanted(v) {
            let c = slot.xcnt(v).load(Relaxed);
            if best.map_or(true, |(bc, _)| c < bc) {
                best = Some((c, v));
            }
        }
    }
    match best {
        Some((_, v)) => {
            slot.view.round_robin.store(if v + 1 < nv { v as u32 + 1 } else { 0 }, Relaxed);
            v
        }
        None => start,
    }
}

/// Copies `src` (at most `MAX_FEATURES` values) to the front of `dst`. For the usual 1–4
/// features a memcpy call costs more than the copy, and LLVM turns a plain loop into one.
#[inline(always)]
pub(super) fn copy_features(dst: &mut [f64; MAX_FEATURES], src: &[f64]) {
    let n = src.len();
    if n <= 4 {
        if n > 0 {
            dst[0] = src[0];
        }
        if n > 1 {
            dst[1] = src[1];
        }
        if n > 2 {
            dst[2] = src[2];
        }
        if n > 3 {
            dst[3] = src[3];
        }
    } else {
        dst[..n].copy_from_slice(src);
    }
}
