//! Which memory belongs to one thread: what a store by every thread of a team may write without
//! the team's size showing. A pointer is the thread's own when it is derived (by address
//! arithmetic, casts, selects and phis of such pointers) from
//!
//! - a stack slot of the function (each thread runs its own frame: private and firstprivate
//!   copies, locals of the region's code),
//! - a parameter the caller passed such a pointer to,
//! - memory the thread just allocated (`malloc`, `operator new`, ...),
//! - a pointer loaded from a stack slot that only ever holds such pointers and whose address
//!   goes nowhere else.
//!
//! Anything else — the region's shared variables (the outlined function's captured pointers),
//! globals, pointers loaded from memory — may be another thread's or everyone's.
// Raw `LLVMValueRef`s passed around here are values of the module being analysed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use llvm_sys::LLVMOpcode;

use crate::ir::{self, ValueRef};
use crate::team::library;

/// The thread-own memory of one function, as the caller's arguments make it.
pub struct Privacy {
    function: ValueRef,
    /// Bit i: parameter i points at the thread's own memory.
    params: u64,
    /// Stack slots known to hold only thread-own pointers (or not).
    slots: RefCell<HashMap<ValueRef, bool>>,
}

impl Privacy {
    pub fn new(function: ValueRef, params: u64) -> Privacy {
        Privacy { function, params, slots: RefCell::new(HashMap::new()) }
    }

    /// Whether pointer `v` points at the thread's own memory.
    pub fn is_private(&self, v: ValueRef) -> bool {
        self.private(v, &mut HashSet::new())
    }

    /// The parameters of a callee that get thread-own pointers from call `call`.
    pub fn argument_mask(&self, call: ValueRef) -> u64 {
        ir::call_args(call).iter().take(64).enumerate().filter(|(_, a)| self.is_private(**a)).fold(0, |m, (i, _)| m | (1 << i))
    }

    /// Whether every pointer call `call` passes points at the thread's own memory.
    pub fn all_pointers_private(&self, call: ValueRef) -> bool {
        ir::call_args(call).iter().all(|a| !ir::is_pointer(*a) || self.is_private(*a))
    }

    fn private(&self, v: ValueRef, seen: &mut HashSet<ValueRef>) -> bool {
        if !seen.insert(v) {
            // a cycle of phis: private if every other way in is
            return true;
        }
        if ir::is_argument(v) {
            return ir::function_of(v) == self.function && ir::param_index(v).is_some_and(|i| i < 64 && self.params & (1 << i) != 0);
        }
        match ir::opcode(v) {
            Some(LLVMOpcode::LLVMAlloca) => ir::function_of(v) == self.function,
            Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast) => {
                self.private(ir::operand(v, 0), seen)
            }
            Some(LLVMOpcode::LLVMSelect) => self.private(ir::operand(v, 1), seen) && self.private(ir::operand(v, 2), seen),
            Some(LLVMOpcode::LLVMPHI) => (0..ir::num_operands(v)).all(|k| self.private(ir::operand(v, k), seen)),
            Some(LLVMOpcode::LLVMLoad) => {
                let slot = ir::operand(v, 0);
                ir::is_alloca(slot) && ir::function_of(slot) == self.function && self.slot_holds_private(slot)
            }
            Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) => {
                let f = ir::callee(v);
                !f.is_null() && ir::is_declaration(f) && library::effects(f).allocates
            }
            _ => false,
        }
    }

    /// Whether stack slot `slot` only ever holds thread-own pointers: every store into it stores
    /// one, and its address is only loaded from and stored to (lifetime markers aside).
    fn slot_holds_private(&self, slot: ValueRef) -> bool {
        if let Some(known) = self.slots.borrow().get(&slot) {
            return *known;
        }
        // Assumed not while deciding (a slot whose stores depend on its own loads).
        self.slots.borrow_mut().insert(slot, false);
        let holds = ir::users(slot).into_iter().all(|u| match ir::opcode(u) {
            Some(LLVMOpcode::LLVMLoad) => true,
            Some(LLVMOpcode::LLVMStore) => ir::operand(u, 1) == slot && self.is_private(ir::operand(u, 0)),
            Some(LLVMOpcode::LLVMCall) => ir::callee_name(u).starts_with("llvm.lifetime.") || ir::callee_name(u).starts_with("llvm.dbg."),
            _ => false,
        });
        self.slots.borrow_mut().insert(slot, holds);
        holds
    }
}
