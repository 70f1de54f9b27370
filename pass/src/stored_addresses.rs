//! Whether a kernel writes an address where the program sees it after the launch
//! (`#pragma omp target map(from: p) { p = data; }`, `node->next = other`): the offload stores
//! a device address, the kernel's host version (the `cpu` variant) the host address, and the
//! program reads back a different pointer (LLVM's `offload/test/api/omp_get_mapped_ptr.c`
//! compares it with `omp_get_mapped_ptr`).
//!
//! A store of a pointer into storage of the kernel's own frame stays invisible; anything else
//! (mapped data, reached through the kernel's parameters; globals; storage a pointer loaded from
//! memory points to) is taken as seen. Storage is proved local by following the destination
//! back to an `alloca`: through address arithmetic, through `alloca` slots whose every store
//! holds a local address (clang spills every parameter to such a slot before the optimiser runs,
//! which is where the pass looks), and through the parameters of functions whose every call
//! passes a local address (a constructor of an object on the kernel's stack).

use crate::fast_hash::HashSet;

use llvm_sys::core::{LLVMGetParamParent, LLVMGetTypeKind, LLVMIsNull};
use llvm_sys::{LLVMOpcode, LLVMTypeKind};

use crate::ir::{self, ValueRef};

/// Whether `i`, an instruction of a function the kernel reaches, stores an address into
/// storage the program can see after the launch. `roots` are the kernel's host versions: their
/// parameters bring the mapped data.
pub(crate) fn stores_visible_address(i: ValueRef, roots: &[ValueRef]) -> bool {
    if ir::opcode(i) != Some(LLVMOpcode::LLVMStore) || !is_address(ir::operand(i, 0)) {
        return false;
    }
    !Frame { roots, slots: HashSet::default() }.local(ir::operand(i, 1), 0)
}

/// A pointer, or a vector of them, that is not the null pointer (the same on every device).
fn is_address(v: ValueRef) -> bool {
    let kind = unsafe { LLVMGetTypeKind(ir::type_of(v)) };
    let pointer = match kind {
        LLVMTypeKind::LLVMPointerTypeKind => true,
        LLVMTypeKind::LLVMVectorTypeKind => unsafe {
            LLVMGetTypeKind(llvm_sys::core::LLVMGetElementType(ir::type_of(v))) == LLVMTypeKind::LLVMPointerTypeKind
        },
        _ => false,
    };
    pointer && !(ir::is_constant(v) && unsafe { LLVMIsNull(v) } != 0)
}

/// How deep the proof follows slots and calls before it takes storage as seen.
const DEPTH: u32 = 8;

struct Frame<'a> {
    roots: &'a [ValueRef],
    /// Slots being proved: a slot met again inside its own proof adds nothing new (`p = p + 1`).
    slots: HashSet<ValueRef>,
}

impl Frame<'_> {
    /// Whether the pointer `p` points into the frame of the function it is in (or of a caller,
    /// for every call).
    fn local(&mut self, mut p: ValueRef, depth: u32) -> bool {
        if depth > DEPTH {
            return false;
        }
        loop {
            match ir::opcode(p) {
                Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast) => p = ir::operand(p, 0),
                Some(LLVMOpcode::LLVMAlloca) => return true,
                Some(LLVMOpcode::LLVMLoad) => return self.slot_holds_local(ir::operand(p, 0), depth + 1),
                Some(LLVMOpcode::LLVMSelect) => {
                    return self.local(ir::operand(p, 1), depth + 1) && self.local(ir::operand(p, 2), depth + 1)
                }
                Some(LLVMOpcode::LLVMPHI) => return (0..ir::num_operands(p)).all(|k| self.local(ir::operand(p, k), depth + 1)),
                _ if ir::is_argument(p) => return self.parameter_local(p, depth + 1),
                _ => return false,
            }
        }
    }

    /// Whether the pointer loaded from `slot` is local: `slot` is an `alloca` used only by loads
    /// and by stores into it, each of a local address.
    fn slot_holds_local(&mut self, slot: ValueRef, depth: u32) -> bool {
        if ir::opcode(slot) != Some(LLVMOpcode::LLVMAlloca) {
            return false;
        }
        if !self.slots.insert(slot) {
            return true;
        }
        ir::users(slot).into_iter().all(|u| match ir::opcode(u) {
            Some(LLVMOpcode::LLVMLoad) => true,
            Some(LLVMOpcode::LLVMStore) => ir::operand(u, 1) == slot && self.local(ir::operand(u, 0), depth),
            // lifetime markers and debug records take the slot's address and change nothing
            Some(LLVMOpcode::LLVMCall) => ir::callee_name(u).starts_with("llvm.lifetime") || ir::callee_name(u).starts_with("llvm.dbg"),
            _ => false,
        })
    }

    /// Whether parameter `arg` is local: its function is not a kernel's host version, is only
    /// called (its address is not taken) and every call passes a local address.
    fn parameter_local(&mut self, arg: ValueRef, depth: u32) -> bool {
        let f = unsafe { LLVMGetParamParent(arg) };
        let Some(k) = ir::param_index(arg) else { return false };
        if self.roots.contains(&f) {
            return false;
        }
        let uses = ir::users(f);
        !uses.is_empty()
            && uses
                .into_iter()
                .all(|u| ir::is_call(u) && ir::callee(u) == f && ir::call_args(u).get(k).is_some_and(|a| self.local(*a, depth)))
    }
}
