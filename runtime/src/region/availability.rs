//! Variants unavailable in this process (a host version that would read data only the device
//! holds): marking them, and the substitute that runs instead.

use super::*;

impl Region {
    /// Whether variant `v` may run in this process.
    #[inline]
    pub fn available(&self, v: usize) -> bool {
        !self.any_off.load(Relaxed) || !self.off.get(v).is_some_and(|o| o.load(Relaxed))
    }

    /// The variants unavailable in this run, in the order they became so.
    pub fn unavailable(&self) -> Vec<Unavailable> {
        self.lock().unavailable.clone()
    }

    /// `v`, or what runs instead when it is unavailable: the available variant with the
    /// lowest time the model measured or predicted for the vector, else the replacement named
    /// when it became unavailable, else the first available variant (none: `v`; the launch's
    /// guard still runs the offload).
    #[inline]
    pub(crate) fn usable(&self, model: Option<(&FeatureKey, &Trained)>, v: usize) -> usize {
        if self.available(v) {
            return v;
        }
        self.substitute(model, v)
    }

    #[cold]
    #[inline(never)]
    fn substitute(&self, model: Option<(&FeatureKey, &Trained)>, v: usize) -> usize {
        let nv = self.nvariants();
        if let Some((key, t)) = model {
            let best = (0..nv)
                .filter(|&u| self.available(u))
                .filter_map(|u| t.time.predict(key, u).map(|ns| (u, ns)))
                .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
            if let Some((u, _)) = best {
                return u;
            }
        }
        let named = self.lock().unavailable.iter().find(|u| u.variant == v).and_then(|u| u.replacement);
        named.filter(|&u| self.available(u)).or_else(|| (0..nv).find(|&u| self.available(u))).unwrap_or(v)
    }

    /// Makes variant `v` unavailable for the rest of the run: the execution on `ctx`-side
    /// runs `replacement` instead (the caller's business), and no strategy, model or pin
    /// selects `v` again. Said once on stderr. Returns false if `v` already was unavailable
    /// (or is no variant).
    ///
    /// Why a variant becomes unavailable: the `cpu` variant runs the host version of an
    /// offload, and its launch uses data present on the device that the copies generated
    /// around it do not cover (a data environment the compiler did not see, such as a
    /// `target data` in a caller): the host memory may be stale.
    pub fn mark_unavailable(&self, v: usize, replacement: Option<usize>, reason: &str) -> bool {
        if v >= self.nvariants() || self.broken.is_some() || self.off[v].swap(true, AcqRel) {
            return false;
        }
        self.any_off.store(true, Release);
        let executions = self.executions();
        let job = {
            let mut g = self.lock();
            self.adopt_pending(&mut g);
            let replacement = replacement.filter(|&r| r < self.nvariants() && r != v);
            g.unavailable.push(Unavailable { variant: v, replacement, at_execution: executions, reason: reason.to_string() });
            let st = &mut g.measurements;
            self.with_assessment_inputs(|env| st.set_unavailable(v, env));
            // every view and cached decision is looked at again
            self.exploration_version.fetch_add(1, Release);
            let e = self.epoch.load(Relaxed);
            if e & 1 == 1 {
                self.epoch.store(e + 2, Release);
                crate::program_memo::invalidate();
            }
            self.claim(&mut g)
        };
        if let Some(job) = job {
            self.train_and_publish(job);
        }
        true
    }

    /// The execution on `ctx` runs variant `v` instead of the one `begin` chose (a guard
    /// found the chosen one unavailable): `end` records it under `v`; it is cold if `v` has
    /// not run in this process yet.
    pub(crate) fn switch_execution(&self, ctx: &mut Ctx, v: usize) {
        let v = v.min(self.nvariants() - 1);
        let cold = self.first_run(v);
        ctx.t0.set_cold(cold);
        ctx.variant = v as c_int;
        ctx.value = self.spec.values[v];
    }
}
