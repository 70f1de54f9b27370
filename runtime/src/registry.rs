//! The process-wide table of adaptive regions, keyed by model name.
//!
//! The generated code caches the region pointer in a per-call-site `slot`, so this table is
//! consulted once per call site (the slow path of `ompadapt_begin`). Regions are leaked: the
//! pointer a slot holds stays valid until the process ends.

use std::collections::HashMap;
use std::sync::{Mutex, Once, OnceLock};

use crate::config::{self, Config};
use crate::diag;
use crate::persist;
use crate::region::Region;
use crate::spec;

#[derive(Default)]
struct Inner {
    /// Regions by model name (malformed specs by `"\0" + spec text`, so they never clash).
    by_model: HashMap<String, &'static Region>,
    /// Regions by exact spec text and arguments, to skip parsing for slot-less callers.
    by_text: HashMap<(String, i64, i64, i64), &'static Region>,
    /// Creation order (the report follows it).
    order: Vec<&'static Region>,
}

/// A table of regions with its configuration.
pub struct Registry {
    config: Config,
    inner: Mutex<Inner>,
}

impl Registry {
    /// An empty registry (tests and benchmarks make private ones; the C ABI uses [`global`]).
    pub fn new(config: Config) -> Registry {
        Registry { config, inner: Mutex::new(Inner::default()) }
    }

    /// The configuration this registry was made with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Finds or creates the region described by `spec_text` (`None`: the caller passed NULL).
    pub fn lookup(&self, spec_text: Option<&str>, min_train: i64, p1: i64, p2: i64) -> &'static Region {
        let text = spec_text.unwrap_or("");
        let tkey = (text.to_owned(), min_train, p1, p2);
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
                match inner.by_model.get(&parsed.spec.model) {
                    Some(r) => {
                        if !r.spec.same_region(&parsed.spec) || r.args != (min_train, p1, p2) {
                            diag::warn(&format!(
                                "region '{}': the directive at {} differs from the one at {} \
                                 (variants, features, model or min_train); both use the region \
                                 as first declared",
                                parsed.spec.model, parsed.spec.loc, r.spec.loc
                            ));
                        }
                        r
                    }
                    None => {
                        let r = self.create(parsed.spec, min_train, p1, p2);
                        inner.by_model.insert(r.spec.model.clone(), r);
                        inner.order.push(r);
                        r
                    }
                }
            }
        };
        inner.by_text.insert(tkey, region);
        region
    }

    fn create(&self, spec: spec::Spec, min_train: i64, p1: i64, p2: i64) -> &'static Region {
        let c = &self.config;
        let region: &'static Region =
            Box::leak(Box::new(Region::new(spec, min_train, p1, p2, c.warmup, c.model_override)));
        if c.persist {
            let path = persist::path_for(&c.dir, &c.program, &region.spec.model);
            match persist::load(&path, region) {
                persist::Loaded::Foreign => {}
                loaded => {
                    if let persist::Loaded::Samples(s) = loaded {
                        region.absorb(s);
                    }
                    *region.persist_path.lock().unwrap_or_else(|e| e.into_inner()) = Some(path);
                }
            }
        }
        region
    }

    /// The region of `model`, if it exists.
    pub fn find(&self, model: &str) -> Option<&'static Region> {
        self.lock().by_model.get(model).copied()
    }

    /// All regions, in creation order.
    pub fn regions(&self) -> Vec<&'static Region> {
        self.lock().order.clone()
    }

    /// Saves every persisted region's samples (errors: one line each).
    pub fn save_all(&self) {
        for r in self.regions() {
            if r.broken.is_some() {
                continue;
            }
            let path = r.persist_path.lock().unwrap_or_else(|e| e.into_inner()).clone();
            if let Some(path) = path {
                if let Err(e) = persist::save(&path, r, &self.config.program) {
                    diag::warn(&format!("region '{}': samples not saved: {e}", r.spec.model));
                }
            }
        }
    }

    /// What happens at process exit: the report (`OMPADAPT_REPORT=1`), then persistence.
    pub fn at_exit(&self) {
        if self.config.report {
            crate::report::print(self);
        }
        if self.config.persist {
            self.save_all();
        }
    }
}

/// The registry behind the C ABI, configured from the environment. Its creation registers the
/// exit handler (report + persistence) with `atexit`.
pub fn global() -> &'static Registry {
    static GLOBAL: OnceLock<Registry> = OnceLock::new();
    static ATEXIT: Once = Once::new();
    let g = GLOBAL.get_or_init(|| {
        crate::clock::init();
        Registry::new(config::config().clone())
    });
    ATEXIT.call_once(|| {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn reg() -> Registry {
        Registry::new(Config { persist: false, warmup: false, ..Config::default() })
    }

    #[test]
    fn same_model_same_region() {
        let g = reg();
        let a = g.lookup(Some("ompadapt1;model=m;loc=a.c:1;variants=x,y"), -1, -1, -1);
        let b = g.lookup(Some("ompadapt1;model=m;loc=b.c:7;variants=x,y"), -1, -1, -1);
        let c = g.lookup(Some("ompadapt1;model=m;loc=a.c:1;variants=x,y"), -1, -1, -1);
        assert!(std::ptr::eq(a, b) && std::ptr::eq(a, c));
        let d = g.lookup(Some("ompadapt1;model=other;variants=x,y"), -1, -1, -1);
        assert!(!std::ptr::eq(a, d));
        // a differing spec under the same name warns and still gets the first region
        let e = g.lookup(Some("ompadapt1;model=m;loc=c.c:2;variants=x,y,z"), -1, -1, -1);
        assert!(std::ptr::eq(a, e));
        assert_eq!(e.nvariants(), 2);
        assert_eq!(g.regions().len(), 2);
        assert!(std::ptr::eq(g.find("other").unwrap(), d));
    }

    #[test]
    fn malformed_and_null_specs() {
        let g = reg();
        let a = g.lookup(Some("ompadapt1;model=bad;variants="), -1, -1, -1);
        assert!(a.broken.is_some());
        assert_eq!(a.spec.model, "bad");
        let b = g.lookup(Some("ompadapt1;model=bad;variants="), -1, -1, -1);
        assert!(std::ptr::eq(a, b));
        let n = g.lookup(None, -1, -1, -1);
        assert!(n.broken.is_some());
        // a well-formed region of the same name is a different region
        let ok = g.lookup(Some("ompadapt1;model=bad;variants=a,b"), -1, -1, -1);
        assert!(ok.broken.is_none());
    }
}
