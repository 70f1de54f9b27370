//! Every entry point's way into a region (generated code through `ompadapt_begin`, Apollo's
//! ABI): the policy between the call and the variant choice, in one place, so that no entry
//! point skips part of it. In order: a region whose calls into other translation units the
//! program's summaries do not clear ([`Region::held`]), and a host region written inside another
//! parallel region, run as written; features beyond `MAX_FEATURES` are dropped (one warning); derived sizes go on
//! their grid; an associated region takes its primary's decision; the data-movement counters
//! open. [`Region::leave`] is its end. Also the one owner of the variant that runs when
//! nothing decides ([`Region::fallback_variant`]).

use super::select::copy_features;
use super::*;
use declared::PrimaryLookup;

impl Region {
    /// Starts one execution for an entry point, on `features` (see the module's comment):
    /// fills `ctx`. `primaries` finds an associated region's primary (the process's registry).
    #[inline(always)]
    pub fn enter(&self, features: &[f64], primaries: &PrimaryLookup, ctx: &mut Ctx) {
        if features.len() > MAX_FEATURES {
            self.too_many_features(features.len());
        }
        let n = features.len().min(MAX_FEATURES);
        copy_features(&mut ctx.features, &features[..n]);
        self.enter_filled(n, primaries, ctx);
    }

    /// [`Region::enter`] with the first `n` features already in `ctx.features` (Apollo's ABI
    /// collects them there, one call at a time).
    // inlined into both entry points, like `begin_filled`, so that no call stands between the
    // C entry point and the choice (callgrind: the same instruction count as before the policy
    // moved here, see docs/performance.md)
    #[inline(always)]
    pub fn enter_filled(&self, n: usize, primaries: &PrimaryLookup, ctx: &mut Ctx) {
        let n = n.min(MAX_FEATURES);
        if self.entry_policy && self.entry_policy_applies(n, primaries, ctx) {
            return;
        }
        self.begin_filled(n, ctx);
        crate::dataflow::begin(&self.data, &self.spec.model, ctx);
    }

    /// What comes before the choice for regions written in a parallel region, with derived
    /// sizes, or associated. True: `ctx` is filled, the execution is not the region's.
    #[cold]
    #[inline(never)]
    fn entry_policy_applies(&self, n: usize, primaries: &PrimaryLookup, ctx: &mut Ctx) -> bool {
        if self.held.is_some() || self.spec.as_written_in_parallel && crate::team::in_parallel() {
            Self::as_written(ctx);
            return true;
        }
        if self.derived_sizes != 0 {
            let given = ctx.features;
            crate::feature_grid::apply(self.derived_sizes, &given[..n], &mut ctx.features);
        }
        if self.is_associated() {
            self.enter_associated(n, primaries, ctx);
            return true;
        }
        false
    }

    /// Ends an execution [`Region::enter`] started.
    #[inline(always)]
    pub fn leave(&self, ctx: &Ctx) {
        crate::dataflow::end(&self.data, ctx);
        self.end(ctx);
    }

    /// The variant that runs when nothing decides (the runtime failed, or the spec is
    /// unusable): the first variant, or for an associated region the one mapped to its
    /// primary's first (`nvariants`: none is). The plugin's generated code makes the same
    /// choice when no runtime can be loaded (`ompadapt_syntax::lower`).
    pub fn fallback_variant(&self) -> usize {
        self.associated_fallback().unwrap_or(0)
    }

    /// Fills `ctx` for an execution that runs `region`'s fallback variant unrecorded (variant 0
    /// when the region is unknown): `end` on it does nothing.
    pub fn fall_back(region: Option<&Region>, ctx: &mut Ctx) {
        let v = region.map_or(0, Region::fallback_variant);
        ctx.region = std::ptr::null_mut();
        ctx.kept = std::ptr::null();
        ctx.t0 = Start::NONE;
        ctx.variant = v as c_int;
        ctx.value = region.and_then(|r| r.spec.values.get(v).copied()).unwrap_or(0.0);
    }

    /// An orphaned host region called from inside another parallel region: runs as written
    /// (variant -1), unrecorded.
    #[cold]
    fn as_written(ctx: &mut Ctx) {
        ctx.region = std::ptr::null_mut();
        ctx.kept = std::ptr::null();
        ctx.variant = -1;
        ctx.value = 0.0;
        ctx.t0 = Start::NONE;
    }

    #[cold]
    #[inline(never)]
    fn too_many_features(&self, n: usize) {
        diag::warn_once(
            &format!("nfeatures:{}", self.spec.model),
            &format!("region '{}': {n} features given, only the first {MAX_FEATURES} are used", self.spec.model),
        );
    }

    /// Liao et al.'s use_model: the primary region decides, on the features given (the
    /// primary's).
    #[cold]
    #[inline(never)]
    fn enter_associated(&self, n: usize, primaries: &PrimaryLookup, ctx: &mut Ctx) {
        let f: Vec<f64> = ctx.features[..n].to_vec();
        declared::associated_begin(self, primaries, &f, ctx);
    }
}
