//! What Liao et al.'s `declare adaptation` adds to a region.
//!
//! * **Declared feature ranges** (`feature(range[lo:hi]: x)`): the model is meant for values
//!   inside; executions with a feature outside are counted (the report shows how many) and the
//!   first one says so on stderr, once.
//! * **Associated regions** (`use_model(P) variant_mapping(...)`): a region that runs the
//!   variant mapped to its primary region P's decision, evaluated on P's features at the
//!   associated region's entry (the generated code evaluates P's feature expressions there).
//!   The first time in a run an associated region asks about a feature vector, P's decision for
//!   it is fixed for the rest of the run — P's model decision if P is trained, else the
//!   variant P has measured least for that vector, so that runs explore P's variants in turn
//!   (Liao et al.'s coarse-grained adaptation) — and P itself runs that variant for that vector
//!   from then on. So a `target enter data` before the loop, the loop's GPU variant and the
//!   `target exit data` after it always agree, also when P trains in between. A decision that
//!   maps to none of the associated region's variants runs none of them (its statement runs
//!   without a directive; a standalone one is skipped). An associated region records nothing
//!   itself.
//!
//! Cost for regions that use neither: one relaxed load per execution (`Declared::hooked`).

use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

use super::Region;
use crate::ctx::Ctx;
use crate::diag;
use crate::spec::{Association, RegionDescriptor};
use crate::stats::{FeatureKey, FxBuild};

/// A region's `declare adaptation` state.
#[derive(Debug, Default)]
pub struct Declared {
    /// Something to do in `begin`: the region has declared ranges or pinned decisions.
    hooked: AtomicBool,
    ranges: Option<Ranges>,
    /// Decisions fixed by associated regions, per feature vector (this region is a primary).
    pins: Mutex<HashMap<FeatureKey, usize, FxBuild>>,
    /// Set when this region is an associated region.
    link: Option<Link>,
}

#[derive(Debug)]
struct Ranges {
    bounds: Vec<Option<(f64, f64)>>,
    outside: AtomicU64,
    warned: AtomicBool,
}

/// An associated region's link to its primary.
#[derive(Debug)]
struct Link {
    spec: Association,
    primary: OnceLock<&'static Region>,
    /// Executions per own variant, and (last) those that ran none.
    runs: Box<[AtomicU64]>,
}

impl Declared {
    pub(super) fn new(spec: &RegionDescriptor) -> Declared {
        let ranges = spec.feature_ranges.iter().any(Option::is_some).then(|| Ranges {
            bounds: spec.feature_ranges.clone(),
            outside: AtomicU64::new(0),
            warned: AtomicBool::new(false),
        });
        let link = spec.association.clone().map(|a| Link {
            spec: a,
            primary: OnceLock::new(),
            runs: (0..=spec.variants.len()).map(|_| AtomicU64::new(0)).collect(),
        });
        Declared { hooked: AtomicBool::new(ranges.is_some()), ranges, pins: Mutex::default(), link }
    }

    /// Whether `begin` has something to do here.
    #[inline(always)]
    pub(super) fn hooked(&self) -> bool {
        self.hooked.load(Relaxed)
    }

    fn pins(&self) -> std::sync::MutexGuard<'_, HashMap<FeatureKey, usize, FxBuild>> {
        self.pins.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Region {
    /// Whether this region follows another region's model (`use_model`).
    pub fn is_associated(&self) -> bool {
        self.declared.link.is_some()
    }

    /// An associated region's variant mapped to its primary's first (its number of variants
    /// when none is): what it runs when nothing decides. None: not an associated region.
    pub(super) fn associated_fallback(&self) -> Option<usize> {
        self.declared.link.as_ref().map(|l| l.spec.mapping.iter().position(|&m| m == 0).unwrap_or(l.spec.mapping.len()))
    }

    /// Executions with a feature outside its declared range.
    pub fn outside_declared_range(&self) -> u64 {
        self.declared.ranges.as_ref().map_or(0, |r| r.outside.load(Relaxed))
    }

    /// `begin`'s `declare adaptation` work when `Declared::hooked`: counts a feature outside its
    /// range, and returns the variant an associated region fixed for `f`, if any.
    #[cold]
    #[inline(never)]
    pub(super) fn declared_begin(&self, f: &[f64]) -> Option<usize> {
        if let Some(r) = &self.declared.ranges {
            let out = r.bounds.iter().zip(f).enumerate().find(|(_, (b, &x))| b.is_some_and(|(lo, hi)| !(lo..=hi).contains(&x)));
            if let Some((i, (b, &x))) = out {
                r.outside.fetch_add(1, Relaxed);
                if !r.warned.swap(true, Relaxed) {
                    let (lo, hi) = b.expect("found in range");
                    diag::warn(&format!(
                        "region '{}': feature '{}' = {x} is outside its declared range [{lo}, {hi}]; the model \
                         was not sampled there (executions outside are counted in the report)",
                        self.spec.model,
                        self.spec.feature_name(i)
                    ));
                }
            }
        }
        let pins = self.declared.pins();
        if pins.is_empty() {
            None
        } else {
            pins.get(&FeatureKey::new(f)).copied()
        }
    }

    /// This (primary) region's decision for `f`, fixed for the rest of the run.
    pub(crate) fn pinned_decision(&self, f: &[f64]) -> usize {
        let key = FeatureKey::new(f);
        let mut pins = self.declared.pins();
        if let Some(&v) = pins.get(&key) {
            return v;
        }
        let v = self.usable(None, self.decision_now(&key));
        pins.insert(key, v);
        self.declared.hooked.store(true, Relaxed);
        // the program's memo would go on starting the vector without the pin
        crate::program_memo::invalidate();
        v
    }

    /// What this region would decide for `key` now: its model's decision, else (exploring) the
    /// variant it has measured least for `key`.
    fn decision_now(&self, key: &FeatureKey) -> usize {
        if self.broken.is_some() {
            return 0;
        }
        let nv = self.nvariants();
        if let Some(t) = self.model.load_full() {
            return self.usable(Some((key, &t)), t.predict(key).min(nv - 1));
        }
        if self.mode.coarse {
            return self.coarse_pin(key);
        }
        if self.mode.frozen {
            return 0;
        }
        let mut g = self.lock();
        self.adopt_pending(&mut g);
        g.measurements.least_measured(key).min(nv - 1)
    }

    /// The region this associated region follows, found by `lookup` the first time.
    fn primary(&self, link: &Link, lookup: &PrimaryLookup) -> Option<&'static Region> {
        if let Some(p) = link.primary.get() {
            return Some(p);
        }
        let p = lookup(&link.spec)?;
        if p.is_associated() {
            diag::warn_once(
                &format!("assoc-chain:{}", self.spec.model),
                &format!(
                    "region '{}' ({}): use_model('{}') names an associated region, not a primary one; it runs \
                     none of its variants",
                    self.spec.model, self.spec.loc, link.spec.primary
                ),
            );
            return None;
        }
        if let Some(&bad) = link.spec.mapping.iter().find(|&&m| m >= p.nvariants()) {
            diag::warn_once(
                &format!("assoc-map:{}", self.spec.model),
                &format!(
                    "region '{}' ({}): variant_mapping names variant {bad} of '{}', which has {}; that entry never runs",
                    self.spec.model,
                    self.spec.loc,
                    link.spec.primary,
                    p.nvariants()
                ),
            );
        }
        Some(*link.primary.get_or_init(|| p))
    }
}

/// How an associated region finds its primary region: by the primary's name, or created from
/// the primary's descriptor the compiler gave (the process's registry answers).
pub type PrimaryLookup<'a> = dyn Fn(&Association) -> Option<&'static Region> + 'a;

/// `ompadapt_begin` of an associated region: `f` are its primary's features. Selects the
/// variant mapped to the primary's (fixed) decision, or `nvariants` for none; records nothing.
pub fn associated_begin(r: &Region, lookup: &PrimaryLookup, f: &[f64], ctx: &mut Ctx) {
    let Some(link) = &r.declared.link else { return };
    let nv = r.nvariants();
    let j = match r.primary(link, lookup) {
        Some(p) => {
            let d = p.pinned_decision(f);
            link.spec.mapping.iter().position(|&m| m == d).unwrap_or(nv)
        }
        None => {
            diag::warn_once(
                &format!("assoc-missing:{}", r.spec.model),
                &format!(
                    "region '{}' ({}): use_model('{}') names no primary region that has run in this program; it runs \
                     none of its variants until that region runs",
                    r.spec.model, r.spec.loc, link.spec.primary
                ),
            );
            nv
        }
    };
    link.runs[j.min(nv)].fetch_add(1, Relaxed);
    ctx.region = std::ptr::null_mut();
    ctx.kept = std::ptr::null();
    ctx.t0 = crate::ctx::Start::NONE;
    ctx.nfeatures = 0;
    ctx.variant = j as c_int;
    ctx.value = r.spec.values.get(j).copied().unwrap_or(0.0);
}

/// What the report says about a region's `declare adaptation` clauses.
#[derive(serde::Serialize, Debug, Clone, PartialEq)]
pub struct DeclaredReport {
    /// Whether the region declares feature ranges.
    pub declared_ranges: bool,
    /// Executions with a feature outside its declared range.
    pub outside_range: u64,
    /// For an associated region: its primary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub use_model: Option<String>,
    /// For an associated region: `variant_mapping`, for each of its variants the primary's
    /// variant it runs with.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variant_mapping: Vec<usize>,
    /// For an associated region: executions per variant, then those that ran none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<u64>,
}

/// The report's data, for regions that declare something.
pub fn report(r: &Region) -> Option<DeclaredReport> {
    let d = &r.declared;
    if d.ranges.is_none() && d.link.is_none() {
        return None;
    }
    Some(DeclaredReport {
        declared_ranges: d.ranges.is_some(),
        outside_range: r.outside_declared_range(),
        use_model: d.link.as_ref().map(|l| l.spec.primary.clone()),
        variant_mapping: d.link.as_ref().map(|l| l.spec.mapping.clone()).unwrap_or_default(),
        runs: d.link.as_ref().map(|l| l.runs.iter().map(|c| c.load(Relaxed)).collect()).unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::registry::Registry;
    use crate::spec::CallArgs;

    const PRIMARY: &str = "ompadapt1;model=scoring_loop;loc=sw.c:13;features=nDiag;variants=plain,parallel for,target;\
                           values=0,1,2;feature_ranges=0:30000";

    fn assoc(mapping: &str, nv: usize, primary_spec: bool) -> String {
        let names: Vec<String> = (0..nv).map(|i| format!("a{i}")).collect();
        let enc = PRIMARY.replace('%', "%25").replace(';', "%3B").replace(',', "%2C").replace('=', "%3D");
        format!(
            "ompadapt1;model=scoring_loop<-sw.c:{mapping};variants={};use_model=scoring_loop;variant_mapping={mapping}{}",
            names.join(","),
            if primary_spec { format!(";primary={enc}") } else { String::new() }
        )
    }

    fn run_assoc(reg: &Registry, spec: &str, f: f64) -> i32 {
        let r = reg.lookup(Some(spec), CallArgs::NONE);
        assert!(r.is_associated());
        let mut ctx = Ctx::zeroed();
        associated_begin(r, &|a| reg.primary_of(a), &[f], &mut ctx);
        assert!(ctx.region.is_null(), "an associated region records nothing");
        ctx.variant
    }

    /// When nothing decides, an associated region runs the variant mapped to its primary's
    /// first, as the plugin's generated code does without a runtime; others run their first.
    #[test]
    fn the_fallback_follows_the_primary_first_variant() {
        let reg = registry();
        let fallback = |spec: &str| reg.lookup(Some(spec), CallArgs::NONE).fallback_variant();
        assert_eq!(fallback(&assoc("2,0", 2, false)), 1);
        assert_eq!(fallback(&assoc("2,1", 2, false)), 2, "none mapped: none of its variants");
        assert_eq!(fallback(PRIMARY), 0);
        let mut ctx = Ctx::zeroed();
        Region::fall_back(Some(reg.lookup(Some(&assoc("2,0", 2, false)), CallArgs::NONE)), &mut ctx);
        assert_eq!((ctx.variant, ctx.region.is_null()), (1, true));
    }

    fn run_primary(reg: &Registry, f: f64) -> usize {
        let r = reg.lookup(Some(PRIMARY), CallArgs::NONE);
        let mut ctx = Ctx::zeroed();
        r.begin(&[f], &mut ctx);
        r.end(&ctx);
        ctx.variant as usize
    }

    fn registry() -> Registry {
        Registry::new(Config { persist: false, warmup: false, ..Config::default() })
    }

    #[test]
    fn associated_region_before_its_primary_fixes_the_decision_for_the_run() {
        let reg = registry();
        // Figure 7: enter data (mapped to variant 2) runs first and creates the primary from
        // its descriptor; the least measured variant of a new vector is 0, which maps to none.
        assert_eq!(run_assoc(&reg, &assoc("2", 1, true), 100.0), 1, "none of its one variant");
        // The primary runs the pinned variant for that vector every time (no round-robin).
        for _ in 0..5 {
            assert_eq!(run_primary(&reg, 100.0), 0);
        }
        assert_eq!(run_assoc(&reg, &assoc("2", 1, true), 100.0), 1);
        // Another vector: again fixed at the associated region's first look.
        assert_eq!(run_assoc(&reg, &assoc("0", 1, true), 7.0), 0, "maps 0 -> its variant 0");
        assert_eq!(run_primary(&reg, 7.0), 0);
        // A vector no associated region asked about explores as usual.
        let seen: std::collections::HashSet<usize> = (0..6).map(|_| run_primary(&reg, 55.0)).collect();
        assert_eq!(seen.len(), 3);
    }

    #[test]
    fn successive_runs_explore_the_primary_s_variants() {
        // A new run (registry) with the measurements of earlier runs: the least measured
        // variant of the vector comes next, so three runs cover the three variants.
        let mut chosen = Vec::new();
        let mut measured: Vec<usize> = Vec::new();
        for _ in 0..3 {
            let reg = registry();
            let p = reg.lookup(Some(PRIMARY), CallArgs::NONE);
            for &v in &measured {
                p.absorb(&FeatureKey::new(&[100.0]), v, 1, &[1000.0], &[], false);
            }
            run_assoc(&reg, &assoc("2", 1, true), 100.0);
            let v = run_primary(&reg, 100.0);
            chosen.push(v);
            measured.push(v);
        }
        chosen.sort();
        assert_eq!(chosen, vec![0, 1, 2]);
    }

    #[test]
    fn trained_primary_decides_and_mapping_selects() {
        let reg = registry();
        let p = reg.lookup(Some(PRIMARY), CallArgs { min_train: 3, ..CallArgs::NONE });
        // Exploration with controlled costs: variant 2 fastest for this vector.
        for _ in 0..30 {
            let mut ctx = Ctx::zeroed();
            p.begin(&[100.0], &mut ctx);
            let v = ctx.variant as u64;
            ctx.t0.backdate(crate::region::tests_ticks([300_000, 200_000, 10_000][v as usize]));
            p.end(&ctx);
        }
        assert!(p.trained().is_some());
        assert_eq!(run_assoc(&reg, &assoc("1,2", 2, false), 100.0), 1, "decision 2 maps to its variant 1");
    }

    #[test]
    fn primary_that_never_ran_and_bad_mappings() {
        let reg = registry();
        // No descriptor of the primary and it never ran: none of the variants.
        assert_eq!(run_assoc(&reg, &assoc("0", 1, false), 1.0), 1);
        // Ranges: outside counted.
        let p = reg.lookup(Some(PRIMARY), CallArgs::NONE);
        run_primary(&reg, 40_000.0);
        run_primary(&reg, 40_000.0);
        run_primary(&reg, 10.0);
        assert_eq!(p.outside_declared_range(), 2);
        let rep = report(p).unwrap();
        assert_eq!(rep.outside_range, 2);
        let render = |r: &Region| crate::report::text::declared_lines(&report(r).unwrap(), &r.spec.variants);
        assert!(render(p).contains("outside its declared range: 2"));
        let a = reg.lookup(Some(&assoc("5", 1, false)), CallArgs::NONE);
        let mut ctx = Ctx::zeroed();
        associated_begin(a, &|a| reg.primary_of(a), &[10.0], &mut ctx);
        assert_eq!(ctx.variant, 1, "a mapping to a variant the primary lacks never runs");
        assert!(render(a).contains("associated with 'scoring_loop' (variant_mapping 5): ran 'a0' 0 times, none 1 times"));
    }
}
