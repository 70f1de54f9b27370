//! Team-size variants only where a region provably cannot observe its team.
//!
//! Zero-source-change mode gives host parallel regions variants that change their team (`serial`,
//! `threads=F`, `num_threads=N`) or schedule. That is correct only where nothing the region runs
//! can tell the difference. The frontend cannot see into called functions, so it guards each such
//! region with a call of [`TEAM_INVARIANT`] (`__ompadapt_team_invariant(model)`; the runtime's
//! begin and end run only where it returns non-zero), and this pass decides: for each call, the
//! parallel region that follows it (its `__kmpc_fork_call`) is analysed ([`analysis`]: its
//! microtask and everything that calls, transitively), and the call becomes 1 (the variants
//! apply) or 0 (the region runs as written) with a remark that names the reason and the place
//! (OMPADAPT140-147, docs/remarks.md). Without the pass the call returns 0: no analysis, no
//! variants.
//!
//! One rule is about the whole module, not one region: where some parallel region uses
//! thread-local data, the OpenMP specification keeps its values between parallel regions only
//! while their teams keep one size, so no region of the module changes its team.
//!
//! Layout: [`analysis`] (the walk and what it finds), [`scope`] (which code every thread runs),
//! [`private`] (which memory is a thread's own), [`idempotent`] (stores every thread makes
//! alike), [`library`] (what functions the module does not define may do; [`flang_runtime`] for
//! flang's runtime).
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub mod analysis;
pub mod carried;
pub mod flang_runtime;
pub mod idempotent;
pub mod library;
pub mod private;
pub mod reduction;
pub mod scope;
pub mod summary;

use std::collections::VecDeque;

use crate::fast_hash::HashSet;

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use ompadapt_abi::markers::TEAM_INVARIANT;

use crate::entry_points::Role;
use crate::ir::{self, ValueRef};
use crate::remarks::{Remark, RemarkId, RemarkPlace};
use analysis::{Analysis, Finding, Reason};

/// What the team analysis decided for a module.
#[derive(Debug, Default)]
pub struct TeamOutcome {
    pub changed: bool,
    pub remarks: Vec<Remark>,
    /// The regions left as written (their automatic features are not computed).
    pub as_written: HashSet<String>,
    /// The regions whose variants apply.
    pub adaptive: Vec<String>,
}

/// The remark for a finding's reason.
pub fn remark_id(reason: Reason) -> RemarkId {
    match reason {
        Reason::TeamQuery => RemarkId::TeamQuery,
        Reason::ThreadLocal => RemarkId::TeamThreadLocal,
        Reason::Opaque => RemarkId::TeamOpaqueCall,
        Reason::Indirect => RemarkId::TeamIndirectCall,
        Reason::Replicated => RemarkId::TeamReplicatedEffect,
        Reason::ReductionPrivate => RemarkId::TeamReductionCopy,
        Reason::NoFork => RemarkId::TeamNoRegion,
        Reason::Waits => RemarkId::TeamWaits,
        Reason::Carried => RemarkId::TeamCarriedCopy,
        Reason::ObservedByTool => RemarkId::ObservedByTool,
    }
}

/// Whether `module` has [`TEAM_INVARIANT`] calls (the frontend's own lowering of
/// zero-source-change mode).
pub fn has_team_markers(module: &Module<'_>) -> bool {
    module.get_functions().any(|f| TEAM_INVARIANT.names(f.get_name().to_bytes()) && !ir::users(f.as_value_ref()).is_empty())
}

/// Decides every [`TEAM_INVARIANT`] call of `module`.
pub fn lower_team_markers(module: &Module<'_>) -> TeamOutcome {
    let mut out = TeamOutcome::default();
    let calls: Vec<ValueRef> = module
        .get_functions()
        .flat_map(|f| ir::function_instructions(f.as_value_ref()))
        .filter(|i| ir::is_call(*i) && TEAM_INVARIANT.names(ir::callee_name(*i).as_bytes()))
        .collect();
    if calls.is_empty() {
        return out;
    }
    let module_wide = module_wide(module);
    for call in calls {
        let model = ir::call_args(call).first().and_then(|m| ir::c_string(*m)).unwrap_or_default();
        let place = RemarkPlace::of(call);
        let verdict = decide(call, &module_wide).and_then(|(functions, deps)| {
            if !deps.is_empty() {
                record_dependencies(module, call, &model, &deps)?;
                out.remarks.push(place.remark(RemarkId::DependsOnOtherUnits, &model, dependencies_remark(&deps)));
            }
            Ok(functions)
        });
        let value = match verdict {
            Ok(functions) => {
                out.remarks.push(place.remark(
                    RemarkId::TeamInvariant,
                    &model,
                    format!(
                        "its team-size variants apply: nothing the parallel region runs ({functions} function{}) can observe its team",
                        if functions == 1 { "" } else { "s" }
                    ),
                ));
                out.adaptive.push(model);
                1
            }
            Err((found, module_wide)) => {
                let why = match module_wide {
                    Some(tail) => format!("left as written: {}; {tail}", found.describe()),
                    None => format!("left as written: {}", found.describe()),
                };
                out.remarks.push(place.remark(remark_id(found.reason), &model, why));
                out.as_written.insert(model);
                0
            }
        };
        // (a C++ invoke becomes a branch to its normal destination)
        ir::replace_call(call, value);
        ir::invalidate();
        out.changed = true;
    }
    ir::invalidate();
    for f in module.get_functions().filter(|f| TEAM_INVARIANT.names(f.get_name().to_bytes())).collect::<Vec<_>>() {
        if ir::users(f.as_value_ref()).is_empty() {
            unsafe { f.delete() };
        }
    }
    out
}

/// A finding, with the module-wide rule's consequence where the module's rule decided.
type Refusal = (Finding, Option<&'static str>);

/// The verdict for the region after marker `call`: the number of functions walked and the
/// functions of other translation units its code calls, or why it stays as written.
fn decide(
    call: ValueRef,
    module_wide: &Option<(Finding, &'static str)>,
) -> Result<(usize, std::collections::BTreeSet<ompadapt_abi::summary::Dependency>), Refusal> {
    let Some(microtask) = fork_after(call) else {
        let what = "no parallel region (__kmpc_fork_call) follows the marker".into();
        return Err((Finding { reason: Reason::NoFork, what, at: None, path: Vec::new() }, None));
    };
    // The region's own finding first (the more precise), then the module's.
    let mut analysis = Analysis::default();
    match (analysis.region_with_dependencies(microtask), module_wide) {
        (Err(found), _) => Err((found, None)),
        (Ok(_), Some((found, tail))) => Err((found.clone(), Some(*tail))),
        (Ok(deps), None) => Ok((analysis.functions, deps)),
    }
}

/// The `depends=` list of a [`dependencies_remark`]'s text.
pub fn depends_of_remark(message: &str) -> Option<&str> {
    message.rsplit_once("(depends=").map(|(_, rest)| rest.strip_suffix(')').unwrap_or(rest))
}

/// The remark that names the functions of other translation units a region waits for.
pub fn dependencies_remark(deps: &std::collections::BTreeSet<ompadapt_abi::summary::Dependency>) -> String {
    // a function called two ways is named once
    let names: Vec<String> = deps
        .iter()
        .map(|d| format!("'{}'", analysis::demangle(&d.symbol)))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    format!(
        "its code calls {} of other translation units ({}): the runtime runs its variants only where their summaries, read from the program when it starts, show that none can observe the team; else it runs as written (depends={})",
        if names.len() == 1 { "a function".to_string() } else { format!("{} functions", names.len()) },
        names.join(", "),
        ompadapt_abi::summary::Dependencies(deps.clone())
    )
}

/// Appends `deps` to the descriptor of the region after marker `call` (`depends=`, read by the
/// runtime): stored into the descriptor variable right before the region's features(auto)
/// marker, whose lowering appends its features after them. Where the descriptor is not a
/// constant there, the region stays as written.
fn record_dependencies(
    module: &Module<'_>,
    call: ValueRef,
    model: &str,
    deps: &std::collections::BTreeSet<ompadapt_abi::summary::Dependency>,
) -> Result<(), Refusal> {
    let refuse = || {
        let what = format!(
            "its code calls functions of other translation units, and the region's descriptor cannot name them ({})",
            dependencies_remark(deps)
        );
        (Finding { reason: Reason::Opaque, what, at: ir::debug_location(call), path: Vec::new() }, None)
    };
    let marker = ir::first_after(call, |i| {
        ir::is_call(i)
            && crate::auto_features::is_auto_marker_name(&ir::callee_name(i))
            && ir::call_args(i).get(3).and_then(|m| ir::c_string(*m)).as_deref() == Some(model)
    })
    .ok_or_else(refuse)?;
    let spec = crate::auto_features::descriptor_at(module, marker).ok_or_else(refuse)?;
    let text = ompadapt_abi::summary::Dependencies(deps.clone()).append_to(&spec);
    crate::auto_features::store_descriptor(marker, &text);
    Ok(())
}

/// The microtask of the first parallel region the marker `call` dominates (breadth-first
/// forward from it).
fn fork_after(call: ValueRef) -> Option<ValueRef> {
    let is_fork =
        |i: ValueRef| matches!(scope::role(i), Some(Role::Fork { .. })) && ir::callee_name(i) != crate::entry_points::name::FORK_TEAMS;
    let fork = ir::first_after(call, |i| is_fork(i) && ir::inst_dominates(call, i))?;
    let Some(Role::Fork { microtask }) = scope::role(fork) else { return None };
    let m = ir::strip_to_global(*ir::call_args(fork).get(microtask as usize)?);
    (ir::is_function(m) && !ir::is_declaration(m)).then_some(m)
}

/// Thread-local data that the code of some parallel region of the module uses, if any.
/// What makes every parallel region of `module` keep its team, whatever it runs, and why in
/// words: the program is an OMPT tool ([`crate::loader::defines_ompt_tool`]: it is told of every
/// parallel region and the size of its team), or a parallel region uses thread-local data
/// ([`thread_local_in_parallel_code`]).
pub fn module_wide(module: &Module<'_>) -> Option<(Finding, &'static str)> {
    if crate::loader::defines_ompt_tool(module) {
        let what = "the program is an OMPT tool (it defines ompt_start_tool in this module)";
        let tail = "a tool is told of every parallel region, its team and every target launch";
        return Some((Finding { reason: Reason::ObservedByTool, what: what.into(), at: None, path: Vec::new() }, tail));
    }
    thread_local_in_parallel_code(module).map(|f| (f, ompadapt_abi::summary::THREAD_LOCAL_CONSEQUENCE))
}

pub fn thread_local_in_parallel_code(module: &Module<'_>) -> Option<Finding> {
    let mut queue: VecDeque<ValueRef> = VecDeque::new();
    for f in module.get_functions() {
        for i in ir::function_instructions(f.as_value_ref()) {
            if let Some(Role::Fork { microtask }) = scope::role(i) {
                if let Some(m) = ir::call_args(i).get(microtask as usize) {
                    queue.push_back(ir::strip_to_global(*m));
                }
            }
        }
    }
    let mut seen = HashSet::default();
    while let Some(f) = queue.pop_front() {
        if !ir::is_function(f) || ir::is_declaration(f) || !seen.insert(f) {
            continue;
        }
        for i in ir::function_instructions(f) {
            let tls = if ir::is_call(i) && ir::with_callee_name(i, |n| n.starts_with("llvm.threadlocal.address")) {
                Some(ir::strip_to_global(ir::operand(i, 0)))
            } else {
                (0..ir::num_operands(i))
                    .map(|k| ir::strip_to_global(ir::operand(i, k)))
                    .find(|g| ir::is_global_variable(*g) && unsafe { llvm_sys::core::LLVMIsThreadLocal(*g) } != 0)
            };
            let threadprivate = matches!(scope::role(i), Some(Role::Threadprivate));
            if tls.is_some() || threadprivate {
                let what = match tls {
                    Some(g) => format!("'{}'", analysis::demangle(&ir::name(g))),
                    None => format!("(through {})", ir::callee_name(i)),
                };
                return Some(Finding {
                    reason: Reason::ThreadLocal,
                    what: format!("threadprivate (thread-local) data {what} is used by a parallel region of this translation unit"),
                    at: ir::debug_location(i),
                    path: vec![analysis::display_name(f)],
                });
            }
            for k in 0..ir::num_operands(i) {
                let op = ir::strip_to_global(ir::operand(i, k));
                if ir::is_function(op) {
                    queue.push_back(op);
                }
            }
        }
    }
    None
}
