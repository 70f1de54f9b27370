//! The automatic features of a host region leave the features array on the stack: those that
//! are constants (the static features of its code, a trip count whose bounds are constants) go
//! into the region's table (the `struct __ompadapt_team_region` that
//! `__ompadapt_v6_enter_team` reads, see [`crate::host_regions`]), and those that change (trip
//! counts) become arguments of that call. The support function puts them together again. Each
//! store into an array whose address escapes to a call is kept by the optimiser and the code
//! generator, and costs the compiler far more than the program: in PolyBench's jacobi-2d, its 18
//! constant stores were 7.2 M of the 27 M instructions the pass added to the compilation.
//!
//! Runs after [`crate::auto_features`] has replaced the regions' markers by their features. A
//! feature is a constant of the table where its slot of the array is written once, by a store
//! of a constant through a `getelementptr` of constant index, and nothing else reads or writes
//! that slot. The others become arguments where every slot is written once, in the call's block
//! before it; else they stay in the array, which the call still reads.
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::debuginfo::{LLVMInstructionGetDebugLoc, LLVMInstructionSetDebugLoc};
use llvm_sys::LLVMOpcode;
use ompadapt_abi::markers::SUPPORT_ENTER_TEAM;
use ompadapt_abi::MAX_FEATURES;

use crate::ir::{self, ValueRef};

/// The fields of the region's table (`struct __ompadapt_team_region` of the lowering header:
/// slot, constants, dynamic, nvariants, teams) this fills in: the constant features, and the
/// mask of those the region's code stores (bit i: feature i).
const TABLE_CONSTANTS: u32 = 1;
const TABLE_DYNAMIC: u32 = 2;

/// Moves the features of every host region of `module` into its table and its call; returns
/// how many were moved.
pub fn move_features(module: &Module<'_>) -> usize {
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

/// One feature slot's single store and the address it stores through.
#[derive(Clone, Copy)]
struct Slot {
    store: ValueRef,
    address: ValueRef,
}

impl Slot {
    fn value(&self) -> ValueRef {
        unsafe { LLVMGetOperand(self.store, 0) }
    }
    fn is_constant(&self) -> bool {
        unsafe { !LLVMIsAConstantFP(self.value()).is_null() }
    }
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
    let Some(slots) = single_stores(features, n) else { return 0 };
    // every slot written once, before the call in its block: the values become its arguments
    let by_value = slots.iter().all(|s| s.is_some_and(|s| precedes_in_block(s.store, enter)));
    let moved: Vec<(usize, Slot)> =
        slots.iter().enumerate().filter_map(|(i, s)| s.filter(|s| by_value || s.is_constant()).map(|s| (i, s))).collect();
    if moved.is_empty() {
        return 0;
    }
    unsafe {
        let c = LLVMGetModuleContext(LLVMGetGlobalParent(table));
        let double = LLVMDoubleTypeInContext(c);
        let mut constants: Vec<ValueRef> = vec![LLVMConstReal(double, 0.0); n];
        let mut dynamic: u32 = (1u32 << n) - 1; // (n <= MAX_FEATURES, 16)
        let mut passed = Vec::new();
        for (i, s) in &moved {
            if s.is_constant() {
                constants[*i] = s.value();
                dynamic &= !(1u32 << i);
            } else {
                passed.push(s.value());
            }
        }
        if dynamic != (1u32 << n) - 1 {
            let m = LLVMGetGlobalParent(table);
            let name = format!("{}.constants", ir::name(table));
            let array = crate::region_code::constant_global(m, &name, LLVMConstArray2(double, constants.as_mut_ptr(), n as u64));
            set_table_fields(table, array, dynamic);
        }
        for (_, s) in &moved {
            LLVMInstructionEraseFromParent(s.store);
            if ir::users(s.address).is_empty() {
                LLVMInstructionEraseFromParent(s.address);
            }
        }
        if by_value {
            call_with_features(enter, passed);
            if ir::users(features).is_empty() {
                LLVMInstructionEraseFromParent(features);
            }
        }
    }
    moved.len()
}

/// Sets the table's constant features and its mask of those the call passes.
fn set_table_fields(table: ValueRef, constants: ValueRef, dynamic: u32) {
    unsafe {
        let c = LLVMGetModuleContext(LLVMGetGlobalParent(table));
        let init = LLVMGetInitializer(table);
        let mut fields: Vec<ValueRef> = (0..LLVMGetNumOperands(init) as u32).map(|i| LLVMGetOperand(init, i)).collect();
        fields[TABLE_CONSTANTS as usize] = constants;
        fields[TABLE_DYNAMIC as usize] = LLVMConstInt(LLVMInt32TypeInContext(c), dynamic as u64, 0);
        LLVMSetInitializer(table, LLVMConstStructInContext(c, fields.as_mut_ptr(), fields.len() as u32, 0));
    }
}

/// Replaces `enter` by the same call with no features array (null) and the features that change
/// after its fixed arguments, in the order of their slots.
fn call_with_features(enter: ValueRef, features: Vec<ValueRef>) {
    unsafe {
        let mut args = ir::call_args(enter);
        args[2] = LLVMConstNull(LLVMTypeOf(args[2]));
        args.extend(features);
        let b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(enter)));
        LLVMPositionBuilderBefore(b, enter);
        let call = LLVMBuildCall2(
            b,
            LLVMGetCalledFunctionType(enter),
            LLVMGetCalledValue(enter),
            args.as_mut_ptr(),
            args.len() as u32,
            c"".as_ptr(),
        );
        LLVMInstructionSetDebugLoc(call, LLVMInstructionGetDebugLoc(enter));
        LLVMDisposeBuilder(b);
        LLVMInstructionEraseFromParent(enter);
    }
}

/// Whether `a` comes before `b` in the same block.
fn precedes_in_block(a: ValueRef, b: ValueRef) -> bool {
    ir::block_of(a) == ir::block_of(b) && ir::index_in_block(a) < ir::index_in_block(b)
}

/// For each slot below `n` of the features array `features`: its one store, where one store
/// writes it and nothing else reaches it (else none). None at all where something other than
/// such stores and calls uses the array.
fn single_stores(features: ValueRef, n: usize) -> Option<Vec<Option<Slot>>> {
    let mut stores: Vec<Vec<Slot>> = vec![Vec::new(); n];
    let mut other = vec![false; n];
    for user in ir::users(features) {
        match ir::opcode(user) {
            Some(LLVMOpcode::LLVMGetElementPtr) => {}
            // the support call, lifetime markers: they read the array, not a slot
            Some(LLVMOpcode::LLVMCall) => continue,
            // an unknown use could reach any slot
            _ => return None,
        }
        let index = slot_index(user)?;
        if index >= n {
            continue;
        }
        for use_ in ir::users(user) {
            if ir::opcode(use_) == Some(LLVMOpcode::LLVMStore) && unsafe { LLVMGetOperand(use_, 1) } == user {
                stores[index].push(Slot { store: use_, address: user });
            } else {
                other[index] = true;
            }
        }
    }
    Some(stores.into_iter().zip(other).map(|(s, other)| (s.len() == 1 && !other).then(|| s[0])).collect())
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
