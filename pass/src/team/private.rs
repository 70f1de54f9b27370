//! Which memory belongs to one thread: what a store by every thread of a team may write without
//! the team's size showing. A pointer is the thread's own when it is derived (by address
//! arithmetic, casts, selects and phis of such pointers) from
//!
//! - a stack slot of the function (each thread runs its own frame: private and firstprivate
//!   copies, locals of the region's code),
//! - a parameter the caller passed such a pointer to,
//! - memory the thread just allocated (`malloc`, `operator new`, ...),
//! - a pointer loaded from a stack slot that only ever holds such pointers and whose address
//!   goes nowhere else;
//! - the base address loaded from a descriptor (flang's `{ ptr, i64, ... }` of an allocatable
//!   array) in a stack slot of the function whose every value has, as its base address, such a
//!   pointer or null: flang-19's private allocatable, which the thread allocates (`malloc`) and
//!   frees (`free`) itself, and whose unallocated state it copies from a descriptor of the
//!   enclosing function that only ever holds a null base address ([`Privacy::captured_null_base`]).
//!
//! Anything else — the region's shared variables (the outlined function's captured pointers),
//! globals, pointers loaded from memory — may be another thread's or everyone's.
// Raw `LLVMValueRef`s passed around here are values of the module being analysed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use crate::fast_hash::{HashMap, HashSet};
use std::cell::RefCell;

use llvm_sys::core::{
    LLVMGetAggregateElement, LLVMGetAllocatedType, LLVMGetIndices, LLVMGetNumIndices, LLVMGetTypeKind, LLVMIsAConstantPointerNull,
};
use llvm_sys::{LLVMOpcode, LLVMTypeKind};

use crate::ir::{self, ValueRef};
use crate::team::library;

/// The thread-own memory of one function, as the caller's arguments make it.
pub struct Privacy {
    function: ValueRef,
    /// Bit i: parameter i points at the thread's own memory.
    params: u64,
    /// Stack slots known to hold only thread-own pointers (or not).
    slots: RefCell<HashMap<ValueRef, bool>>,
    /// Stack slots of descriptors known to hold only thread-own (or null) base addresses.
    descriptors: RefCell<HashMap<ValueRef, bool>>,
}

impl Privacy {
    pub fn new(function: ValueRef, params: u64) -> Privacy {
        Privacy { function, params, slots: RefCell::new(HashMap::default()), descriptors: RefCell::new(HashMap::default()) }
    }

    /// Whether pointer `v` points at the thread's own memory.
    pub fn is_private(&self, v: ValueRef) -> bool {
        self.private(v, &mut HashSet::default())
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
                let own_slot = ir::is_alloca(slot) && ir::function_of(slot) == self.function;
                (own_slot && self.slot_holds_private(slot)) || descriptor_base(slot).is_some_and(|d| self.descriptor_holds_private(d))
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

/// The descriptor slot whose base address (its first field, at offset 0) `address` is: a stack
/// slot of aggregate type, or the address of its field 0.
fn descriptor_base(address: ValueRef) -> Option<ValueRef> {
    let slot = if ir::opcode(address) == Some(LLVMOpcode::LLVMGetElementPtr) {
        let indices: Vec<Option<i64>> = (1..ir::num_operands(address)).map(|k| ir::const_int(ir::operand(address, k))).collect();
        if indices.len() != 2 || indices.iter().any(|i| *i != Some(0)) {
            return None;
        }
        ir::operand(address, 0)
    } else {
        address
    };
    (ir::is_alloca(slot) && is_struct(unsafe { LLVMGetAllocatedType(slot) })).then_some(slot)
}

fn is_struct(t: llvm_sys::prelude::LLVMTypeRef) -> bool {
    unsafe { LLVMGetTypeKind(t) == LLVMTypeKind::LLVMStructTypeKind }
}

fn is_null(v: ValueRef) -> bool {
    !v.is_null() && unsafe { !LLVMIsAConstantPointerNull(v).is_null() }
}

/// The constant non-negative indices of `gep` past its first (a field's address, or an element
/// of one), if they all are.
fn forward_field(gep: ValueRef) -> Option<Vec<i64>> {
    let indices: Option<Vec<i64>> = (1..ir::num_operands(gep)).map(|k| ir::const_int(ir::operand(gep, k))).collect();
    indices.filter(|i| i.first() == Some(&0) && i.iter().all(|x| *x >= 0))
}

impl Privacy {
    /// Whether descriptor slot `slot` (a stack slot of this function) only ever has a thread-own
    /// or null base address: every whole value stored into it has one, nothing else writes its
    /// field 0, and its address goes nowhere but to loads, stores and fields' addresses.
    fn descriptor_holds_private(&self, slot: ValueRef) -> bool {
        if ir::function_of(slot) != self.function {
            return false;
        }
        if let Some(known) = self.descriptors.borrow().get(&slot) {
            return *known;
        }
        self.descriptors.borrow_mut().insert(slot, false);
        let holds = ir::users(slot).into_iter().all(|u| match ir::opcode(u) {
            Some(LLVMOpcode::LLVMLoad) => true,
            Some(LLVMOpcode::LLVMStore) => ir::operand(u, 1) == slot && self.base_is_private(ir::operand(u, 0)),
            Some(LLVMOpcode::LLVMGetElementPtr) => match forward_field(u) {
                // field 0: read, or given a thread-own pointer
                Some(i) if i.iter().all(|x| *x == 0) => ir::users(u).into_iter().all(|w| match ir::opcode(w) {
                    Some(LLVMOpcode::LLVMLoad) => true,
                    Some(LLVMOpcode::LLVMStore) => ir::operand(w, 1) == u && self.is_private(ir::operand(w, 0)),
                    _ => false,
                }),
                // another field: read and written as it is, never past its end
                Some(i) => i.get(1).is_some_and(|f| *f > 0) && fields_stay(u, 0),
                None => false,
            },
            Some(LLVMOpcode::LLVMCall) => ir::callee_name(u).starts_with("llvm.lifetime.") || ir::callee_name(u).starts_with("llvm.dbg."),
            _ => false,
        });
        self.descriptors.borrow_mut().insert(slot, holds);
        holds
    }

    /// Whether the aggregate value `v` (a descriptor) has a thread-own or null base address.
    fn base_is_private(&self, v: ValueRef) -> bool {
        if !is_struct(ir::type_of(v)) {
            // a pointer stored over the base address
            let pointer = unsafe { LLVMGetTypeKind(ir::type_of(v)) == LLVMTypeKind::LLVMPointerTypeKind };
            return pointer && (is_null(v) || self.is_private(v));
        }
        if ir::is_constant(v) {
            return is_null(unsafe { LLVMGetAggregateElement(v, 0) });
        }
        match ir::opcode(v) {
            Some(LLVMOpcode::LLVMInsertValue) => {
                let n = unsafe { LLVMGetNumIndices(v) } as usize;
                let first = unsafe { std::slice::from_raw_parts(LLVMGetIndices(v), n) }.first().copied();
                if first == Some(0) {
                    let elt = ir::operand(v, 1);
                    n == 1 && (is_null(elt) || self.is_private(elt))
                } else {
                    self.base_is_private(ir::operand(v, 0))
                }
            }
            Some(LLVMOpcode::LLVMLoad) => {
                let from = ir::operand(v, 0);
                if ir::is_alloca(from) {
                    self.descriptor_holds_private(from)
                } else {
                    self.captured_null_base(from)
                }
            }
            Some(LLVMOpcode::LLVMPHI) => (0..ir::num_operands(v)).all(|k| self.base_is_private(ir::operand(v, k))),
            Some(LLVMOpcode::LLVMSelect) => self.base_is_private(ir::operand(v, 1)) && self.base_is_private(ir::operand(v, 2)),
            _ => false,
        }
    }
}

impl Privacy {
    /// Whether `pointer`, loaded in this function (a parallel region's microtask) from a field
    /// of the structure its fork passes (flang's captured variables), points at a descriptor of
    /// the enclosing function that only ever holds a null base address (flang-19's template of
    /// a private allocatable's unallocated state): the region only reads what it points at, and
    /// the enclosing function stores there only constants with a null base address.
    fn captured_null_base(&self, pointer: ValueRef) -> bool {
        let Some((param, field)) = captured_field(pointer) else { return false };
        if ir::function_of(param) != self.function {
            return false;
        }
        // in the region: every load of that field gives a pointer that is only read through
        let read_only = ir::users(param).into_iter().all(|g| match captured_field_address(g) {
            Some((_, f)) if f == field => ir::users(g).into_iter().all(|l| {
                ir::opcode(l) == Some(LLVMOpcode::LLVMLoad) && ir::users(l).into_iter().all(|r| ir::opcode(r) == Some(LLVMOpcode::LLVMLoad))
            }),
            Some(_) => true,
            None => false,
        });
        let Some(p) = ir::param_index(param) else { return false };
        let forks = ir::users(self.function);
        read_only
            && p >= 2
            && !forks.is_empty()
            && forks.into_iter().all(|fork| {
                let microtask = match crate::entry_points::lookup(&ir::callee_name(fork)).map(|e| e.role) {
                    Some(crate::entry_points::Role::Fork { microtask }) if ir::is_call(fork) => microtask as usize,
                    _ => return false,
                };
                let args = ir::call_args(fork);
                args.get(microtask) == Some(&self.function)
                    && args.iter().filter(|a| **a == self.function).count() == 1
                    && args.get(p + 1).is_some_and(|s| passes_null_descriptor(*s, field, fork))
            })
    }
}

/// `(parameter, field)` where `pointer` is loaded from the address of a field of a structure a
/// parameter points at.
fn captured_field(pointer: ValueRef) -> Option<(ValueRef, i64)> {
    if ir::opcode(pointer) != Some(LLVMOpcode::LLVMLoad) {
        return None;
    }
    captured_field_address(ir::operand(pointer, 0))
}

/// `(parameter, field)` where `address` is `getelementptr %struct, ptr %param, 0, field`.
fn captured_field_address(address: ValueRef) -> Option<(ValueRef, i64)> {
    if ir::opcode(address) != Some(LLVMOpcode::LLVMGetElementPtr) || ir::num_operands(address) != 3 {
        return None;
    }
    let base = ir::operand(address, 0);
    let first = ir::const_int(ir::operand(address, 1));
    let field = ir::const_int(ir::operand(address, 2))?;
    (ir::is_argument(base) && first == Some(0)).then_some((base, field))
}

/// Whether the structure `s` a fork passes is a stack slot of the enclosing function whose
/// `field` is only ever given the address of a descriptor slot that only ever holds constants
/// with a null base address (and whose address goes nowhere else), and the slot itself is only
/// given to the fork and to field addresses.
fn passes_null_descriptor(s: ValueRef, field: i64, fork: ValueRef) -> bool {
    if !ir::is_alloca(s) {
        return false;
    }
    ir::users(s).into_iter().all(|u| {
        if u == fork {
            return true;
        }
        if ir::opcode(u) != Some(LLVMOpcode::LLVMGetElementPtr) {
            return false;
        }
        match forward_field(u) {
            Some(i) if i.len() == 2 && i[1] == field => ir::users(u).into_iter().all(|st| {
                ir::opcode(st) == Some(LLVMOpcode::LLVMStore) && ir::operand(st, 1) == u && null_descriptor(ir::operand(st, 0), st)
            }),
            Some(_) => true,
            None => false,
        }
    })
}

/// Whether `d` is a descriptor slot that only ever holds constants with a null base address:
/// its address is only loaded from, stored to (such constants) and stored once, by `given`.
fn null_descriptor(d: ValueRef, given: ValueRef) -> bool {
    ir::is_alloca(d)
        && is_struct(unsafe { LLVMGetAllocatedType(d) })
        && ir::users(d).into_iter().all(|u| match ir::opcode(u) {
            Some(LLVMOpcode::LLVMLoad) => true,
            Some(LLVMOpcode::LLVMStore) if u == given => true,
            Some(LLVMOpcode::LLVMStore) => {
                let v = ir::operand(u, 0);
                ir::operand(u, 1) == d
                    && ir::is_constant(v)
                    && is_struct(ir::type_of(v))
                    && is_null(unsafe { LLVMGetAggregateElement(v, 0) })
            }
            Some(LLVMOpcode::LLVMCall) => ir::callee_name(u).starts_with("llvm.lifetime.") || ir::callee_name(u).starts_with("llvm.dbg."),
            _ => false,
        })
}

/// Whether the users of `address` (a field's, or an element's of it) only read and write it as
/// it is, or compute the addresses of its parts (constant, non-negative indices).
fn fields_stay(address: ValueRef, depth: u32) -> bool {
    depth < 8
        && ir::users(address).into_iter().all(|u| match ir::opcode(u) {
            Some(LLVMOpcode::LLVMLoad) => true,
            Some(LLVMOpcode::LLVMStore) => ir::operand(u, 1) == address,
            Some(LLVMOpcode::LLVMGetElementPtr) => {
                let indices: Option<Vec<i64>> = (1..ir::num_operands(u)).map(|k| ir::const_int(ir::operand(u, k))).collect();
                indices.is_some_and(|i| i.iter().all(|x| *x >= 0)) && fields_stay(u, depth + 1)
            }
            _ => false,
        })
}
