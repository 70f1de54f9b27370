//! Apollo region handles: what `__apollo_region_create` returns, mapped onto ompadapt regions.
//!
//! An Apollo region `id` with `P` policies becomes the ompadapt region named `id` (characters
//! that cannot appear in a descriptor or a file name — `;`, `/`, `\`, control characters —
//! replaced by `_`) with the categorical variants `0` … `P-1`, created through the process
//! registry like a directive's region: it is persisted, reported and configured (environment)
//! the same way. Creating the same `id` again with the same arguments returns the same handle
//! (Apollo would create a second region that then replaces the first in its table); with other
//! arguments it gets a region of its own, named `id#2`, `id#3`, …, with a warning.
//!
//! Handles live in a fixed table ([`MAX_HANDLES`] entries, never freed). A pointer the program
//! passes back is accepted only if it is the address of a filled entry, so a stray or
//! uninitialised pointer is never dereferenced; NULL (what `create` returns when the table is
//! full) makes every call a no-op that runs policy 0.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::model_info::{self, Kind, ModelInfo};
use crate::ctx::{Ctx, MAX_FEATURES};
use crate::diag;
use crate::region::Region;
use crate::spec::{ModelType, RegionDescriptor, MAX_VARIANTS};
use ompadapt_abi::descriptor::Explore;

/// Most distinct Apollo regions per process.
pub const MAX_HANDLES: usize = 1024;
/// `model_info` used when the program passes NULL or "" and `APOLLO_POLICY_MODEL` is unset.
/// (Apollo defaults to `Static,policy=0`, i.e. it tunes nothing unless told to.)
pub const DEFAULT_MODEL_INFO: &str = "DecisionTree";

pub use super::model_info::Mode;

/// One Apollo region.
#[derive(Debug)]
pub struct Handle {
    /// The id the program gave.
    pub id: String,
    /// `num_features` as given (features beyond [`MAX_FEATURES`] are dropped with a warning).
    pub num_features: usize,
    /// `num_policies`, clamped to `1..=MAX_VARIANTS`.
    pub num_policies: usize,
    /// The parsed `model_info`.
    pub info: ModelInfo,
    /// How policies are picked.
    pub mode: Mode,
    /// The ompadapt region: it decides and records the executions of every mode.
    pub region: &'static Region,
}

/// An entry of the handle table, a power of two in size, so that telling a handle from another
/// pointer (every call's first step) is a subtraction, a mask and a compare, not a division.
#[repr(align(256))]
struct Entry(OnceLock<Handle>);

const _: () = assert!(std::mem::size_of::<Entry>() == 256, "an entry holds one handle");

static TABLE: [Entry; MAX_HANDLES] = [const { Entry(OnceLock::new()) }; MAX_HANDLES];

#[derive(Default)]
struct Index {
    /// (id, num_features, num_policies, min_training_data, canonical model_info) → entry.
    by_args: HashMap<(String, i32, i32, i32, String), usize>,
    /// Entries per id (for `id#k` names).
    per_id: HashMap<String, usize>,
    used: usize,
}

fn index() -> &'static Mutex<Index> {
    static INDEX: OnceLock<Mutex<Index>> = OnceLock::new();
    INDEX.get_or_init(|| Mutex::new(Index::default()))
}

/// The handle at `p`, if `p` is one `create` returned.
pub fn from_ptr(p: *const std::ffi::c_void) -> Option<&'static Handle> {
    const SIZE: usize = std::mem::size_of::<Entry>();
    // below the table wraps around to a large offset
    let off = (p as usize).wrapping_sub(TABLE.as_ptr() as usize);
    if off >= MAX_HANDLES * SIZE || off & (SIZE - 1) != 0 {
        return None;
    }
    TABLE[off / SIZE].0.get()
}

fn as_ptr(slot: usize) -> *mut std::ffi::c_void {
    &TABLE[slot] as *const Entry as *mut std::ffi::c_void
}

/// A region name from an Apollo id.
pub fn region_name(id: &str) -> String {
    let s: String = id.chars().map(|c| if c == ';' || c == '/' || c == '\\' || c.is_control() { '_' } else { c }).collect();
    let s = s.trim().to_owned();
    if s.is_empty() {
        "apollo".to_owned()
    } else {
        s
    }
}

/// `model_info` to use: the program's, else `$APOLLO_POLICY_MODEL`, else [`DEFAULT_MODEL_INFO`].
pub fn effective_model_info(given: Option<&str>, env: impl Fn(&str) -> Option<String>) -> String {
    match given.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => s.to_owned(),
        None => env("APOLLO_POLICY_MODEL").filter(|s| !s.trim().is_empty()).unwrap_or_else(|| DEFAULT_MODEL_INFO.to_owned()),
    }
}

/// The region descriptor for a handle: features `f0`…, categorical policies `0`….
fn descriptor(name: &str, id: &str, num_features: usize, num_policies: usize, info: &ModelInfo) -> RegionDescriptor {
    let mut d = RegionDescriptor::new(name, format!("apollo:{id}"), (0..num_policies).map(|i| i.to_string()).collect());
    d.features = (0..num_features.min(MAX_FEATURES)).map(|i| format!("f{i}")).collect();
    d.model_type = if matches!(info.kind, Kind::RandomForest { .. }) { ModelType::RandomForest } else { ModelType::DecisionTree };
    d
}

/// `__apollo_region_create`. Returns NULL only when [`MAX_HANDLES`] regions exist.
pub fn create(
    num_features: i32,
    id: &str,
    num_policies: i32,
    min_training_data: i32,
    model_info_text: Option<&str>,
) -> *mut std::ffi::c_void {
    let text = effective_model_info(model_info_text, crate::env::var);
    let info = model_info::parse(&text);
    let key = (id.to_owned(), num_features, num_policies, min_training_data, info.canonical());
    let mut idx = index().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&slot) = idx.by_args.get(&key) {
        return as_ptr(slot);
    }
    if idx.used == MAX_HANDLES {
        diag::warn_once(
            "apollo:full",
            &format!("Apollo region '{id}': more than {MAX_HANDLES} Apollo regions; this one always runs policy 0"),
        );
        return std::ptr::null_mut();
    }
    let mut name = region_name(id);
    let k = idx.per_id.entry(id.to_owned()).or_insert(0);
    *k += 1;
    if *k > 1 {
        name = format!("{name}#{k}");
        diag::warn(&format!(
            "Apollo region '{id}' created again with other arguments (features, policies, \
             min_training_data or model_info); it is a separate region '{name}'"
        ));
    }
    for w in &info.warnings {
        diag::warn(&format!("Apollo region '{id}': model_info '{text}': {w}"));
    }
    let nf = num_features.max(0) as usize;
    if nf > MAX_FEATURES {
        diag::warn(&format!("Apollo region '{id}': {nf} features, only the first {MAX_FEATURES} are used"));
    }
    let np = if num_policies < 1 {
        diag::warn(&format!("Apollo region '{id}': num_policies {num_policies}; using 1"));
        1
    } else if num_policies as usize > MAX_VARIANTS {
        diag::warn(&format!("Apollo region '{id}': {num_policies} policies, at most {MAX_VARIANTS} are supported"));
        MAX_VARIANTS
    } else {
        num_policies as usize
    };
    let mode = match info.kind {
        Kind::Static { policy } => {
            if policy as usize >= np {
                diag::warn(&format!("Apollo region '{id}': Static,policy={policy} is not below num_policies {np}; running policy 0"));
                Mode::Fixed(0)
            } else {
                Mode::Fixed(policy as usize)
            }
        }
        Kind::Random => Mode::Random,
        _ => Mode::Learn,
    };
    let region = super::hooks::region_for(descriptor(&name, id, nf, np, &info), &info, mode, min_training_data, np);
    let slot = idx.used;
    let h = Handle { id: id.to_owned(), num_features: nf, num_policies: np, info, mode, region };
    let _ = TABLE[slot].0.set(h);
    idx.used += 1;
    idx.by_args.insert(key, slot);
    as_ptr(slot)
}

impl Handle {
    /// Picks the policy of one execution with `features`: the region's decision, which also
    /// starts the execution's clock in `ctx`.
    #[inline]
    pub fn decide(&self, features: &[f64], ctx: &mut Ctx) -> usize {
        self.region.enter(features, &primary_of, ctx);
        (ctx.variant.max(0) as usize).min(self.num_policies - 1)
    }

    /// [`Handle::decide`] with the first `n` features already in `ctx.features`.
    #[inline]
    pub(crate) fn decide_filled(&self, n: usize, ctx: &mut Ctx) -> usize {
        self.region.enter_filled(n, &primary_of, ctx);
        (ctx.variant.max(0) as usize).min(self.num_policies - 1)
    }

    /// Ends the execution decided on `ctx`: the region records it.
    #[inline]
    pub fn record(&self, ctx: &Ctx) {
        // a plain trained execution is only counted (as `ompadapt_end` does)
        if !self.region.end_memo(ctx) {
            self.region.leave(ctx);
        }
    }

    /// Whether `__apollo_region_train` applies (Apollo: only models that learn are trainable).
    pub fn trainable(&self) -> bool {
        self.info.learns()
    }

    /// Executions ended, all threads.
    pub fn executions(&self) -> u64 {
        self.region.executions()
    }

    /// The exploration strategy asked for, if any.
    pub fn explore(&self) -> Option<Explore> {
        self.info.explore
    }
}

/// An associated region's primary (Apollo's regions have none; every entry point passes the
/// same lookup).
fn primary_of(a: &crate::spec::Association) -> Option<&'static crate::region::Region> {
    crate::registry::global().primary_of(a)
}
