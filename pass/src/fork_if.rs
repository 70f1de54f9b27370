//! flang's `if()` clause on a parallel construct: flang-19 lowers `!$omp parallel if(c)` to one
//! call, `__kmpc_fork_call_if(loc, argc, microtask, c, args)`, which libomp implements as
//! `c ? __kmpc_fork_call(loc, argc, microtask, args) : <the microtask run serialized>`. The pass
//! writes that branch out — a `__kmpc_fork_call` where `c` holds, the original call (now with `c`
//! false, the program's own serial path) where it does not — so that the fork is a region like
//! clang's form of the clause, whose `if` branch stays around it. The same code runs either way;
//! the remaining call is marked (`!ompadapt.region`) so that a second run of the pass leaves it.
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::*;

use crate::entry_points::name::FORK_CALL;
use crate::ir::{self, ValueRef};

pub use crate::entry_points::name::FORK_CALL_IF;

/// Writes out the branch of every unmarked `__kmpc_fork_call_if` of `module`; returns how many.
pub fn split_forks_if(module: &Module<'_>) -> usize {
    let calls: Vec<ValueRef> = module
        .get_functions()
        .flat_map(|f| ir::function_instructions(f.as_value_ref()))
        .filter(|i| ir::is_call(*i) && ir::callee_name(*i) == FORK_CALL_IF && !crate::region_code::is_adaptive(*i))
        .collect();
    for &call in &calls {
        if ir::call_args(call).len() == 5 {
            split(module, call);
            ir::invalidate();
        }
    }
    calls.len()
}

/// `block: ... fork_if(...) rest` becomes `block: ... br c, fork, as_written; fork: fork_call(...);
/// as_written: fork_if(...); join: rest`.
fn split(module: &Module<'_>, call: ValueRef) {
    let m = module.as_mut_ptr();
    let args = ir::call_args(call);
    let (loc, argc, microtask, cond, captured) = (args[0], args[1], args[2], args[3], args[4]);
    unsafe {
        let c = LLVMGetModuleContext(m);
        let b = LLVMCreateBuilderInContext(c);
        let block = ir::block_of(call);
        let function = ir::function_of(call);
        let next = LLVMGetNextBasicBlock(block);
        let add = |name: &std::ffi::CStr| {
            if next.is_null() {
                LLVMAppendBasicBlockInContext(c, function, name.as_ptr())
            } else {
                LLVMInsertBasicBlockInContext(c, next, name.as_ptr())
            }
        };
        let (fork_block, as_written, join) = (add(c"ompadapt.fork_if.true"), add(c"ompadapt.fork_if.false"), add(c"ompadapt.fork_if.join"));
        // what follows the call goes to `join`, the successors' phis with it
        crate::cfg::move_rest_of_block(call, join);
        let debug = llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(call);
        LLVMInstructionRemoveFromParent(call);
        LLVMPositionBuilderAtEnd(b, as_written);
        LLVMInsertIntoBuilder(b, call);
        LLVMBuildBr(b, join);
        mark(call);
        LLVMPositionBuilderAtEnd(b, block);
        LLVMSetCurrentDebugLocation2(b, debug);
        let zero = LLVMConstInt(LLVMTypeOf(cond), 0, 0);
        let holds = LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntNE, cond, zero, c"ompadapt.if".as_ptr());
        LLVMBuildCondBr(b, holds, fork_block, as_written);
        LLVMPositionBuilderAtEnd(b, fork_block);
        let (fork, fork_type) = fork_call(m);
        // libomp passes the captured values only where there are some
        let mut fork_args = vec![loc, argc, microtask];
        if LLVMIsNull(captured) == 0 {
            fork_args.push(captured);
        }
        LLVMBuildCall2(b, fork_type, fork, fork_args.as_mut_ptr(), fork_args.len() as u32, c"".as_ptr());
        LLVMBuildBr(b, join);
        LLVMDisposeBuilder(b);
    }
}

/// `__kmpc_fork_call` of module `m` (declared where it is not) and its type.
fn fork_call(m: llvm_sys::prelude::LLVMModuleRef) -> (ValueRef, llvm_sys::prelude::LLVMTypeRef) {
    unsafe {
        let c = LLVMGetModuleContext(m);
        let ptr = LLVMPointerTypeInContext(c, 0);
        let mut params = [ptr, LLVMInt32TypeInContext(c), ptr];
        let ty = LLVMFunctionType(LLVMVoidTypeInContext(c), params.as_mut_ptr(), 3, 1);
        let name = std::ffi::CString::new(FORK_CALL).expect("no NUL");
        let mut f = LLVMGetNamedFunction(m, name.as_ptr());
        if f.is_null() {
            f = LLVMAddFunction(m, name.as_ptr(), ty);
        }
        (f, ty)
    }
}

/// Marks the remaining `__kmpc_fork_call_if` as the pass's.
fn mark(call: ValueRef) {
    unsafe {
        let c = LLVMGetTypeContext(LLVMTypeOf(call));
        let kind =
            LLVMGetMDKindIDInContext(c, crate::region_code::REGION_KIND.as_ptr().cast(), crate::region_code::REGION_KIND.len() as u32);
        let mut text = [LLVMMDStringInContext2(c, c"if(false)".as_ptr(), 9)];
        LLVMSetMetadata(call, kind, LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, text.as_mut_ptr(), 1)));
    }
}
