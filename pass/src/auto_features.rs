//! `features(auto)`: replaces each call of [`AUTO_MARKER`]
//! (`int __ompadapt_auto_features(double *out, int cap, const char **spec, const char *model,
//! const char *loops)`, see plugin/include/ompadapt_lowering.h) by the region's automatic
//! features, computed at the call:
//!
//! 1. `trip_count(<vars>)` of each worksharing loop the region's launch runs
//!    ([`crate::worksharing`]), sliced to the call ([`crate::slice`]); a loop without a slice
//!    gets no feature and a remark saying why;
//! 2. `bytes_mapped` of an offload launch ([`crate::map_sizes`]);
//! 3. the static features of the region's code ([`crate::static_features`]), constants.
//!
//! The values go to `out[0..K)` (at most `cap`), `*spec` points at the frontend's descriptor,
//! not read, followed by `;auto_features=` with their names ([`AutoFeatures`]: the runtime's
//! one parse puts them after the explicit features), the call's result becomes `K`, and
//! `!ompadapt.auto_features` records `!{!"<model>", !"<name>", ...}` per region.
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::rc::Rc;

use inkwell::module::Module;
use inkwell::values::{AsValueRef, BasicMetadataValueEnum};
use llvm_sys::core::*;
use llvm_sys::debuginfo::{LLVMInstructionGetDebugLoc, LLVMInstructionSetDebugLoc};
use llvm_sys::prelude::{LLVMBuilderRef, LLVMValueRef};
use llvm_sys::target::{LLVMGetModuleDataLayout, LLVMTargetDataRef};
use llvm_sys::{LLVMOpcode, LLVMRealPredicate};
use ompadapt_abi::descriptor::AutoFeatures;
use ompadapt_abi::markers::AUTO_FEATURES;
use ompadapt_abi::LoopNames;

use crate::ir::{self, ValueRef};
use crate::launch_search::{find_launch_after, LaunchSearch};
use crate::launch_site::{find_launch_sites, LaunchSite};
use crate::omp_calls::TGT_TARGET_KERNEL;
use crate::remarks::{Remark, RemarkId, RemarkPlace};
use crate::slice::{emit, Expr, NoSlice, Slicer};
use crate::static_features::{static_features, NAMES as STATIC_NAMES};
use crate::worksharing::{is_region_launch, region_loops, Bounds, WorksharingLoop};

/// The marker the frontend emits for `features(auto)`.
pub const AUTO_MARKER: &str = AUTO_FEATURES.name;

/// Named metadata listing each region's automatic features.
pub const AUTO_METADATA: &str = "ompadapt.auto_features";

/// What the replacement of the markers did.
#[derive(Debug, Default)]
pub struct AutoOutcome {
    pub changed: bool,
    /// One entry per marker: the model and the names of the features stored.
    pub regions: Vec<(String, Vec<String>)>,
    pub remarks: Vec<Remark>,
    pub warnings: Vec<String>,
}

/// Whether `name` names the auto-features marker (C name or C++ mangled name).
pub fn is_auto_marker_name(name: &str) -> bool {
    AUTO_FEATURES.names(name.as_bytes())
}

/// A feature value: a computation at the marker (integer or double) or a constant.
enum Value {
    Int { expr: Rc<Expr>, signed: bool },
    Trip(TripCount),
    Const(f64),
}

struct TripCount {
    lb: Rc<Expr>,
    ub: Rc<Expr>,
    incr: Rc<Expr>,
    signed: bool,
    /// Conditions (and the value they must have) for the loop to run at all.
    guards: Vec<(Rc<Expr>, bool)>,
}

/// Replaces every auto-features marker of `module`; those of the regions in `as_written` (which
/// run as written: the runtime never sees them) by no features.
pub fn lower_auto_features(module: &Module<'_>, as_written: &crate::fast_hash::HashSet<String>) -> AutoOutcome {
    let mut out = AutoOutcome::default();
    let calls: Vec<ValueRef> = module
        .get_functions()
        .filter(|f| !f.get_name().to_string_lossy().is_empty())
        .flat_map(|f| ir::function_instructions(f.as_value_ref()))
        .filter(|i| ir::is_call(*i) && is_auto_marker_name(&ir::callee_name(*i)))
        .collect();
    if calls.is_empty() {
        return out;
    }
    let data_layout = unsafe { LLVMGetModuleDataLayout(module.as_mut_ptr()) };
    let sites = find_launch_sites(module).0;
    ir::invalidate();
    for call in calls {
        let invoke = ir::opcode(call) == Some(LLVMOpcode::LLVMInvoke);
        let model = ir::call_args(call).get(3).and_then(|m| ir::c_string(*m)).unwrap_or_default();
        if as_written.contains(&model) {
            ir::replace_call(call, 0);
        } else {
            lower_one(module, data_layout, call, &sites, &mut out);
        }
        out.changed = true;
        // The values emitted before the call moved instructions; an invoke became a branch.
        if invoke {
            ir::invalidate();
        } else {
            ir::invalidate_instructions();
        }
    }
    ir::invalidate();
    for f in module.get_functions().filter(|f| is_auto_marker_name(&f.get_name().to_string_lossy())).collect::<Vec<_>>() {
        if ir::users(f.as_value_ref()).is_empty() {
            unsafe { f.delete() };
        }
    }
    out
}

/// Replaces one marker call by the region's automatic features.
fn lower_one(module: &Module<'_>, data_layout: LLVMTargetDataRef, call: ValueRef, sites: &[LaunchSite<'_>], out: &mut AutoOutcome) {
    let host = ir::function_of(call);
    let args = ir::call_args(call);
    if args.len() < 5
        || !ir::type_of(call).is_null() && unsafe { LLVMGetTypeKind(ir::type_of(call)) } != llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind
    {
        out.warnings.push(crate::diagnostics::malformed_marker_warning(
            &ir::name(host),
            AUTO_MARKER,
            "it does not have the five arguments (out, cap, spec, model, loops)",
        ));
        ir::replace_call(call, 0);
        return;
    }
    let model = ir::c_string(args[3]).unwrap_or_default();
    let loop_names = ir::c_string(args[4]).unwrap_or_default();
    // The call is deleted before the last remark.
    let place = RemarkPlace::of(call);
    let remarks = &mut out.remarks;
    let mut say = |id: RemarkId, what: String| remarks.push(place.remark(id, &model, what));
    let Some(cap) = ir::const_int(args[1]) else {
        say(RemarkId::CapacityNotConstant, "the capacity of the feature array is not a constant: no automatic features".into());
        ir::replace_call(call, 0);
        return;
    };
    let Some(launch) = region_launch(call, &model, sites) else {
        say(RemarkId::NoRegionLaunch, "no OpenMP launch follows the region's marker: no automatic features".into());
        ir::replace_call(call, 0);
        return;
    };
    let mut features = region_features(data_layout, call, launch, &loop_names, &mut say);
    let cap = cap.max(0) as usize;
    if features.len() > cap {
        let dropped: Vec<String> = features[cap..].iter().map(|(n, _)| n.clone()).collect();
        say(RemarkId::FeaturesDropped, format!("only {cap} automatic features fit; dropped {}", dropped.join(", ")));
        features.truncate(cap);
    }
    let stored = store_features(module, data_layout, call, &features, &mut say);
    ir::replace_call(call, stored as i64);
    let names: Vec<String> = features.into_iter().take(stored).map(|(n, _)| n).collect();
    record_region_features(module, &model, &names);
    if stored > 0 {
        say(RemarkId::AutoFeatures, format!("automatic features: {}", names.join(", ")));
    }
    out.regions.push((model, names));
}

/// The features of the region whose marker is `call` and whose launch is `launch`, in order:
/// the trip counts of its worksharing loops, the bytes an offload launch maps, the static
/// features of its code. What cannot be computed is left out, and `say` says why.
fn region_features(
    data_layout: LLVMTargetDataRef,
    call: ValueRef,
    launch: ValueRef,
    loop_names: &str,
    say: &mut dyn FnMut(RemarkId, String),
) -> Vec<(String, Value)> {
    let host = ir::function_of(call);
    let (loops, functions) = region_loops(host, launch);
    let (mut features, chunk_loops) = trip_count_features(data_layout, call, launch, &loops, loop_names, say);
    if ir::callee_name(launch) == TGT_TARGET_KERNEL {
        let frames = [crate::worksharing::Frame { function: host, call: None, args: ir::params(host).into_iter().map(Some).collect() }];
        let mut slicer = Slicer::new(data_layout, call, &frames, launch, Some(launch));
        match crate::map_sizes::bytes_mapped(&mut slicer, launch) {
            Ok(e) => features.push(("bytes_mapped".into(), Value::Int { expr: e, signed: false })),
            Err(NoSlice::Because(why)) => say(RemarkId::NoBytesMapped, format!("no bytes_mapped feature: {why}")),
            Err(NoSlice::ChunkOfOuterLoop) => say(RemarkId::NoBytesMapped, "no bytes_mapped feature: a map size comes from a loop".into()),
        }
    }
    if !functions.is_empty() {
        let counts = static_features(&functions, data_layout, &chunk_loops);
        let listed: Vec<String> = STATIC_NAMES.iter().zip(counts.values()).map(|(n, v)| format!("{n}={v}")).collect();
        say(RemarkId::StaticFeatures, format!("static features of the region's code: {}", listed.join(", ")));
        for (n, v) in STATIC_NAMES.iter().zip(counts.values()) {
            features.push((n.to_string(), Value::Const(v)));
        }
    }
    features
}

/// One `trip_count(<vars>)` feature per worksharing loop of the region that has a slice (the
/// others are said), and the functions whose loop runs the chunks of an outer loop (see
/// [`static_features`]).
fn trip_count_features(
    data_layout: LLVMTargetDataRef,
    call: ValueRef,
    launch: ValueRef,
    loops: &[WorksharingLoop],
    loop_names: &str,
    say: &mut dyn FnMut(RemarkId, String),
) -> (Vec<(String, Value)>, Vec<ValueRef>) {
    let mut trips: Vec<Option<TripCount>> = Vec::new();
    let mut reasons = Vec::new();
    let mut chunk_loops = Vec::new();
    for l in loops {
        match trip_count(data_layout, call, launch, l) {
            Ok(t) => trips.push(Some(t)),
            Err(NoSlice::ChunkOfOuterLoop) => {
                // The functions from the fork that runs the chunks down to the init (with -g,
                // clang puts a wrapper in between).
                let fork = l
                    .frames
                    .iter()
                    .rposition(|f| f.call.is_some_and(|c| ir::callee_name(c).starts_with(crate::entry_points::name::prefix::FORK)));
                chunk_loops.extend(l.frames[fork.unwrap_or(l.frames.len() - 1)..].iter().map(|f| f.function));
            }
            Err(NoSlice::Because(why)) => {
                reasons.push((trips.len(), why));
                trips.push(None);
            }
        }
    }
    let given = LoopNames::parse(loop_names);
    let found = trips.len();
    // The frontend's names only when it saw the loops the pass found.
    let loop_name = |i: usize| -> String {
        match given.label(i).filter(|_| given.len() == found) {
            Some(label) => format!("trip_count({label})"),
            None => format!("trip_count(loop{})", i + 1),
        }
    };
    for (i, why) in reasons {
        say(RemarkId::NoTripCount, format!("no {} feature, its bound cannot be computed at the region's start: {why}", loop_name(i)));
    }
    let features = trips.into_iter().enumerate().filter_map(|(i, t)| t.map(|t| (loop_name(i), Value::Trip(t)))).collect();
    (features, chunk_loops)
}

/// Before `call`, stores the features' values into its array (`out`, the first argument) and
/// points `*spec` at the descriptor with their names appended ([`AutoFeatures::append_to`]);
/// returns how many were stored: none when the descriptor is not a constant string at the
/// marker.
fn store_features(
    module: &Module<'_>,
    data_layout: LLVMTargetDataRef,
    call: ValueRef,
    features: &[(String, Value)],
    say: &mut dyn FnMut(RemarkId, String),
) -> usize {
    if features.is_empty() {
        return 0;
    }
    let Some(spec) = descriptor_at_with(data_layout, call) else {
        say(
            RemarkId::DescriptorNotConstant,
            "the region's descriptor is not a constant string at its marker: no automatic features".into(),
        );
        return 0;
    };
    let args = ir::call_args(call);
    let auto = AutoFeatures { names: features.iter().map(|(n, _)| n.clone()).collect() };
    unsafe {
        let builder = LLVMCreateBuilderInContext(LLVMGetTypeContext(ir::type_of(call)));
        LLVMPositionBuilderBefore(builder, call);
        let loc = LLVMInstructionGetDebugLoc(call);
        let context = LLVMGetTypeContext(ir::type_of(call));
        let double = LLVMDoubleTypeInContext(context);
        let int64 = LLVMInt64TypeInContext(context);
        for (i, (_, v)) in features.iter().enumerate() {
            let value = emit_value(module, builder, data_layout, loc, v);
            let mut index = [LLVMConstInt(int64, i as u64, 0)];
            let slot = LLVMBuildGEP2(builder, double, args[0], index.as_mut_ptr(), 1, c"ompadapt.auto.slot".as_ptr());
            let store = LLVMBuildStore(builder, value, slot);
            for x in [slot, store] {
                if ir::is_instruction(x) {
                    LLVMInstructionSetDebugLoc(x, loc);
                }
            }
        }
        let text = std::ffi::CString::new(auto.append_to(&spec)).unwrap_or_default();
        let descriptor = LLVMBuildGlobalString(builder, text.as_ptr(), c"ompadapt.auto.spec".as_ptr());
        let store = LLVMBuildStore(builder, descriptor, args[2]);
        LLVMInstructionSetDebugLoc(store, loc);
        LLVMDisposeBuilder(builder);
    }
    features.len()
}

/// The descriptor of the region whose features(auto) marker is `call`, if it is a constant
/// string there.
pub(crate) fn descriptor_at(module: &Module<'_>, call: ValueRef) -> Option<String> {
    descriptor_at_with(unsafe { LLVMGetModuleDataLayout(module.as_mut_ptr()) }, call)
}

/// Points the descriptor variable of the features(auto) marker `call` (its third argument) at
/// `text`, right before the call.
pub(crate) fn store_descriptor(call: ValueRef, text: &str) {
    let args = ir::call_args(call);
    let text = std::ffi::CString::new(text).unwrap_or_default();
    unsafe {
        let builder = LLVMCreateBuilderInContext(LLVMGetTypeContext(ir::type_of(call)));
        LLVMPositionBuilderBefore(builder, call);
        let descriptor = LLVMBuildGlobalString(builder, text.as_ptr(), c"ompadapt.depends.spec".as_ptr());
        let store = LLVMBuildStore(builder, descriptor, args[2]);
        LLVMInstructionSetDebugLoc(store, LLVMInstructionGetDebugLoc(call));
        LLVMDisposeBuilder(builder);
    }
    ir::invalidate_instructions();
}

/// The region's descriptor as `*spec` holds it at `call` (the marker's third argument), if it
/// is a constant string there.
fn descriptor_at_with(data_layout: LLVMTargetDataRef, call: ValueRef) -> Option<String> {
    let host = ir::function_of(call);
    let args = ir::call_args(call);
    let frames = [crate::worksharing::Frame { function: host, call: None, args: ir::params(host).into_iter().map(Some).collect() }];
    let mut slicer = Slicer::new(data_layout, call, &frames, call, None);
    let pointer_type = ir::type_of(args[0]);
    let (address, _) = slicer.provenance(args[2], 0);
    slicer.reaching_stored_value(address, pointer_type, call).and_then(ir::c_string)
}

/// `!ompadapt.auto_features`: `!{!"<model>", !"<name>", ...}` for the region.
fn record_region_features(module: &Module<'_>, model: &str, names: &[String]) {
    let context = module.get_context();
    let mut node: Vec<BasicMetadataValueEnum> = vec![context.metadata_string(model).into()];
    node.extend(names.iter().map(|n| BasicMetadataValueEnum::from(context.metadata_string(n))));
    let _ = module.add_global_metadata(AUTO_METADATA, &context.metadata_node(&node));
}

/// The launch of the region: that of the first launch-site marker with the same model the call
/// dominates, else the first OpenMP launch after the call.
fn region_launch(call: ValueRef, model: &str, sites: &[LaunchSite<'_>]) -> Option<ValueRef> {
    let markers: crate::fast_hash::HashMap<ValueRef, &LaunchSite<'_>> = sites
        .iter()
        .filter(|s| s.function.as_value_ref() == ir::function_of(call) && s.model() == model)
        .map(|s| (s.marker.as_value_ref(), s))
        .collect();
    let site = ir::first_after(call, |i| markers.get(&i).is_some_and(|_| ir::inst_dominates(call, i)));
    if let Some(site) = site.and_then(|m| markers.get(&m)) {
        if let LaunchSearch::Found(l) = find_launch_after(site, &Default::default()) {
            return Some(l.as_value_ref());
        }
    }
    ir::first_after(call, |i| is_region_launch(i) && ir::inst_dominates(call, i))
}

fn trip_count(data_layout: LLVMTargetDataRef, marker: ValueRef, launch: ValueRef, l: &WorksharingLoop) -> Result<TripCount, NoSlice> {
    let last = l.frames.len() - 1;
    let mut slicer = Slicer::new(data_layout, marker, &l.frames, l.init, Some(launch));
    let args = ir::call_args(l.init);
    let ctx = unsafe { LLVMGetTypeContext(ir::type_of(l.init)) };
    let ity = unsafe { LLVMIntTypeInContext(ctx, l.width * 8) };
    let (lb, ub, incr) = match l.bounds {
        Bounds::ByPointer { lower, upper, incr } => (
            slicer.slice_memory(args[lower as usize], ity, l.init, last, None)?,
            slicer.slice_memory(args[upper as usize], ity, l.init, last, None)?,
            slicer.slice(args[incr as usize], last)?,
        ),
        Bounds::ByValue { lower, upper, incr } => {
            (slicer.slice(args[lower as usize], last)?, slicer.slice(args[upper as usize], last)?, slicer.slice(args[incr as usize], last)?)
        }
    };
    let mut guards = Vec::new();
    for (cond, want) in loop_guards(l.init)? {
        let g = slicer.slice(cond, last).map_err(|e| match e {
            NoSlice::Because(why) => NoSlice::Because(format!("is reached under a condition that {why}")),
            other => other,
        })?;
        guards.push((g, want));
    }
    Ok(TripCount { lb, ub, incr, signed: l.signed, guards })
}

/// The conditions under which the init call runs, in its function: conditional branches outside
/// any cycle that dominate the init and from one side of which it cannot be reached.
fn loop_guards(init: ValueRef) -> Result<Vec<(ValueRef, bool)>, NoSlice> {
    let f = ir::function_of(init);
    let ib = ir::block_of(init);
    let mut out = Vec::new();
    for b in ir::blocks(f) {
        if b == ib || !ir::block_dominates(f, b, ib) || ir::reachable_from(&ir::successors(b), None).contains(&b) {
            continue;
        }
        let term = unsafe { LLVMGetBasicBlockTerminator(b) };
        let succ = ir::successors(b);
        let reach: Vec<bool> = succ.iter().map(|s| ir::reachable_from(&[*s], None).contains(&ib)).collect();
        if reach.iter().all(|r| *r) {
            continue;
        }
        match ir::opcode(term) {
            Some(LLVMOpcode::LLVMBr) if succ.len() == 2 => {
                let cond = unsafe { LLVMGetCondition(term) };
                out.push((cond, reach[0]));
            }
            _ => return Err(NoSlice::Because("is reached through a switch or another kind of branch".into())),
        }
    }
    Ok(out)
}

fn emit_value(
    module: &Module<'_>,
    b: LLVMBuilderRef,
    data_layout: LLVMTargetDataRef,
    loc: llvm_sys::prelude::LLVMMetadataRef,
    v: &Value,
) -> LLVMValueRef {
    unsafe {
        let ctx = LLVMGetModuleContext(module.as_mut_ptr());
        let f64t = LLVMDoubleTypeInContext(ctx);
        let to_f64 = |x: ValueRef, signed: bool| -> ValueRef {
            if signed {
                LLVMBuildSIToFP(b, x, f64t, c"".as_ptr())
            } else {
                LLVMBuildUIToFP(b, x, f64t, c"".as_ptr())
            }
        };
        let set_loc = |x: ValueRef| {
            if ir::is_instruction(x) {
                LLVMInstructionSetDebugLoc(x, loc);
            }
            x
        };
        match v {
            Value::Const(c) => LLVMConstReal(f64t, *c),
            Value::Int { expr, signed } => set_loc(to_f64(emit(expr, b, data_layout, loc), *signed)),
            Value::Trip(t) => {
                let lb = set_loc(to_f64(emit(&t.lb, b, data_layout, loc), t.signed));
                let ub = set_loc(to_f64(emit(&t.ub, b, data_layout, loc), t.signed));
                let diff = set_loc(LLVMBuildFSub(b, ub, lb, c"".as_ptr()));
                let incr = emit(&t.incr, b, data_layout, loc);
                let steps = if ir::const_int(incr) == Some(1) {
                    diff
                } else {
                    let q = set_loc(LLVMBuildFDiv(b, diff, set_loc(to_f64(incr, true)), c"".as_ptr()));
                    let name = c"llvm.floor";
                    let id = LLVMLookupIntrinsicID(name.as_ptr(), 10);
                    let mut tys = [f64t];
                    let floor = LLVMGetIntrinsicDeclaration(module.as_mut_ptr(), id, tys.as_mut_ptr(), 1);
                    let fty = LLVMIntrinsicGetType(ctx, id, tys.as_mut_ptr(), 1);
                    let mut a = [q];
                    set_loc(LLVMBuildCall2(b, fty, floor, a.as_mut_ptr(), 1, c"".as_ptr()))
                };
                let one = LLVMConstReal(f64t, 1.0);
                let zero = LLVMConstReal(f64t, 0.0);
                let mut trips = set_loc(LLVMBuildFAdd(b, steps, one, c"".as_ptr()));
                let neg = set_loc(LLVMBuildFCmp(b, LLVMRealPredicate::LLVMRealOLT, trips, zero, c"".as_ptr()));
                trips = set_loc(LLVMBuildSelect(b, neg, zero, trips, c"".as_ptr()));
                for (g, want) in &t.guards {
                    let c = emit(g, b, data_layout, loc);
                    trips = set_loc(if *want {
                        LLVMBuildSelect(b, c, trips, zero, c"".as_ptr())
                    } else {
                        LLVMBuildSelect(b, c, zero, trips, c"".as_ptr())
                    });
                }
                LLVMSetValueName2(trips, c"ompadapt.trip_count".as_ptr(), 19);
                trips
            }
        }
    }
}
