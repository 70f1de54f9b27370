//! ompadapt-pass: turns the offload launches the ompadapt Clang plugin marked into dispatch stubs
//! that choose, at run time, between the host version of the outlined target region (variant
//! `cpu`: no data mapping, no offload) and the original offload (variant `gpu`).
//!
//! For each call of [`MARKER_FUNCTION`] (`__ompadapt_offload_site(use_host, "model")`) the pass
//! finds the first `__tgt_target_kernel` call reachable after it, rewrites it (see
//! [`dispatch`]) so that a non-zero `use_host` skips the launch and takes clang's own failure
//! path (the host fallback), deletes the marker, records the site in `!ompadapt.regions`, and
//! deletes the marker function once unused. A marker with no launch after it is left alone
//! (the runtime warns when it runs) and reported on stderr. Running the pass twice changes
//! nothing the second time; device modules are never touched.
//!
//! Layout:
//! - [`omp_calls`]: libomptarget entry points and how to recognise their calls;
//! - [`offload_site`]: marker discovery and removal;
//! - [`launch_search`]: the launch that follows a marker;
//! - [`cfg`]: successors, dominance, phi edits;
//! - [`dispatch`]: the rewrite;
//! - [`metadata`]: `!ompadapt.regions` and `!ompadapt.dispatch`;
//! - [`module_kind`]: host vs device modules.

pub mod cfg;
pub mod dispatch;
pub mod launch_search;
pub mod metadata;
pub mod module_kind;
pub mod offload_site;
pub mod omp_calls;

use std::collections::{BTreeSet, HashSet};
use std::mem::ManuallyDrop;

use inkwell::module::Module;
use inkwell::values::AsValueRef;

pub use metadata::{recorded_regions, RegionRecord, DISPATCH_METADATA, REGIONS_METADATA};
pub use offload_site::MARKER_FUNCTION;

use launch_search::{find_launch_after, LaunchSearch};
use offload_site::{find_offload_sites, remove_marker, remove_unused_marker_functions};

/// Name under which the pass is registered (`opt -passes=ompadapt`).
pub const PASS_NAME: &str = "ompadapt";

/// Prefix of every message the pass prints.
pub const WARNING_PREFIX: &str = "ompadapt: warning: ";

/// What one run of the pass did.
#[derive(Debug, Default, Clone)]
pub struct PassOutcome {
    /// Whether the module changed.
    pub changed: bool,
    /// The sites rewritten into dispatches, in module order.
    pub rewritten: Vec<RewrittenSite>,
    /// Warnings (each a full line starting with [`WARNING_PREFIX`]), not yet printed.
    pub warnings: Vec<String>,
}

/// One marker whose launch became a dispatch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewrittenSite {
    /// Function containing the site.
    pub function: String,
    /// What was recorded in `!ompadapt.regions`.
    pub record: RegionRecord,
}

/// Runs the pass on `module`, printing warnings to stderr; returns whether it changed anything.
pub fn run_on_module(module: &Module<'_>) -> bool {
    let outcome = transform_module(module);
    for warning in &outcome.warnings {
        eprintln!("{warning}");
    }
    outcome.changed
}

/// Runs the pass on a module LLVM owns (the pass-plugin entry point), without taking ownership:
/// the module is neither disposed nor moved.
///
/// # Safety
/// `m` must be a valid module, not used by anything else for the duration of the call.
pub unsafe fn run_on_llvm_module(m: llvm_sys::prelude::LLVMModuleRef) -> bool {
    if m.is_null() {
        return false;
    }
    // inkwell's Module disposes the LLVM module on drop; this one is borrowed.
    let module = ManuallyDrop::new(unsafe { Module::new(m) });
    run_on_module(&module)
}

/// Runs the pass on `module` and reports what it did, without printing.
pub fn transform_module<'ctx>(module: &Module<'ctx>) -> PassOutcome {
    let mut outcome = PassOutcome::default();
    if module_kind::is_device_module(module) {
        return outcome;
    }
    let (sites, malformed) = find_offload_sites(module);
    for m in malformed {
        outcome.warnings.push(format!(
            "{WARNING_PREFIX}in function '{}': ignoring a call of {MARKER_FUNCTION}: {}",
            m.function, m.reason
        ));
    }
    if sites.is_empty() {
        return outcome;
    }

    let context = module.get_context();
    let mut claimed = HashSet::new();
    let mut reported = BTreeSet::new();
    for site in &sites {
        let model = site.model();
        let function = site.function_name();
        let launch = match find_launch_after(site, &claimed) {
            LaunchSearch::Found(launch) if launch.get_first_use().is_some() => launch,
            LaunchSearch::Found(_) => {
                warn_once(&mut outcome, &mut reported, &function, &model,
                    "the offload launch after its marker has an unused result (no failure path to the host fallback)");
                continue;
            }
            LaunchSearch::NotFound => {
                warn_once(&mut outcome, &mut reported, &function, &model,
                    "no offload launch (__tgt_target_kernel) follows its marker");
                continue;
            }
            LaunchSearch::NotDominated(_) => {
                warn_once(&mut outcome, &mut reported, &function, &model,
                    "the offload launch after its marker can also be reached without passing the marker");
                continue;
            }
        };
        let record = RegionRecord {
            model: model.clone(),
            region_id: omp_calls::region_id_name(launch),
            host_fallback: omp_calls::host_fallback(launch)
                .map(|f| f.get_name().to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        let use_host = site.use_host.into_int_value();
        dispatch::build_dispatch(&context, launch, use_host, &model, site.marker.get_debug_location());
        claimed.insert(launch.as_value_ref());
        remove_marker(site);
        metadata::record_region(module, &record);
        outcome.rewritten.push(RewrittenSite { function, record });
        outcome.changed = true;
    }
    if outcome.changed {
        remove_unused_marker_functions(module);
    }
    outcome
}

fn warn_once(
    outcome: &mut PassOutcome,
    reported: &mut BTreeSet<(String, String)>,
    function: &str,
    model: &str,
    what: &str,
) {
    if reported.insert((function.to_owned(), model.to_owned())) {
        outcome.warnings.push(format!(
            "{WARNING_PREFIX}in function '{function}': adaptive region '{model}': {what}; left \
             unlowered, so its 'cpu' variant will run the offload"
        ));
    }
}
