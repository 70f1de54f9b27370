//! ompadapt-pass: turns the offload launches the ompadapt Clang plugin marked into dispatch stubs
//! that choose, at run time, between the host version of the outlined target region (variant
//! `cpu`: no data mapping, no offload) and the original offload (variant `gpu`), and replaces
//! the `features(auto)` markers by features computed from the IR.
//!
//! First, each call of [`auto_features::AUTO_MARKER`] (`__ompadapt_auto_features(out, cap,
//! &spec, "model", "loops")`) becomes the region's automatic features, computed at the call:
//! loop trip counts sliced from the bounds of the worksharing loops its launch runs,
//! `bytes_mapped` of an offload launch, and static features of the region's code; `*spec`
//! points at a descriptor naming them and the call's result becomes their number (see
//! [`auto_features`]).
//!
//! Then, for each call of [`MARKER_FUNCTION`] (`__ompadapt_offload_site(use_host, "model")`,
//! or `__ompadapt_launch_site` with launch settings) the pass finds the first
//! `__tgt_target_kernel` call reachable after it, rewrites it (see [`dispatch`]) so that a
//! non-zero `use_host` skips the launch and takes clang's own failure path (the host fallback),
//! deletes the marker, records the site in `!ompadapt.regions`, and deletes the marker function
//! once unused. A marker with no launch after it is left alone (the runtime warns when it runs)
//! and reported on stderr. Running the pass twice changes nothing the second time; device
//! modules are never touched.
//!
//! Layout:
//! - [`omp_calls`]: libomptarget entry points and how to recognise their calls;
//! - [`offload_site`]: marker discovery and removal;
//! - [`launch_search`]: the launch that follows a marker;
//! - [`cfg`]: successors, dominance, phi edits;
//! - [`dispatch`]: the rewrite; [`device_globals`]: the `declare target` variables a kernel
//!   reaches (the cpu variant's runtime copies treat them as present storage);
//! - [`metadata`]: `!ompadapt.regions` and `!ompadapt.dispatch`;
//! - [`module_kind`]: host vs device modules;
//! - [`diagnostics`]: the warnings; [`remarks`]: the optional remarks;
//! - [`auto_features`]: the `features(auto)` markers, with [`worksharing`] (the loops a launch
//!   runs), [`slice`] (bounds rebuilt at the marker), [`memory`] (what may write what),
//!   [`map_sizes`] (`bytes_mapped`), [`static_features`] and [`ir`] (raw IR helpers, memoised
//!   CFG queries).

pub mod auto_features;
pub mod cfg;
pub mod device_globals;
pub mod diagnostics;
pub mod dispatch;
pub mod ir;
pub mod launch_search;
pub mod map_sizes;
pub mod memory;
pub mod metadata;
pub mod module_kind;
pub mod offload_site;
pub mod omp_calls;
pub mod plugin_entry;
pub mod remarks;
pub mod slice;
pub mod static_features;
pub mod worksharing;

use std::collections::{BTreeSet, HashSet};
use std::mem::ManuallyDrop;

use inkwell::module::Module;
use inkwell::values::AsValueRef;

pub use diagnostics::{Unlowered, WARNING_PREFIX};
pub use metadata::{recorded_regions, RegionRecord, DISPATCH_METADATA, REGIONS_METADATA};
pub use offload_site::MARKER_FUNCTION;

use launch_search::{find_launch_after, LaunchSearch};
use llvm_sys::prelude::LLVMValueRef;
use offload_site::{find_offload_sites, remove_marker, remove_unused_marker_functions, OffloadSite};

/// Name under which the pass is registered (`opt -passes=ompadapt`).
pub const PASS_NAME: &str = "ompadapt";

/// What one run of the pass did.
#[derive(Debug, Default, Clone)]
pub struct PassOutcome {
    /// Whether the module changed.
    pub changed: bool,
    /// The sites rewritten into dispatches, in module order.
    pub rewritten: Vec<RewrittenSite>,
    /// Warnings (each a full line starting with [`WARNING_PREFIX`]), not yet printed.
    pub warnings: Vec<String>,
    /// Remarks (each a full line starting with [`remarks::REMARK_PREFIX`]), printed only when
    /// remarks are on.
    pub remarks: Vec<String>,
    /// The regions whose `features(auto)` marker was replaced: model and feature names.
    pub auto_features: Vec<(String, Vec<String>)>,
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
    if remarks::remarks_enabled() {
        for remark in &outcome.remarks {
            eprintln!("{remark}");
        }
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
pub fn transform_module(module: &Module<'_>) -> PassOutcome {
    let mut outcome = PassOutcome::default();
    if module_kind::is_device_module(module) {
        return outcome;
    }
    // Automatic features first: they are sliced to the region's marker while the launch is
    // still clang's, before it becomes a dispatch.
    let auto = auto_features::lower_auto_features(module);
    outcome.changed |= auto.changed;
    outcome.remarks = auto.remarks;
    outcome.warnings.extend(auto.warnings);
    outcome.auto_features = auto.regions;
    let (sites, malformed) = find_offload_sites(module);
    for m in malformed {
        outcome.warnings.push(diagnostics::malformed_marker_warning(&m.function, MARKER_FUNCTION, m.reason));
    }
    let mut claimed = HashSet::new();
    let mut reported = BTreeSet::new();
    for site in &sites {
        match lower_site(module, site, &claimed) {
            Ok((launch, rewritten)) => {
                claimed.insert(launch);
                outcome.rewritten.push(rewritten);
                outcome.changed = true;
            }
            Err(why) => {
                let (function, model) = (site.function_name(), site.model());
                // Once per function and region.
                if reported.insert((function.clone(), model.clone())) {
                    outcome.warnings.push(diagnostics::unlowered_warning(&function, &model, why));
                }
            }
        }
    }
    if outcome.changed {
        remove_unused_marker_functions(module);
        offload_site::remove_unused_guard_functions(module);
    }
    outcome
}

/// Turns the launch after `site` into a dispatch, deletes the marker and records the region;
/// returns the launch (now claimed) and what was done, or why the site stays as it is.
fn lower_site<'ctx>(
    module: &Module<'ctx>,
    site: &OffloadSite<'ctx>,
    claimed: &HashSet<LLVMValueRef>,
) -> Result<(LLVMValueRef, RewrittenSite), Unlowered> {
    let launch = match find_launch_after(site, claimed) {
        LaunchSearch::Found(launch) if launch.get_first_use().is_some() => launch,
        LaunchSearch::Found(_) => return Err(Unlowered::UnusedLaunchResult),
        LaunchSearch::NotDominated(_) => return Err(Unlowered::NotDominated),
        LaunchSearch::NotFound { deferred: true } => return Err(Unlowered::DeferredTarget),
        LaunchSearch::NotFound { deferred: false } => {
            return Err(if module.get_function(omp_calls::TGT_TARGET_KERNEL).is_none() {
                Unlowered::NoOffloadInModule
            } else {
                Unlowered::NoLaunch
            })
        }
    };
    let model = site.model();
    let fallback = omp_calls::host_fallback(launch);
    let record = RegionRecord {
        model: model.clone(),
        region_id: omp_calls::region_id_name(launch),
        host_fallback: fallback.map(|f| f.get_name().to_string_lossy().into_owned()).unwrap_or_default(),
    };
    let context = module.get_context();
    let use_host = site.use_host.into_int_value();
    let d = dispatch::build_dispatch(
        &context,
        launch,
        use_host,
        &model,
        site.marker.get_debug_location(),
        match (site.num_teams, site.thread_limit) {
            (Some(num_teams), Some(thread_limit)) => Some(dispatch::LaunchSettings { num_teams, thread_limit }),
            _ => None,
        },
    );
    // the cpu variant's run-time check (regions with a cpu variant, see the lowering header)
    if let Some(guard) = offload_site::guard_of(site) {
        if let (Some((enter, exit)), Some(ops)) = (offload_site::host_run_functions(module), guard.enter_operands()) {
            let globals =
                fallback.map(|f| device_globals::reached(f, &device_globals::declare_target_variables(module))).unwrap_or_default();
            if dispatch::add_host_guard(&context, module, &d, launch, enter, exit, &ops, &globals).is_some() {
                offload_site::remove_guard(&guard);
            }
        }
    }
    remove_marker(site);
    metadata::record_region(module, &record);
    Ok((launch.as_value_ref(), RewrittenSite { function: site.function_name(), record }))
}
