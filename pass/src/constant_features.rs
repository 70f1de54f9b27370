//! The automatic features of a host region that are constants (the static features of its code,
//! a trip count whose bounds are constants) move from the region's code into its table (the
//! `struct __ompadapt_team_region` that `__ompadapt_v6_enter_team` reads, see
//! [`crate::host_regions`]), which the support function merges with the features the region
//! still stores. A constant stored into the features on the stack each execution costs the
//! program nothing measurable, but the compiler a lot: in PolyBench's jacobi-2d, its 18 constant
//! stores were 7.2 M of the 27 M instructions the pass added to the compilation (the optimiser
//! and the code generator keep each store into an array whose address escapes to a call).
//!
//! Runs after [`crate::auto_features`] has replaced the regions' markers by their features: a
//! feature is folded where its slot of the array is written once, by a store of a constant
//! through a `getelementptr` of constant index, and nothing else reads or writes that slot.
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;
use ompadapt_abi::markers::SUPPORT_ENTER_TEAM;
use ompadapt_abi::MAX_FEATURES;

use crate::ir::{self, ValueRef};

/// The fields of the region's table (`struct __ompadapt_team_region` of the lowering header:
/// slot, constants, dynamic, nvariants, teams) this fills in: the constant features, and the
/// mask of those the region's code stores (bit i: feature i).
const TABLE_CONSTANTS: u32 = 1;
const TABLE_DYNAMIC: u32 = 2;

/// Folds the constant features of every host region of `module` into its table; returns how
/// many features were folded.
pub fn fold_constant_features(module: &Module<'_>) -> usize {
    let calls: Vec<ValueRef> = module
        .get_functions()
        .flat_map(|f| ir::function_instructions(f.as_value_ref()))
        .filter(|i| ir::is_call(*i) && ir::callee_name(*i) == SUPPORT_ENTER_TEAM)
        .collect();
    let folded = calls.into_iter().map(fold_region).sum();
    if folded > 0 {
        ir::invalidate();
    }
    folded
}

/// One feature slot's single constant store and the address it stores through.
struct ConstantSlot {
    index: usize,
    store: ValueRef,
    address: ValueRef,
}

fn fold_region(enter: ValueRef) -> usize {
    let args = ir::call_args(enter);
    let (table, features) = (args[0], args[2]);
    let Some(n) = ir::const_int(args[3]).filter(|n| (1..=MAX_FEATURES as i64).contains(n)).map(|n| n as usize) else {
        return 0;
    };
    if !ir::is_global_variable(table) || ir::opcode(features) != Some(LLVMOpcode::LLVMAlloca) {
        return 0;
    }
    let slots = constant_slots(features, n);
    if slots.is_empty() {
        return 0;
    }
    unsafe {
        let c = LLVMGetModuleContext(LLVMGetGlobalParent(table));
        let double = LLVMDoubleTypeInContext(c);
        let mut values: Vec<ValueRef> = vec![LLVMConstReal(double, 0.0); n];
        let mut dynamic: u32 = (1u32 << n) - 1; // (n <= MAX_FEATURES, 16)
        for s in &slots {
            values[s.index] = LLVMGetOperand(s.store, 0);
            dynamic &= !(1u32 << s.index);
        }
        let m = LLVMGetGlobalParent(table);
        let name = format!("{}.constants", ir::name(table));
        let constants = crate::region_code::constant_global(m, &name, LLVMConstArray2(double, values.as_mut_ptr(), values.len() as u64));
        let init = LLVMGetInitializer(table);
        let mut fields: Vec<ValueRef> = (0..LLVMGetNumOperands(init) as u32).map(|i| LLVMGetOperand(init, i)).collect();
        fields[TABLE_CONSTANTS as usize] = constants;
        fields[TABLE_DYNAMIC as usize] = LLVMConstInt(LLVMInt32TypeInContext(c), dynamic as u64, 0);
        LLVMSetInitializer(table, LLVMConstStructInContext(c, fields.as_mut_ptr(), fields.len() as u32, 0));
        for s in &slots {
            LLVMInstructionEraseFromParent(s.store);
            if ir::users(s.address).is_empty() {
                LLVMInstructionEraseFromParent(s.address);
            }
        }
    }
    slots.len()
}

/// The slots below `n` of the features array `features` that one constant store writes and
/// nothing else touches.
fn constant_slots(features: ValueRef, n: usize) -> Vec<ConstantSlot> {
    // per slot: its stores of a constant, and whether anything else reaches it
    let mut stores: Vec<Vec<(ValueRef, ValueRef)>> = vec![Vec::new(); n];
    let mut other = vec![false; n];
    for user in ir::users(features) {
        match ir::opcode(user) {
            Some(LLVMOpcode::LLVMGetElementPtr) => {}
            // the support call, lifetime markers: they read the array, not a slot
            Some(LLVMOpcode::LLVMCall) => continue,
            // an unknown use could reach any slot
            _ => return Vec::new(),
        }
        let Some(index) = slot_index(user) else { return Vec::new() };
        if index >= n {
            continue;
        }
        for use_ in ir::users(user) {
            let is_constant_store = ir::opcode(use_) == Some(LLVMOpcode::LLVMStore)
                && unsafe { LLVMGetOperand(use_, 1) } == user
                && unsafe { !LLVMIsAConstantFP(LLVMGetOperand(use_, 0)).is_null() };
            if is_constant_store {
                stores[index].push((use_, user));
            } else {
                other[index] = true;
            }
        }
    }
    stores
        .into_iter()
        .enumerate()
        .filter(|(i, s)| s.len() == 1 && !other[*i])
        .map(|(index, s)| ConstantSlot { index, store: s[0].0, address: s[0].1 })
        .collect()
}

/// The element a `getelementptr double, ptr %features, i64 K` addresses: K, where the GEP is
/// of doubles with one constant index.
fn slot_index(gep: ValueRef) -> Option<usize> {
    unsafe {
        if LLVMGetNumOperands(gep) != 2 || LLVMGetTypeKind(LLVMGetGEPSourceElementType(gep)) != llvm_sys::LLVMTypeKind::LLVMDoubleTypeKind {
            return None;
        }
    }
    ir::const_int(unsafe { LLVMGetOperand(gep, 1) }).filter(|k| *k >= 0).map(|k| k as usize)
}
