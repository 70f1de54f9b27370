//! Small control-flow helpers the LLVM C API lacks: successors, block dominance, and editing
//! the incoming blocks of phis (the C API can add incoming pairs but not change or remove them,
//! so a phi is rebuilt).

use std::collections::VecDeque;

use crate::fast_hash::HashSet;

use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, BasicValue, BasicValueEnum, FunctionValue, InstructionOpcode, PhiValue};
use llvm_sys::core::{LLVMGetNumSuccessors, LLVMGetSuccessor};

/// Successors of `block` in terminator order (empty when it has no terminator yet).
pub fn successors<'ctx>(block: BasicBlock<'ctx>) -> Vec<BasicBlock<'ctx>> {
    let Some(term) = block.get_terminator() else {
        return Vec::new();
    };
    let raw = term.as_value_ref();
    unsafe { (0..LLVMGetNumSuccessors(raw)).filter_map(|i| BasicBlock::new(LLVMGetSuccessor(raw, i))).collect() }
}

/// Whether every path from the entry of `function` to `target` goes through `dom`
/// (`dom` dominates `target`; a block dominates itself). Blocks unreachable from the entry are
/// dominated by everything.
pub fn dominates(function: FunctionValue<'_>, dom: BasicBlock<'_>, target: BasicBlock<'_>) -> bool {
    if dom == target {
        return true;
    }
    let Some(entry) = function.get_first_basic_block() else {
        return true;
    };
    if entry == dom {
        return true;
    }
    // Reach `target` from the entry without passing through `dom`?
    let mut seen = HashSet::from_iter([entry.as_mut_ptr()]);
    let mut queue = VecDeque::from([entry]);
    while let Some(bb) = queue.pop_front() {
        if bb == target {
            return false;
        }
        for succ in successors(bb) {
            if succ != dom && seen.insert(succ.as_mut_ptr()) {
                queue.push_back(succ);
            }
        }
    }
    true
}

/// The phis at the top of `block`.
pub fn phis<'ctx>(block: BasicBlock<'ctx>) -> Vec<PhiValue<'ctx>> {
    block.get_instructions().take_while(|i| i.get_opcode() == InstructionOpcode::Phi).filter_map(|i| PhiValue::try_from(i).ok()).collect()
}

/// In the phis of `block`, incoming edges from `from` now come from `to`.
pub fn retarget_phi_incoming<'ctx>(block: BasicBlock<'ctx>, from: BasicBlock<'ctx>, to: BasicBlock<'ctx>) {
    for phi in phis(block) {
        if phi.get_incomings().any(|(_, bb)| bb == from) {
            rebuild_phi(phi, |v, bb| Some((v, if bb == from { to } else { bb })));
        }
    }
}

/// Moves the instructions after `inst` (its block's rest, terminator included) to the end of the
/// empty block `to`, keeping their own locations, and makes the successors' phis that came from
/// `inst`'s block come from `to`: `inst`'s block is left without a terminator.
pub fn move_rest_of_block(inst: llvm_sys::prelude::LLVMValueRef, to: llvm_sys::prelude::LLVMBasicBlockRef) {
    use llvm_sys::core::*;
    // SAFETY: `inst` is an instruction of a block and `to` a block of the same function.
    unsafe {
        let from = LLVMGetInstructionParent(inst);
        let mut rest = Vec::new();
        let mut cursor = LLVMGetNextInstruction(inst);
        while !cursor.is_null() {
            rest.push(cursor);
            cursor = LLVMGetNextInstruction(cursor);
        }
        let b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(inst)));
        for i in rest {
            LLVMInstructionRemoveFromParent(i);
            LLVMPositionBuilderAtEnd(b, to);
            LLVMInsertIntoBuilder(b, i);
        }
        LLVMDisposeBuilder(b);
        if let (Some(from), Some(to)) = (BasicBlock::new(from), BasicBlock::new(to)) {
            for succ in successors(to) {
                retarget_phi_incoming(succ, from, to);
            }
        }
    }
}

/// Removes the incoming edges from `pred` in the phis of `block`.
pub fn remove_phi_incoming<'ctx>(block: BasicBlock<'ctx>, pred: BasicBlock<'ctx>) {
    for phi in phis(block) {
        if phi.get_incomings().any(|(_, bb)| bb == pred) {
            rebuild_phi(phi, |v, bb| (bb != pred).then_some((v, bb)));
        }
    }
}

/// Replaces `phi` by a phi whose incoming pairs are those of `phi` mapped through `edit`
/// (`None` drops a pair); the new phi takes over the name, debug location and uses.
fn rebuild_phi<'ctx>(
    phi: PhiValue<'ctx>,
    edit: impl Fn(BasicValueEnum<'ctx>, BasicBlock<'ctx>) -> Option<(BasicValueEnum<'ctx>, BasicBlock<'ctx>)>,
) {
    let old = phi.as_instruction();
    let name = phi.get_name().to_string_lossy().into_owned();
    let incoming: Vec<_> = phi.get_incomings().filter_map(|(v, bb)| edit(v, bb)).collect();
    let ty = phi.as_basic_value().get_type();
    let context = old.get_parent().expect("a phi is in a block").get_context();
    let builder = context.create_builder();
    builder.position_before(&old);
    let new = builder.build_phi(ty, "").expect("builder is positioned");
    let pairs: Vec<(&dyn BasicValue<'ctx>, BasicBlock<'ctx>)> = incoming.iter().map(|(v, bb)| (v as &dyn BasicValue<'ctx>, *bb)).collect();
    new.add_incoming(&pairs);
    new.as_instruction().set_debug_location(old.get_debug_location());
    old.replace_all_uses_with(&new.as_instruction());
    old.erase_from_basic_block();
    if !name.is_empty() {
        let _ = new.as_instruction().set_name(&name);
    }
}
