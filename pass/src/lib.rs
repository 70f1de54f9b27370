//! ompadapt-pass: turns the offload launches the ompadapt Clang plugin marked into dispatch stubs
//! that choose, at run time, between the host version of the outlined target region (variant
//! `cpu`: no data mapping, no offload) and the original offload (variant `gpu`), and replaces
//! the `features(auto)` markers by features computed from the IR.
//!
//! First, each call of `__ompadapt_team_invariant` (before a host parallel region of
//! zero-source-change mode) becomes 1 where the analysis of [`team`] shows that nothing the
//! region runs can observe its team, else 0: the region then runs as written (see [`team`]).
//!
//! Then, each call of [`auto_features::AUTO_MARKER`] (`__ompadapt_auto_features(out, cap,
//! &spec, "model", "loops")`) becomes the region's automatic features, computed at the call:
//! loop trip counts sliced from the bounds of the worksharing loops its launch runs,
//! `bytes_mapped` of an offload launch, and static features of the region's code; `*spec`
//! points at a descriptor naming them and the call's result becomes their number (see
//! [`auto_features`]).
//!
//! Then, for each call of [`LAUNCH_MARKER`] (`__ompadapt_launch_site(use_host, num_teams,
//! thread_limit, "model")`) the pass finds the first `__tgt_target_kernel` call reachable after
//! it, rewrites it (see [`dispatch`]) so that a non-zero `use_host` skips the launch and takes
//! clang's own failure path (the host fallback) and the variant's launch settings replace the
//! launch's, deletes the marker, records the site in `!ompadapt.regions`, and deletes the marker
//! function once unused. A marker with no launch after it is left alone (the runtime warns when
//! it runs) and reported on stderr. What the pass did and could not do is also said as LLVM
//! optimisation remarks ([`remarks`]). Running the pass twice changes nothing the second time;
//! device modules are never touched.
//!
//! Layout:
//! - [`entry_points`]: the OpenMP runtime entry points the pass knows, with their roles;
//! - [`omp_calls`]: libomptarget entry points and how to recognise their calls;
//! - [`team`]: the team-size analysis of host regions of zero-source-change mode;
//! - [`launch_site`]: marker discovery and removal (the names come from `ompadapt_abi::markers`);
//! - [`launch_search`]: the launch that follows a marker;
//! - [`cfg`]: successors, dominance, phi edits;
//! - [`dispatch`]: the rewrite; [`device_globals`]: the `declare target` variables a kernel
//!   reaches (the cpu variant's runtime copies treat them as present storage);
//! - [`metadata`]: `!ompadapt.regions` and `!ompadapt.dispatch`;
//! - [`module_kind`]: host vs device modules; [`loader`]: the runtime loader, precompiled, added
//!   to the modules that call it;
//! - [`diagnostics`]: the warnings; [`remarks`]: the optimisation remarks (docs/remarks.md);
//! - [`auto_features`]: the `features(auto)` markers, with [`worksharing`] (the loops a launch
//!   runs), [`slice`] (bounds rebuilt at the marker), [`memory`] (what may write what),
//!   [`map_sizes`] (`bytes_mapped`), [`static_features`] and [`ir`] (raw IR helpers, memoised
//!   CFG queries).

pub mod auto_features;
pub mod auto_mode;
pub mod cfg;
pub mod construct_places;
pub mod debug_locations;
pub mod decisions;
pub mod device_globals;
pub mod diagnostics;
pub mod dispatch;
pub mod entry_points;
pub mod fast_hash;
pub mod fork_if;
pub mod frontend_mark;
pub mod host_regions;
pub mod ir;
pub mod launch_search;
pub mod launch_site;
pub mod loader;
pub mod map_sizes;
pub mod memory;
pub mod metadata;
pub mod module_kind;
pub mod notes;
pub mod offload_regions;
pub mod omp_calls;
pub mod plugin_entry;
pub mod region_code;
pub mod region_features;
pub mod remarks;
pub mod slice;
pub mod static_features;
pub mod statistics;
pub mod stock_idents;
pub mod stored_addresses;
pub mod team;
pub mod worksharing;

use std::collections::BTreeSet;

use crate::fast_hash::HashSet;
use std::mem::ManuallyDrop;

use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue, InstructionValue};

pub use diagnostics::{Unlowered, WARNING_PREFIX};
pub use metadata::{recorded_regions, RegionRecord, DISPATCH_METADATA, REGIONS_METADATA};
pub use remarks::{Remark, RemarkId, RemarkKind, RemarkPlace};

use launch_search::{find_launch_after, LaunchSearch};
use launch_site::{find_launch_sites, remove_marker, remove_unused_marker_functions, LaunchSite};
use llvm_sys::prelude::LLVMValueRef;

/// Name of the launch-site marker function (see `ompadapt_abi::markers`).
pub const LAUNCH_MARKER: &str = launch_site::LAUNCH_SITE.name;

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
    /// Optimisation remarks, not yet emitted.
    pub remarks: Vec<Remark>,
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

/// Runs the pass on `module`, printing warnings to stderr, emitting the optimisation remarks
/// (which LLVM shows or records when asked to) and adding to its statistics (`-stats`); returns
/// whether it changed anything.
pub fn run_on_module(module: &Module<'_>, auto: Option<&str>) -> bool {
    let seen = if module_kind::is_device_module(module) { statistics::Seen::default() } else { statistics::seen(module) };
    let outcome = transform_module_with(module, auto);
    statistics::record(seen, &outcome.remarks);
    for warning in &outcome.warnings {
        eprintln!("{warning}");
    }
    // Once each: copies of one construct (a loop of forks unrolled, a function inlined twice) are
    // one region, named and placed alike (the statistics count every site).
    let mut said = HashSet::default();
    for remark in &outcome.remarks {
        if said.insert((remark.id, remark.place(), remark.model.clone(), remark.message.clone())) {
            remark.emit();
        }
    }
    // After the remarks, which take their locations from the instructions.
    if !module_kind::is_device_module(module) && frontend_mark::locations_for_the_pass_only(module) {
        unsafe { llvm_sys::debuginfo::LLVMStripModuleDebugInfo(module.as_mut_ptr()) };
        stock_idents::restore(module);
        return true;
    }
    outcome.changed
}

/// Runs the pass on a module LLVM owns (the pass-plugin entry point), without taking ownership:
/// the module is neither disposed nor moved.
///
/// # Safety
/// `m` must be a valid module, not used by anything else for the duration of the call.
pub unsafe fn run_on_llvm_module(m: llvm_sys::prelude::LLVMModuleRef, auto: Option<&str>) -> bool {
    if m.is_null() {
        return false;
    }
    // inkwell's Module disposes the LLVM module on drop; this one is borrowed.
    let module = ManuallyDrop::new(unsafe { Module::new(m) });
    run_on_module(&module, auto)
}

/// Runs the pass on `module` and reports what it did, without printing.
pub fn transform_module(module: &Module<'_>) -> PassOutcome {
    transform_module_with(module, None)
}

/// [`transform_module`] with the pass parameter's `auto=` list (None: not given; see
/// [`auto_mode::resolve`]).
pub fn transform_module_with(module: &Module<'_>, auto: Option<&str>) -> PassOutcome {
    let mut outcome = PassOutcome::default();
    if module_kind::is_device_module(module) {
        return outcome;
    }
    let (kinds, explicit) = kinds_to_apply(module, auto);
    // Names and remark places read the directive's line (see [`construct_places`]).
    outcome.changed |= construct_places::locate_constructs(module);
    // What this unit's functions do, for the regions of other units that call them: taken before
    // the rewrites below add calls of the runtime.
    let summary = team::summary::wanted(module, matches!(kinds, Ok(Some(_))));
    match kinds {
        Ok(Some(kinds)) => {
            let host = host_regions::make_adaptive(module, &kinds, &explicit);
            outcome.changed |= host.changed;
            outcome.remarks.extend(host.remarks);
            let offload = offload_regions::make_adaptive(module, &kinds.target, &explicit);
            outcome.changed |= offload.changed;
            outcome.remarks.extend(offload.remarks);
        }
        Ok(None) => {}
        Err(why) => outcome.warnings.push(format!("{WARNING_PREFIX}{why}")),
    }
    host_regions::set_source_root(None);
    if let Some(summary) = &summary {
        team::summary::emit_note(module, summary);
    }
    add_loader(module, &mut outcome);
    // Host regions of zero-source-change mode first: those whose code may observe their team
    // run as written, and get no automatic features.
    let team = team::lower_team_markers(module);
    outcome.changed |= team.changed;
    outcome.remarks.extend(team.remarks);
    // Automatic features next: they are sliced to the region's marker while the launch is
    // still clang's, before it becomes a dispatch.
    let auto = auto_features::lower_auto_features(module, &team.as_written);
    outcome.changed |= auto.changed;
    outcome.remarks.extend(auto.remarks);
    outcome.warnings.extend(auto.warnings);
    outcome.auto_features = auto.regions;
    // The host regions' features leave the array on the stack: constants into their tables,
    // the others into their support call.
    region_features::move_features(module);
    let (sites, malformed) = find_launch_sites(module);
    for m in malformed {
        outcome.warnings.push(diagnostics::malformed_marker_warning(&m.function, LAUNCH_MARKER, m.reason));
    }
    let mut claimed = HashSet::default();
    let mut reported = BTreeSet::new();
    for site in &sites {
        match lower_site(module, site, &claimed, &mut outcome.remarks) {
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
                    outcome.remarks.push(Remark::at(why.remark_id(), site.marker.as_value_ref(), &model, why.reason()));
                }
            }
        }
    }
    outcome.changed |= decisions::record(module, &outcome.remarks);
    if outcome.changed {
        remove_unused_marker_functions(module);
        launch_site::remove_unused_guard_functions(module);
        debug_locations::give_calls_locations(module);
    }
    outcome
}

/// The kinds pass-only mode applies to `module`, and the code of its explicit regions: pass-only
/// mode where the frontend did not compile the module, and zero-source-change mode where it
/// handed that to the pass (see [`auto_mode`], [`frontend_mark`]); first, so that its regions go
/// through the same stages as the frontend's. Sets the source root names are relative to.
fn kinds_to_apply(module: &Module<'_>, auto: Option<&str>) -> (Result<Option<auto_mode::AutoKinds>, String>, HashSet<LLVMValueRef>) {
    match frontend_mark::lowered(module) {
        frontend_mark::Lowered::ByThePassOnly => (auto_mode::resolve(auto), HashSet::default()),
        frontend_mark::Lowered::ByTheFrontend => (Ok(None), HashSet::default()),
        frontend_mark::Lowered::ByTheFrontendWithAuto { kinds, root } => {
            host_regions::set_source_root(root);
            (auto_mode::parse(&kinds), frontend_mark::explicit_region_code(module))
        }
    }
}

/// Adds the precompiled runtime loader where the module calls it ([`loader::add_loader`]).
fn add_loader(module: &Module<'_>, outcome: &mut PassOutcome) {
    match loader::add_loader(module) {
        loader::LoaderOutcome::Added => outcome.changed = true,
        loader::LoaderOutcome::NoAssemblyFor => {
            outcome.warnings.push(diagnostics::no_loader_warning(&module.get_triple().as_str().to_string_lossy()))
        }
        loader::LoaderOutcome::NotNeeded => {}
    }
}

/// The launch that follows `site`, or why its region cannot be dispatched.
fn launch_of<'ctx>(
    module: &Module<'ctx>,
    site: &LaunchSite<'ctx>,
    claimed: &HashSet<LLVMValueRef>,
) -> Result<InstructionValue<'ctx>, Unlowered> {
    match find_launch_after(site, claimed) {
        LaunchSearch::Found(launch) if launch.get_first_use().is_some() => Ok(launch),
        LaunchSearch::Found(_) => Err(Unlowered::UnusedLaunchResult),
        LaunchSearch::NotDominated(_) => Err(Unlowered::NotDominated),
        LaunchSearch::NotFound { deferred: true } => Err(Unlowered::DeferredTarget),
        LaunchSearch::NotFound { deferred: false } => Err(if module.get_function(omp_calls::TGT_TARGET_KERNEL).is_none() {
            Unlowered::NoOffloadInModule
        } else {
            Unlowered::NoLaunch
        }),
    }
}

/// Turns the launch after `site` into a dispatch, deletes the marker and records the region;
/// returns the launch (now claimed) and what was done, or why the site stays as it is.
fn lower_site<'ctx>(
    module: &Module<'ctx>,
    site: &LaunchSite<'ctx>,
    claimed: &HashSet<LLVMValueRef>,
    remarks: &mut Vec<Remark>,
) -> Result<(LLVMValueRef, RewrittenSite), Unlowered> {
    let launch = launch_of(module, site, claimed)?;
    let model = site.model();
    let fallback = omp_calls::host_fallback(launch);
    let record = RegionRecord {
        model: model.clone(),
        region_id: omp_calls::region_id_name(launch),
        host_fallback: fallback.map(|f| f.get_name().to_string_lossy().into_owned()).unwrap_or_default(),
    };
    let settings = dispatch::LaunchSettings { num_teams: site.num_teams, thread_limit: site.thread_limit };
    let dispatch = dispatch::build_dispatch(
        &module.get_context(),
        launch,
        site.use_host.into_int_value(),
        &model,
        site.marker.get_debug_location(),
        settings,
    );
    let marker = site.marker.as_value_ref();
    let set_in_launch = if settings.are_all_zero() { "" } else { ", with the variant's num_teams and thread_limit set in the launch" };
    remarks.push(Remark::at(
        RemarkId::LaunchDispatched,
        marker,
        &model,
        format!("the offload launch became a dispatch between the host version and the offload{set_in_launch}"),
    ));
    // the cpu variant's run-time check (regions with a cpu variant, see the lowering header)
    if let Some(guard) = launch_site::guard_of(site) {
        remarks.push(place_host_guard(module, &guard, &dispatch, launch, fallback, &model));
    }
    remove_marker(site);
    metadata::record_region(module, &record);
    Ok((launch.as_value_ref(), RewrittenSite { function: site.function_name(), record }))
}

/// Puts the runtime's copies around the host version on `dispatch`'s host path (see
/// [`dispatch::add_host_guard`]) and deletes the guard marker; the remark says whether it could.
fn place_host_guard<'ctx>(
    module: &Module<'ctx>,
    guard: &launch_site::HostGuard<'ctx>,
    dispatch: &dispatch::Dispatch<'ctx>,
    launch: InstructionValue<'ctx>,
    fallback: Option<FunctionValue<'ctx>>,
    model: &str,
) -> Remark {
    // The guard call is deleted before the remark.
    let place = RemarkPlace::of(guard.call.as_value_ref());
    let (enter, exit) = (launch_site::HOST_ENTER.name, launch_site::HOST_EXIT.name);
    let not_placed = |why: &str| {
        let consequence = "the runtime will report the cpu variant unavailable and run its replacement";
        place.remark(RemarkId::HostGuardNotPlaced, model, format!("the cpu variant's host guard stays a call: {why}; {consequence}"))
    };
    let Some((enter_function, exit_function)) = launch_site::host_run_functions(module) else {
        return not_placed(&format!("{enter} and {exit} are not in the module"));
    };
    let variables = device_globals::declare_target_variables(module);
    if let Some(name) = fallback.and_then(|f| device_globals::first_unnamed_device_copy(f, &variables)) {
        return not_placed(&device_globals::device_copy_reason(&name));
    }
    let placed = guard.enter_operands().and_then(|operands| {
        let globals = fallback.map(|f| device_globals::reached(f, &variables)).unwrap_or_default();
        dispatch::add_host_guard(&module.get_context(), module, dispatch, launch, enter_function, exit_function, &operands, &globals)
            .map(|_| globals.len())
    });
    let Some(globals) = placed else {
        return not_placed("the launch or the guard does not have the operands the pass expects");
    };
    launch_site::remove_guard(guard);
    let reached = match globals {
        0 => String::new(),
        n => format!(", with the {n} 'declare target' variables the kernel reaches as present storage"),
    };
    let copies = format!("the runtime's copies ({enter} before, {exit} after)");
    place.remark(
        RemarkId::HostGuardPlaced,
        model,
        format!("the host version runs between {copies}, so that it ends as the offload would{reached}"),
    )
}
