//! The process-wide table of adaptive regions, keyed by model name.
//!
//! The generated code caches the region pointer in a per-call-site `slot`, so this table is
//! consulted once per call site (the slow path of `ompadapt_begin`). Regions are leaked: the
//! pointer a slot holds stays valid until the process ends.
//!
//! Besides the fields `spec` parses, the registry reads three optional descriptor fields that
//! select per-region behaviour (the environment's per-region values take precedence, see
//! [`Config::region_settings`]): `explore=roundrobin|random|elimination`, `repeats=N|auto` and
//! `coarse=0|1`.
//!
//! The registry also keeps each region's persistence binding, and at exit prints the report
//! and saves.

use std::collections::HashMap;
use std::sync::{Mutex, Once, OnceLock};

use crate::config::{self, Config, Directive};
use crate::diag;
use crate::explore::ADAPTIVE;
use crate::region::{Region, RegionBuilder};
use crate::spec::{self, CallArgs, RegionDescriptor};
use crate::store::{self, Binding, Program};
use ompadapt_abi::descriptor::Repeats;

#[derive(Default)]
struct Inner {
    /// Regions by model name (malformed specs by `"\0" + spec text`, so they never clash).
    by_model: HashMap<String, &'static Region>,
    /// Regions by exact spec text and arguments, to skip parsing for slot-less callers.
    by_text: HashMap<(String, CallArgs), &'static Region>,
    /// Creation order (the report follows it).
    order: Vec<&'static Region>,
}

/// Persistence bindings, by region (address).
type Bindings = Vec<(&'static Region, Binding)>;

/// A table of regions with its configuration.
pub struct Registry {
    config: Config,
    inner: Mutex<Inner>,
    /// Taken after `inner` when both are needed (creation), alone when saving.
    bindings: Mutex<Bindings>,
}

impl Registry {
    /// An empty registry (tests and benchmarks make private ones; the C ABI uses [`global`]).
    pub fn new(config: Config) -> Registry {
        crate::clock::init_with(config.clock);
        Registry { config, inner: Mutex::new(Inner::default()), bindings: Mutex::new(Vec::new()) }
    }

    /// The configuration this registry was made with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Finds or creates the region described by `spec_text` (`None`: the caller passed NULL).
    pub fn lookup(&self, spec_text: Option<&str>, args: CallArgs) -> &'static Region {
        let text = spec_text.unwrap_or("");
        let tkey = (text.to_owned(), args);
        // before any execution is timed (and outside the registry's lock)
        crate::openmp_start::start();
        let mut inner = self.lock();
        if let Some(r) = inner.by_text.get(&tkey) {
            return r;
        }
        let region = match spec::parse(text) {
            Err(e) => {
                let key = format!("\0{text}");
                match inner.by_model.get(&key) {
                    Some(r) => r,
                    None => {
                        diag::warn(&e.to_string());
                        let r: &'static Region = Box::leak(Box::new(Region::broken(e.region, e.reason)));
                        inner.by_model.insert(key, r);
                        inner.order.push(r);
                        r
                    }
                }
            }
            Ok(parsed) => {
                for w in &parsed.warnings {
                    diag::warn_once(w, w);
                }
                self.described(&mut inner, parsed.descriptor, args)
            }
        };
        inner.by_text.insert(tkey, region);
        region
    }

    /// The region `d` names: the one of its model (a warning when `d` differs from it), else
    /// one created from `d`.
    fn described(&self, inner: &mut Inner, d: RegionDescriptor, args: CallArgs) -> &'static Region {
        match inner.by_model.get(&d.model) {
            Some(r) => {
                // A call site whose code reaches functions of other units the region's first one
                // did not (the same construct compiled in two units that see different code) has
                // its own verdict: held, it runs as written on a region of its own.
                if !d.depends.is_empty()
                    && d.depends != r.spec.depends
                    && r.held.is_none()
                    && crate::summaries::resolve(&d.depends).is_err()
                {
                    return Box::leak(Box::new(RegionBuilder::new().warmup(false).build(d)));
                }
                if !r.spec.same_region(&d) || r.args != args {
                    diag::warn(&format!(
                        "region '{}': the directive at {} differs from the one at {} \
                         (variants, features, model or min_train); both use the region \
                         as first declared",
                        d.model, d.loc, r.spec.loc
                    ));
                }
                r
            }
            None => {
                let r = self.create(d, args);
                inner.by_model.insert(r.spec.model.clone(), r);
                inner.order.push(r);
                r
            }
        }
    }

    fn create(&self, spec: RegionDescriptor, args: CallArgs) -> &'static Region {
        let c = &self.config;
        let mut d = options_of(&spec);
        d.min_train = args.min_train();
        d.model = config::directive_model(spec.model_type, args.model_params);
        let builder = RegionBuilder::from_settings(c.region_settings(&spec.model, &d)).call_args(args);
        let region: &'static Region = Box::leak(Box::new(builder.build(spec)));
        // before the saved data is taken in: it is then assessed once, as this machine runs
        // it, and the stored model (trained at exit on data assessed the same way) stays
        // current, where making them unavailable afterwards reassessed every vector once per
        // variant and changed labels, retraining in every run
        same_teams_once(region);
        if region.is_associated() {
            // follows its primary's model: nothing of its own to load or save
        } else if let Some(own) = region.whole_run_own() {
            // an own run of the whole-run trial: the region runs as written, and neither
            // loads nor saves anything (what the run costs is stock's, plus the call)
            region.set_fixed_variant(Some(own));
        } else if c.persist {
            let b = store::attach(region, &c.dir, &Program::of(c), c.compact_after);
            let mut bindings = self.bindings.lock().unwrap_or_else(|e| e.into_inner());
            if bindings.is_empty() {
                warn_if_unwritable(&c.dir, &Program::of(c));
            }
            bindings.push((region, b));
        } else if c.frozen {
            region.set_fixed_variant(Some(0));
        }
        if let Some(name) = c.variant.get(&region.spec.model) {
            match region.spec.variants.iter().position(|v| *v == name) {
                Some(v) => {
                    region.set_fixed_variant(Some(v));
                    let _ = region.pinned.set(v);
                }
                None => {
                    let why = format!(
                        "region '{}': OMPADAPT_VARIANT names '{name}', which is not one of its variants ({}); the region learns as usual",
                        region.spec.model,
                        region.spec.variants.join(", ")
                    );
                    diag::warn_once(&format!("variant:{}", region.spec.model), &why);
                }
            }
        }
        region
    }

    /// The primary region an associated region follows: the region named `use_model`, or one
    /// created from the primary's descriptor the compiler gave (parsed with the associated
    /// region's own descriptor).
    pub fn primary_of(&self, a: &spec::Association) -> Option<&'static Region> {
        self.find(&a.primary).or_else(|| {
            let d = a.primary_descriptor.as_deref()?;
            crate::openmp_start::start();
            Some(self.described(&mut self.lock(), d.clone(), CallArgs::NONE))
        })
    }

    /// The region of `model`, if it exists.
    pub fn find(&self, model: &str) -> Option<&'static Region> {
        self.lock().by_model.get(model).copied()
    }

    /// All regions, in creation order.
    pub fn regions(&self) -> Vec<&'static Region> {
        self.lock().order.clone()
    }

    /// Saves what every persisted region learned since its last save. An unusable store is
    /// said once, with what could not be saved; a region whose save fails gets one line.
    /// Returns the number of files written.
    /// `last`: the exit handler's save, after which nothing is saved again.
    pub fn save_all(&self, last: bool) -> usize {
        let mut n = 0;
        let mut bindings = self.bindings.lock().unwrap_or_else(|e| e.into_inner());
        let Some((_, first)) = bindings.first() else { return 0 };
        if let Err(e) = store::open_store(&first.root, &first.program) {
            if e.is_link() {
                crate::store::refused(&e, crate::store::LINK_REFUSED);
                return 0;
            }
            let mut pending = store::Pending::default();
            let mut regions = Vec::new();
            for (r, b) in bindings.iter().filter(|(r, _)| r.broken.is_none()) {
                let p = store::pending(r, b);
                if !p.is_empty() {
                    pending.add(p);
                    regions.push(format!("'{}'", r.spec.model));
                }
            }
            if !pending.is_empty() {
                store_unusable(&first.root, &e, &pending, &regions, last);
            }
            return 0;
        }
        for (r, b) in bindings.iter_mut() {
            if r.broken.is_some() {
                continue;
            }
            match store::save(r, b) {
                Ok(Some(_)) => n += 1,
                Ok(None) => {}
                Err(e) => {
                    // a save that fails marks nothing saved: what it would have written is
                    // still pending (asked only now: it walks every thread's counters)
                    let what = store::pending(r, b).describe();
                    diag::warn(&if last {
                        format!("region '{}': this run's data ({what}) could not be saved: {e}; it is lost", r.spec.model)
                    } else {
                        format!(
                            "region '{}': data not saved now ({what}): {e}; it is kept and saved with the next save (at exit at the latest)",
                            r.spec.model
                        )
                    });
                }
            }
        }
        n
    }

    /// Trains `model` (every region when `None`) on what has been measured, pooling the
    /// measurements of every MPI rank first when built with the `mpi` feature (a collective:
    /// every rank must call it). Returns the regions trained.
    pub fn train(&self, model: Option<&str>) -> usize {
        let regions: Vec<&'static Region> = match model {
            Some(m) => self.find(m).into_iter().collect(),
            None => self.regions(),
        };
        #[cfg(feature = "mpi")]
        {
            let local: Vec<(String, Vec<crate::mpi::Row>)> = regions
                .iter()
                .filter(|r| r.broken.is_none())
                .map(|r| {
                    let rows = r.rows().into_iter().map(|(features, v, ns)| crate::mpi::Row { features, variant: v as u32, ns }).collect();
                    (r.spec.model.clone(), rows)
                })
                .collect();
            if crate::mpi::rank().is_some_and(|(_, size)| size > 1) {
                let mut n = 0;
                for (name, rows) in crate::mpi::pool_all(local) {
                    if let Some(r) = self.find(&name) {
                        let rows: Vec<(Vec<f64>, usize, f64)> = rows.into_iter().map(|x| (x.features, x.variant as usize, x.ns)).collect();
                        n += r.train_on_rows(&rows).is_ok() as usize;
                    }
                }
                return n;
            }
        }
        regions.iter().filter(|r| r.train_now().is_ok()).count()
    }

    /// Trains, at exit, every persisted region whose data changed since its model was trained
    /// ([`Region::train_at_exit`]): the next run loads that model instead of training at its
    /// start-up. Returns the regions trained.
    pub fn train_at_exit(&self) -> usize {
        let bindings = self.bindings.lock().unwrap_or_else(|e| e.into_inner());
        bindings.iter().filter(|(r, _)| r.train_at_exit()).count()
    }

    /// What happens at process exit: the program's own buffered output is flushed, then the
    /// regions whose data changed train ([`Registry::train_at_exit`]), then the report
    /// (`OMPADAPT_REPORT`) is written, then the trace (`OMPADAPT_TRACE`), then what was learned
    /// is saved.
    pub fn at_exit(&self) {
        flush_program_output();
        let regions = self.regions();
        // first: the run's time ends here, and nothing has trained yet
        if crate::whole_run::this_run().is_some() {
            let runs: Vec<_> = regions.iter().map(|r| (r.spec.model.as_str(), r.whole_run_taking())).collect();
            crate::whole_run::finish(&runs, || store::program_folder(&self.config.dir, &Program::of(&self.config), true));
        }
        if self.config.persist {
            self.train_at_exit();
        }
        let names: Vec<&str> = regions.iter().map(|r| r.spec.model.as_str()).collect();
        for why in unmatched_pins(&self.config.variant, &names) {
            diag::warn_once(&format!("pin:{why}"), &why);
        }
        crate::report::emit(&self.config.report, &self.config.program, &regions);
        let traced: Vec<_> = regions.iter().map(|r| r.trace_info()).collect();
        crate::trace::finish(&self.config.program, &traced);
        if self.config.persist {
            self.save_all(true);
        }
    }
}

/// What a run says of each `OMPADAPT_VARIANT` entry that names no region this run executed (a
/// typo would otherwise leave an evaluation's static baseline adaptive without a word): one
/// line each, with the closest region name; when no region ran at all, one line for the whole
/// setting.
pub(crate) fn unmatched_pins(pins: &config::PerRegion<String>, regions: &[&str]) -> Vec<String> {
    if regions.is_empty() {
        let mut given: Vec<String> = pins.default.iter().cloned().collect();
        given.extend(pins.regions.iter().map(|(name, v)| format!("{name}:{v}")));
        if given.is_empty() {
            return Vec::new();
        }
        return vec![format!("OMPADAPT_VARIANT={} is set, but this process ran no adaptive region: it pinned nothing", given.join(";"))];
    }
    let templates: Vec<String> = regions.iter().filter_map(|r| ompadapt_abi::descriptor::template_of(r)).collect();
    let mut said = Vec::new();
    for (name, variant) in &pins.regions {
        if regions.contains(&name.as_str()) || templates.iter().any(|t| t == name) || said.iter().any(|(n, _)| n == name) {
            continue;
        }
        let hint = ompadapt_abi::names::closest(name, regions).map_or(String::new(), |m| format!("; did you mean '{m}'?"));
        let listed = if regions.is_empty() { "none".to_owned() } else { regions.join(", ") };
        said.push((
            name.clone(),
            format!("OMPADAPT_VARIANT pins region '{name}' to '{variant}', but no region of that name ran{hint} (the regions that ran: {listed}); it pinned nothing"),
        ));
    }
    said.into_iter().map(|(_, w)| w).collect()
}

/// A host region's `threads=F` variants that give the same team as another variant on this
/// machine are made unavailable, so that each team is measured once (see [`crate::team`]);
/// what every team-size variant resolved to is kept with the region's data.
fn same_teams_once(region: &Region) {
    let names = &region.spec.variants;
    if !names.iter().any(|n| n.starts_with("threads=")) {
        return;
    }
    let Some(max) = crate::team::max_threads() else { return };
    if let Some(r) = crate::team::TeamRecord::of(names, max) {
        let _ = region.teams.set(r);
    }
    for d in crate::team::duplicates(names, max) {
        let s = if d.threads == 1 { "" } else { "s" };
        region.mark_unavailable(
            d.variant,
            Some(d.same_as),
            &format!("the same team as '{}' here ({} thread{s})", names[d.same_as], d.threads),
        );
    }
}

/// At the first region: one line if the store cannot be written (the exit says what was lost).
fn warn_if_unwritable(root: &std::path::Path, program: &Program) {
    match store::check_writable(root, program) {
        Err(e) if e.is_link() => crate::store::refused(&e, crate::store::LINK_REFUSED),
        Err(e) => {
            diag::warn_once(
                &format!("store-unwritable:{}", root.display()),
                &format!(
                    "the store {} cannot be written ({}): what this run learns will not be saved; set OMPADAPT_DIR to a writable directory",
                    root.display(),
                    if e.path() == root { e.reason() } else { e.to_string() }
                ),
            );
        }
        Ok(()) => {}
    }
}

/// One line for a store that cannot be written: where, why, what is not saved, and (at exit)
/// that it is lost; once per process and kind of save.
fn store_unusable(root: &std::path::Path, e: &crate::safe_fs::Error, pending: &store::Pending, regions: &[String], last: bool) {
    let of = match regions {
        [one] => format!("region {one}"),
        many => format!("{} regions ({})", many.len(), many.join(", ")),
    };
    let why = if e.path() == root { e.reason() } else { e.to_string() };
    let text = if last {
        format!(
            "cannot save to the store {} ({why}): this run's {} of {of} could not be saved and are lost; set OMPADAPT_DIR to a writable directory",
            root.display(),
            pending.describe()
        )
    } else {
        format!(
            "cannot save to the store {} ({why}): {} of {of} not saved now; kept in memory and saved once the store can be written (at exit at the latest)",
            root.display(),
            pending.describe()
        )
    };
    diag::warn_once(&format!("store-unusable:{}:{last}", root.display()), &text);
}

/// Flushes the program's buffered standard output (C stdio and Rust's): the exit handler runs
/// before `exit` flushes the C streams, so without this the report on stderr would come before
/// what the program printed when both go to one file or pipe.
fn flush_program_output() {
    // SAFETY: fflush(NULL) flushes every open output stream; it is what exit() does next.
    unsafe {
        libc::fflush(std::ptr::null_mut());
    }
    use std::io::Write;
    let _ = std::io::stdout().flush();
}

/// The runtime's options in a descriptor (`explore=`, `repeats=`, `coarse=`); bad values warn
/// once and are ignored.
pub fn options_of(spec: &RegionDescriptor) -> Directive {
    let mut o = Directive::default();
    let bad = |k: &str, v: &str, why: String| {
        diag::warn_once(
            &format!("opt:{}:{k}={v}", spec.model),
            &format!("region '{}': descriptor field '{k}={v}' ignored: {why}", spec.model),
        );
    };
    if let Some(e) = &spec.explore {
        match &e.value {
            Ok(s) => o.explore = Some(*s),
            Err(why) => bad("explore", &e.written, why.clone()),
        }
    }
    if let Some(r) = &spec.repeats {
        match r.value {
            Ok(Repeats::Count(n)) => o.repeats = Some(n.min(255)),
            Ok(Repeats::Adaptive) => o.repeats = Some(ADAPTIVE),
            Err(ref why) => bad("repeats", &r.written, why.clone()),
        }
    }
    if let Some(c) = &spec.coarse {
        match &c.value {
            Ok(on) => o.coarse = Some(*on),
            Err(why) => bad("coarse", &c.written, why.clone()),
        }
    }
    o
}

/// The registry behind the C ABI, configured from the environment. Its creation starts the
/// trace when one is asked for and registers the exit handler (report, trace, persistence)
/// with `atexit`.
pub fn global() -> &'static Registry {
    static ATEXIT: Once = Once::new();
    let g = GLOBAL.get_or_init(|| Registry::new(config::config().clone()));
    ATEXIT.call_once(|| {
        let c = &g.config;
        let pinned = c.variant.default.is_some() || !c.variant.regions.is_empty();
        if c.persist && c.drift.whole_run && !c.frozen && !pinned {
            crate::whole_run::start(store::program_folder(&c.dir, &Program::of(c), false));
        }
        if let Some(path) = &g.config.trace {
            crate::trace::start(path.clone(), g.config.trace_max);
        }
        // SAFETY: registering a plain `extern "C" fn()`.
        unsafe {
            libc::atexit(exit_handler);
        }
    });
    g
}

extern "C" fn exit_handler() {
    let _ = std::panic::catch_unwind(|| {
        global().at_exit();
    });
}

/// The registry, once a region or an API call created it.
static GLOBAL: OnceLock<Registry> = OnceLock::new();

/// For a process that loaded the runtime without entering a region yet (an offloading
/// program's OpenMP start loads it for the OMPT tool): when `OMPADAPT_VARIANT` is set, the
/// exit says so if no region ever ran (the registry's exit handler speaks for the pins once
/// one did). Armed once; nothing without the variable.
pub fn arm_pin_check() {
    static ARMED: Once = Once::new();
    ARMED.call_once(|| {
        if crate::env::var("OMPADAPT_VARIANT").is_some_and(|v| !v.trim().is_empty()) {
            // SAFETY: registering a plain `extern "C" fn()`.
            unsafe {
                libc::atexit(pin_check_at_exit);
            }
        }
    });
}

extern "C" fn pin_check_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        if GLOBAL.get().is_some() {
            return;
        }
        for why in unmatched_pins(&config::config().variant, &[]) {
            diag::warn_once(&format!("pin:{why}"), &why);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg() -> Registry {
        Registry::new(Config { persist: false, warmup: false, ..Config::default() })
    }

    #[test]
    fn same_model_same_region() {
        let g = reg();
        let a = g.lookup(Some("ompadapt1;model=m;loc=a.c:1;variants=x,y"), CallArgs::NONE);
        let b = g.lookup(Some("ompadapt1;model=m;loc=b.c:7;variants=x,y"), CallArgs::NONE);
        let c = g.lookup(Some("ompadapt1;model=m;loc=a.c:1;variants=x,y"), CallArgs::NONE);
        assert!(std::ptr::eq(a, b) && std::ptr::eq(a, c));
        let d = g.lookup(Some("ompadapt1;model=other;variants=x,y"), CallArgs::NONE);
        assert!(!std::ptr::eq(a, d));
        // a differing spec under the same name warns and still gets the first region
        let e = g.lookup(Some("ompadapt1;model=m;loc=c.c:2;variants=x,y,z"), CallArgs::NONE);
        assert!(std::ptr::eq(a, e));
        assert_eq!(e.nvariants(), 2);
        assert_eq!(g.regions().len(), 2);
        assert!(std::ptr::eq(g.find("other").unwrap(), d));
    }

    /// With no region run, a pin is one line whatever it names; with regions, each pin of a
    /// region that did not run is one line; without a pin, nothing.
    #[test]
    fn pins_that_pinned_nothing_are_said() {
        let pins = config::PerRegion { default: Some("gpu".to_owned()), regions: vec![("heat".to_owned(), "cpu".to_owned())] };
        assert_eq!(
            unmatched_pins(&pins, &[]),
            vec!["OMPADAPT_VARIANT=gpu;heat:cpu is set, but this process ran no adaptive region: it pinned nothing".to_owned()]
        );
        assert!(unmatched_pins(&config::PerRegion::default(), &[]).is_empty());
        let said = unmatched_pins(&pins, &["saxpy"]);
        assert_eq!(said.len(), 1);
        assert!(said[0].contains("pins region 'heat' to 'cpu', but no region of that name ran"), "{said:?}");
        assert!(unmatched_pins(&config::PerRegion::all("gpu".to_owned()), &["saxpy"]).is_empty(), "it pinned saxpy");
    }

    #[test]
    fn malformed_and_null_specs() {
        let g = reg();
        let a = g.lookup(Some("ompadapt1;model=bad;variants="), CallArgs::NONE);
        assert!(a.broken.is_some());
        assert_eq!(a.spec.model, "bad");
        let b = g.lookup(Some("ompadapt1;model=bad;variants="), CallArgs::NONE);
        assert!(std::ptr::eq(a, b));
        let n = g.lookup(None, CallArgs::NONE);
        assert!(n.broken.is_some());
        // a well-formed region of the same name is a different region
        let ok = g.lookup(Some("ompadapt1;model=bad;variants=a,b"), CallArgs::NONE);
        assert!(ok.broken.is_none());
    }
}
