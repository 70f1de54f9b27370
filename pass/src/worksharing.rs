//! The worksharing loops a launch runs: the `__kmpc_*_init_*` calls of the outlined functions
//! reached from the launch, through `__kmpc_fork_teams` / `__kmpc_fork_call` and direct calls
//! of outlined functions, with the chain of calls that leads to each (how the outlined
//! functions' parameters map back to values of the caller, for slicing).
//!
//! Clang lowers every worksharing loop to a normalized loop `for (iv = lb; iv <= ub; iv += 1)`
//! whose bounds it stores into `.omp.lb` / `.omp.ub` (passed by pointer to the static init) or
//! passes by value (dispatch init); a collapsed nest is one such loop over the product.
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use crate::fast_hash::HashSet;

use llvm_sys::prelude::LLVMValueRef;

use crate::ir::{self, ValueRef};
use crate::omp_calls::{OFFLOADING_PREFIX, TGT_TARGET_KERNEL};

/// One function on the way from the marker's function to a loop.
#[derive(Clone, Debug)]
pub struct Frame {
    pub function: LLVMValueRef,
    /// The call in the previous frame that enters this one (None for the marker's function).
    pub call: Option<LLVMValueRef>,
    /// For each parameter of `function`, the value the call passes (None: none, e.g. the
    /// thread-id pointers of an outlined function).
    pub args: Vec<Option<LLVMValueRef>>,
}

/// How the init call passes the normalized bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bounds {
    /// Through pointers: argument indices of `plower`, `pupper` and of the increment.
    ByPointer { lower: u32, upper: u32, incr: u32 },
    /// By value (dispatch init): `lb`, `ub`, `st`.
    ByValue { lower: u32, upper: u32, incr: u32 },
}

#[derive(Clone, Debug)]
pub struct WorksharingLoop {
    /// frames[0] is the marker's function, the last one contains `init`.
    pub frames: Vec<Frame>,
    pub init: LLVMValueRef,
    pub bounds: Bounds,
    /// Width in bytes of the induction variable (4 or 8) and whether it is signed.
    pub width: u32,
    pub signed: bool,
}

/// Recognises a worksharing init call.
pub fn init_kind(call: ValueRef) -> Option<(Bounds, u32, bool)> {
    let name = ir::callee_name(call);
    let (prefix, bounds) = if let Some(r) = name.strip_prefix(crate::entry_points::name::prefix::FOR_STATIC_INIT) {
        (r, Bounds::ByPointer { lower: 4, upper: 5, incr: 7 })
    } else if let Some(r) = name.strip_prefix(crate::entry_points::name::prefix::DISTRIBUTE_STATIC_INIT) {
        (r, Bounds::ByPointer { lower: 4, upper: 5, incr: 7 })
    } else if let Some(r) = name.strip_prefix(crate::entry_points::name::prefix::DIST_FOR_STATIC_INIT) {
        (r, Bounds::ByPointer { lower: 4, upper: 5, incr: 8 })
    } else if let Some(r) = name.strip_prefix(crate::entry_points::name::prefix::DISPATCH_INIT) {
        (r, Bounds::ByValue { lower: 3, upper: 4, incr: 5 })
    } else {
        return None;
    };
    let (width, signed) = match prefix {
        "4" => (4, true),
        "4u" => (4, false),
        "8" => (8, true),
        "8u" => (8, false),
        _ => return None,
    };
    if (ir::call_args(call).len() as u32) <= bounds_max(bounds) {
        return None;
    }
    Some((bounds, width, signed))
}

fn bounds_max(b: Bounds) -> u32 {
    match b {
        Bounds::ByPointer { lower, upper, incr } | Bounds::ByValue { lower, upper, incr } => lower.max(upper).max(incr),
    }
}

/// Whether `call` is an OpenMP launch that starts a region: the offload launch, a fork of teams
/// or threads, or a direct call of an outlined target region.
pub fn is_region_launch(call: ValueRef) -> bool {
    let name = ir::callee_name(call);
    name == TGT_TARGET_KERNEL
        || name == crate::entry_points::name::FORK_CALL
        || name == crate::entry_points::name::FORK_TEAMS
        || (name.starts_with(OFFLOADING_PREFIX) && !ir::is_declaration(ir::callee(call)))
}

/// The first frame below the marker's function for `launch`: the outlined function it runs
/// and the call that enters it. For `__tgt_target_kernel`, the host fallback called on its
/// failure path (clang passes it the same values as the kernel).
pub fn entered_frame(launch: ValueRef) -> Option<Frame> {
    let name = ir::callee_name(launch);
    if name == TGT_TARGET_KERNEL {
        let fallback = crate::omp_calls::host_fallback(unsafe { inkwell::values::InstructionValue::new(launch) })?;
        let f = inkwell::values::AsValueRef::as_value_ref(&fallback);
        let h = ir::function_of(launch);
        // The call of the fallback reachable from the launch.
        let after = ir::reachable_from(&ir::successors(ir::block_of(launch)), None);
        let call = ir::function_instructions(h).into_iter().find(|i| ir::callee(*i) == f && after.contains(&ir::block_of(*i)))?;
        return Some(direct_frame(call));
    }
    fork_or_direct_frame(launch)
}

fn direct_frame(call: ValueRef) -> Frame {
    let f = ir::callee(call);
    let args = ir::call_args(call);
    Frame { function: f, call: Some(call), args: (0..ir::params(f).len()).map(|i| args.get(i).copied()).collect() }
}

/// The frame a fork call or a direct call of an outlined function enters.
fn fork_or_direct_frame(call: ValueRef) -> Option<Frame> {
    let name = ir::callee_name(call);
    if name == crate::entry_points::name::FORK_CALL || name == crate::entry_points::name::FORK_TEAMS {
        let args = ir::call_args(call);
        let f = ir::strip_to_global(*args.get(2)?);
        if !ir::is_function(f) || ir::is_declaration(f) {
            return None;
        }
        // microtask(int *gtid, int *btid, captured...): captured i is variadic argument 3 + i.
        let n = ir::params(f).len();
        let mapped = (0..n).map(|i| if i >= 2 { args.get(i + 1).copied() } else { None }).collect();
        return Some(Frame { function: f, call: Some(call), args: mapped });
    }
    let f = ir::callee(call);
    if f.is_null() || ir::is_declaration(f) {
        return None;
    }
    let fname = ir::name(f);
    if fname.starts_with(OFFLOADING_PREFIX) || fname.contains(".omp_outlined") {
        return Some(direct_frame(call));
    }
    None
}

/// The worksharing loops reached from `launch` (in the marker's function `host`), in the order
/// their code appears, each with its call chain; and every function of the region (for static
/// features).
pub fn region_loops(host: ValueRef, launch: ValueRef) -> (Vec<WorksharingLoop>, Vec<ValueRef>) {
    let mut loops = Vec::new();
    let mut functions = Vec::new();
    let root = Frame { function: host, call: None, args: ir::params(host).iter().map(|p| Some(*p)).collect() };
    let mut seen_inits = HashSet::default();
    if let Some(first) = entered_frame(launch) {
        let mut stack = vec![root, first];
        walk(&mut stack, &mut loops, &mut functions, &mut seen_inits);
    }
    (loops, functions)
}

fn walk(stack: &mut Vec<Frame>, loops: &mut Vec<WorksharingLoop>, functions: &mut Vec<ValueRef>, seen_inits: &mut HashSet<ValueRef>) {
    let f = stack.last().expect("a frame").function;
    if stack[..stack.len() - 1].iter().any(|fr| fr.function == f) || stack.len() > 16 {
        return;
    }
    if !functions.contains(&f) {
        functions.push(f);
    }
    for inst in ir::function_instructions(f) {
        if !ir::is_call(inst) {
            continue;
        }
        if let Some((bounds, width, signed)) = init_kind(inst) {
            if seen_inits.insert(inst) {
                loops.push(WorksharingLoop { frames: stack.clone(), init: inst, bounds, width, signed });
            }
            continue;
        }
        if let Some(frame) = fork_or_direct_frame(inst) {
            stack.push(frame);
            walk(stack, loops, functions, seen_inits);
            stack.pop();
        }
    }
}
