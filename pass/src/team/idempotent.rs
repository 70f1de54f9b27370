//! Idempotent stores: every thread of the team storing one value into one shared variable
//! outside worksharing (`t0 = 0;` before a wavefront loop, ParRes p2p) leaves the same as one
//! thread storing it, so a smaller team changes nothing. [`same_in_every_thread`] accepts such
//! a store where
//!
//! - it is a plain store (not volatile, not atomic) in a parallel region's microtask;
//! - its variable is a global, or a local of the function that starts the region, captured by
//!   reference (clang: a parameter of the microtask, kept in a stack slot at -O0; flang: a field
//!   of the structure its fork passes), at a constant offset, whose address goes nowhere but to
//!   loads and stores of it (and, for the local, to the one fork): no other pointer reaches it;
//! - no other store of the region (the microtask and every function it runs, divided code
//!   included) writes that variable;
//! - the stored value is the same in every thread: a constant, an argument the fork passes
//!   (every thread gets the same), a value read from a variable of that kind that the region
//!   does not write or from the thread's own stack slot that only ever holds such values, and
//!   what arithmetic computes from these (no call, no phi: which way a thread came may differ).
// Raw `LLVMValueRef`s passed around here are values of the module being analysed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use crate::fast_hash::HashSet;

use llvm_sys::core::{LLVMGetOrdering, LLVMGetVolatile};
use llvm_sys::{LLVMAtomicOrdering, LLVMOpcode};

use crate::entry_points::{lookup, name::FORK_TEAMS, Role};
use crate::ir::{self, ValueRef};

/// A variable the region may share: a global, or a captured local (the microtask's parameter,
/// and for flang the field of the structure it points at).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variable {
    Global(ValueRef),
    Captured { param: ValueRef, field: Option<i64> },
}

/// Whether `store`, run by every thread of the team, stores the same value into the same
/// variable in every thread, and nothing else in the region writes that variable.
pub fn same_in_every_thread(store: ValueRef) -> bool {
    if ir::opcode(store) != Some(LLVMOpcode::LLVMStore) || unsafe { LLVMGetVolatile(store) } != 0 {
        return false;
    }
    if unsafe { LLVMGetOrdering(store) } != LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic {
        return false;
    }
    let f = ir::function_of(store);
    if !is_microtask(f) {
        return false;
    }
    let region = ir::reachable_functions(vec![f]);
    let Some(variable) = variable_of(ir::operand(store, 1), f) else { return false };
    writes(variable, &region) == Some(vec![store]) && invariant(ir::operand(store, 0), f, &region, &mut HashSet::default())
}

/// Whether `f` is only ever the microtask of `__kmpc_fork_call` (not of a league of teams),
/// named once at each fork.
fn is_microtask(f: ValueRef) -> bool {
    let forks = ir::users(f);
    !forks.is_empty() && forks.into_iter().all(|u| fork_of(u, f).is_some())
}

/// The arguments of fork `u` after its microtask `f` (what the microtask's parameters from
/// index 2 get), if `u` is a fork of `f` that names it once.
fn fork_of(u: ValueRef, f: ValueRef) -> Option<Vec<ValueRef>> {
    if !ir::is_call(u) || ir::callee_name(u) == FORK_TEAMS {
        return None;
    }
    let Some(Role::Fork { microtask }) = lookup(&ir::callee_name(u)).map(|e| e.role) else { return None };
    let args = ir::call_args(u);
    let named = args.iter().filter(|a| ir::strip_to_global(**a) == f).count();
    (args.get(microtask as usize).map(|m| ir::strip_to_global(*m)) == Some(f) && named == 1)
        .then(|| args[microtask as usize + 1..].to_vec())
}

/// `address` without casts and element addresses at constant offsets.
fn base(address: ValueRef) -> Option<ValueRef> {
    let mut v = address;
    for _ in 0..16 {
        let v2 = ir::strip_to_global(v);
        if v2 != v {
            v = v2;
            continue;
        }
        match ir::opcode(v) {
            Some(LLVMOpcode::LLVMGetElementPtr) => {
                if (1..ir::num_operands(v)).any(|k| ir::const_int(ir::operand(v, k)).is_none()) {
                    return None;
                }
                v = ir::operand(v, 0);
            }
            Some(LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast) => v = ir::operand(v, 0),
            _ => return Some(v),
        }
    }
    None
}

/// The variable `address` (in microtask `f`) points into.
fn variable_of(address: ValueRef, f: ValueRef) -> Option<Variable> {
    let b = base(address)?;
    if ir::is_global_variable(b) {
        return Some(Variable::Global(b));
    }
    let pointer = if ir::opcode(b) == Some(LLVMOpcode::LLVMLoad) { ir::operand(b, 0) } else { b };
    // flang: loaded from a field of the structure the fork passes
    if let Some((param, field)) = struct_field(pointer) {
        return (ir::function_of(param) == f && ir::param_index(param)? >= 2).then_some(Variable::Captured { param, field: Some(field) });
    }
    // clang: the parameter, or at -O0 the stack slot that only ever holds it
    let param = if ir::is_argument(b) { b } else { slot_of_param(pointer)? };
    (ir::function_of(param) == f && ir::param_index(param)? >= 2).then_some(Variable::Captured { param, field: None })
}

/// `(param, field)` where `address` is `getelementptr %struct, ptr %param, 0, field`.
fn struct_field(address: ValueRef) -> Option<(ValueRef, i64)> {
    if ir::opcode(address) != Some(LLVMOpcode::LLVMGetElementPtr) || ir::num_operands(address) != 3 {
        return None;
    }
    let p = ir::operand(address, 0);
    (ir::is_argument(p) && ir::const_int(ir::operand(address, 1)) == Some(0)).then_some((p, ir::const_int(ir::operand(address, 2))?))
}

/// The parameter a stack slot only ever holds (stored once, otherwise only read).
fn slot_of_param(slot: ValueRef) -> Option<ValueRef> {
    if !ir::is_alloca(slot) {
        return None;
    }
    let mut param = None;
    for u in ir::users(slot) {
        match ir::opcode(u)? {
            LLVMOpcode::LLVMLoad => {}
            LLVMOpcode::LLVMStore if ir::operand(u, 1) == slot && ir::is_argument(ir::operand(u, 0)) && param.is_none() => {
                param = Some(ir::operand(u, 0))
            }
            LLVMOpcode::LLVMCall if is_marker(u) => {}
            _ => return None,
        }
    }
    param
}

fn is_marker(call: ValueRef) -> bool {
    let n = ir::callee_name(call);
    n.starts_with("llvm.lifetime.") || n.starts_with("llvm.dbg.")
}

/// The stores into `variable` in the functions of `region`, where its address goes nowhere but
/// to loads and stores of it; None where it goes elsewhere (a call, memory, an atomic update).
fn writes(variable: Variable, region: &HashSet<ValueRef>) -> Option<Vec<ValueRef>> {
    let mut stores = Vec::new();
    let addresses = match variable {
        Variable::Global(g) => vec![g],
        Variable::Captured { param, field } => {
            if !caller_keeps_to_itself(param, field) {
                return None;
            }
            captured_addresses(param, field)?
        }
    };
    for a in addresses {
        accesses(a, &mut stores, 0)?;
    }
    stores.retain(|s| region.contains(&ir::function_of(*s)));
    Some(stores)
}

/// Collects into `stores` the stores through `address` (and addresses computed from it at
/// constant offsets); None if it is used otherwise.
fn accesses(address: ValueRef, stores: &mut Vec<ValueRef>, depth: u32) -> Option<()> {
    if depth > 8 {
        return None;
    }
    for u in ir::users(address) {
        match ir::opcode(u) {
            Some(LLVMOpcode::LLVMLoad) => {}
            Some(LLVMOpcode::LLVMStore) if ir::operand(u, 1) == address && ir::operand(u, 0) != address => stores.push(u),
            // clang at -O0 keeps a parameter in a slot that holds nothing else (its loads are
            // addresses of their own)
            Some(LLVMOpcode::LLVMStore) if ir::is_argument(address) && slot_of_param(ir::operand(u, 1)) == Some(address) => {}
            Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast)
                if ir::operand(u, 0) == address =>
            {
                base(u)?;
                accesses(u, stores, depth + 1)?
            }
            // a constant expression (an element of a global at a constant offset; not another
            // global whose initializer holds the address)
            None if is_constant_address(u, address) => accesses(u, stores, depth + 1)?,
            _ => return None,
        }
    }
    Some(())
}

/// Whether `u` is a constant expression computing an address from `address` (a cast, or an
/// element at a constant offset).
fn is_constant_address(u: ValueRef, address: ValueRef) -> bool {
    use llvm_sys::core::{LLVMGetConstOpcode, LLVMIsAConstantExpr};
    let expr = unsafe { !LLVMIsAConstantExpr(u).is_null() };
    let computes = expr
        && matches!(
            unsafe { LLVMGetConstOpcode(u) },
            LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast
        );
    computes && ir::operand(u, 0) == address && (1..ir::num_operands(u)).all(|k| ir::const_int(ir::operand(u, k)).is_some())
}

/// The addresses of a captured variable in the microtask: the parameter and the pointers
/// loaded from the stack slot that holds it (clang), or the pointers loaded from the field
/// (flang); None if the parameter, its slot or the field goes elsewhere.
fn captured_addresses(param: ValueRef, field: Option<i64>) -> Option<Vec<ValueRef>> {
    let mut out = Vec::new();
    for u in ir::users(param) {
        match (field, ir::opcode(u)) {
            (None, Some(LLVMOpcode::LLVMStore)) if ir::operand(u, 0) == param && slot_of_param(ir::operand(u, 1)) == Some(param) => {
                let loads = ir::users(ir::operand(u, 1)).into_iter().filter(|l| ir::opcode(*l) == Some(LLVMOpcode::LLVMLoad));
                out.extend(loads);
            }
            (Some(j), Some(LLVMOpcode::LLVMGetElementPtr)) => match struct_field(u) {
                Some((_, k)) if k == j => {
                    for l in ir::users(u) {
                        (ir::opcode(l) == Some(LLVMOpcode::LLVMLoad)).then_some(())?;
                        out.push(l);
                    }
                }
                Some(_) => {}
                None => return None,
            },
            (None, _) if !out.contains(&param) => out.push(param),
            (None, _) => {}
            _ => return None,
        }
    }
    Some(out)
}

/// Whether, at every fork of the microtask, what `param` (and `field`) gets is the address of a
/// stack slot of the enclosing function that goes nowhere else but to loads and stores of it:
/// no pointer but the microtask's reaches it.
fn caller_keeps_to_itself(param: ValueRef, field: Option<i64>) -> bool {
    let f = ir::function_of(param);
    let Some(p) = ir::param_index(param) else { return false };
    ir::users(f).into_iter().all(|fork| {
        let Some(args) = fork_of(fork, f) else { return false };
        let Some(given) = p.checked_sub(2).and_then(|k| args.get(k).copied()) else { return false };
        if args.iter().filter(|a| **a == given).count() != 1 {
            return false;
        }
        match field {
            None => local_only_given(given, fork),
            Some(j) => ir::is_alloca(given) && structure_gives(given, j, fork),
        }
    })
}

/// Whether `slot` is a stack slot whose address goes only to loads, stores of it and `to`
/// (the fork, or the one store into the structure the fork passes).
fn local_only_given(slot: ValueRef, to: ValueRef) -> bool {
    let mut stores = Vec::new();
    ir::is_alloca(slot)
        && ir::users(slot).into_iter().all(|u| {
            u == to
                || match ir::opcode(u) {
                    Some(LLVMOpcode::LLVMCall) => is_marker(u),
                    _ => accesses_one(slot, u, &mut stores).is_some(),
                }
        })
}

/// `u`, a user of `address`, as [`accesses`] takes it.
fn accesses_one(address: ValueRef, u: ValueRef, stores: &mut Vec<ValueRef>) -> Option<()> {
    match ir::opcode(u)? {
        LLVMOpcode::LLVMLoad => Some(()),
        LLVMOpcode::LLVMStore if ir::operand(u, 1) == address && ir::operand(u, 0) != address => Some(()),
        LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast => {
            base(u)?;
            accesses(u, stores, 1)
        }
        _ => None,
    }
}

/// Whether the structure `s` a fork passes gives its `field` only the address of a local that
/// goes nowhere else, and goes only to that fork and to its fields' addresses.
fn structure_gives(s: ValueRef, field: i64, fork: ValueRef) -> bool {
    ir::users(s).into_iter().all(|u| {
        if u == fork {
            return true;
        }
        if ir::opcode(u) != Some(LLVMOpcode::LLVMGetElementPtr) || ir::num_operands(u) != 3 {
            return false;
        }
        if ir::const_int(ir::operand(u, 2)) != Some(field) {
            return ir::const_int(ir::operand(u, 2)).is_some();
        }
        ir::users(u)
            .into_iter()
            .all(|st| ir::opcode(st) == Some(LLVMOpcode::LLVMStore) && ir::operand(st, 1) == u && local_only_given(ir::operand(st, 0), st))
    })
}

/// Intrinsics that compute a value from their arguments alone.
const ARITHMETIC: [&str; 16] = [
    "llvm.fmuladd.",
    "llvm.fma.",
    "llvm.fabs.",
    "llvm.sqrt.",
    "llvm.copysign.",
    "llvm.floor.",
    "llvm.ceil.",
    "llvm.trunc.",
    "llvm.round.",
    "llvm.minnum.",
    "llvm.maxnum.",
    "llvm.smin.",
    "llvm.smax.",
    "llvm.umin.",
    "llvm.umax.",
    "llvm.abs.",
];

/// Whether value `v` (in microtask `f`) is the same in every thread of the team.
fn invariant(v: ValueRef, f: ValueRef, region: &HashSet<ValueRef>, seen: &mut HashSet<ValueRef>) -> bool {
    if ir::is_constant(v) {
        // (an undefined value may differ at each use; a global's address is the same everywhere)
        return unsafe { llvm_sys::core::LLVMIsUndef(v) } == 0 && unsafe { llvm_sys::core::LLVMIsPoison(v) } == 0;
    }
    if ir::is_argument(v) {
        return ir::function_of(v) == f && ir::param_index(v).is_some_and(|i| i >= 2);
    }
    if !ir::is_instruction(v) || ir::function_of(v) != f || seen.len() > 64 || !seen.insert(v) {
        return false;
    }
    use LLVMOpcode::*;
    match ir::opcode(v) {
        Some(LLVMLoad) => invariant_load(v, f, region, seen),
        Some(
            LLVMAdd | LLVMFAdd | LLVMSub | LLVMFSub | LLVMMul | LLVMFMul | LLVMUDiv | LLVMSDiv | LLVMFDiv | LLVMURem | LLVMSRem | LLVMFRem
            | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor | LLVMFNeg | LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI
            | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP | LLVMFPTrunc | LLVMFPExt | LLVMBitCast | LLVMPtrToInt | LLVMIntToPtr | LLVMICmp
            | LLVMFCmp | LLVMSelect | LLVMExtractValue | LLVMInsertValue | LLVMGetElementPtr,
        ) => (0..ir::num_operands(v)).all(|k| invariant(ir::operand(v, k), f, region, seen)),
        // arithmetic intrinsics (clang's contraction `fmuladd`, `fabs`, min/max)
        Some(LLVMCall) if ARITHMETIC.iter().any(|p| ir::callee_name(v).starts_with(p)) => {
            ir::call_args(v).into_iter().all(|a| invariant(a, f, region, seen))
        }
        _ => false,
    }
}

/// Whether load `l` reads a value the same in every thread: from a variable the region does
/// not write, or from a stack slot of the microtask that only ever holds such values.
fn invariant_load(l: ValueRef, f: ValueRef, region: &HashSet<ValueRef>, seen: &mut HashSet<ValueRef>) -> bool {
    let address = ir::operand(l, 0);
    if ir::is_alloca(address) {
        let slot = address;
        return ir::users(slot).into_iter().all(|u| match ir::opcode(u) {
            Some(LLVMOpcode::LLVMLoad) => true,
            Some(LLVMOpcode::LLVMStore) => ir::operand(u, 1) == slot && invariant(ir::operand(u, 0), f, region, seen),
            Some(LLVMOpcode::LLVMCall) => is_marker(u),
            _ => false,
        });
    }
    variable_of(address, f).is_some_and(|var| writes(var, region).is_some_and(|w| w.is_empty()))
}
