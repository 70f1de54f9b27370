//! Which code of a function every thread of the team runs, and which runs divided among the
//! team, from the OpenMP runtime calls that delimit worksharing (see
//! [`crate::entry_points::Role`]):
//!
//! - **divided**: the iterations of a worksharing loop (between a static loop's start and its
//!   end; the body a dynamic loop's next chunk guards), and the code one thread runs (`single`,
//!   `master`, `masked`, a loop's last-iteration copy-out);
//! - **combine**: the threads adding their partial results of a reduction, guarded by the
//!   reduce call's result;
//! - **replicated**: everything else, which each thread of the team runs once: an effect there
//!   happens as many times as the team has threads.
//!
//! A region whose start and end cannot be paired is not divided: its code counts as replicated,
//! which only makes the analysis stricter.
// Raw `LLVMValueRef`s passed around here are values of the module being analysed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::collections::VecDeque;

use crate::fast_hash::HashSet;

use llvm_sys::core::{LLVMGetCondition, LLVMGetICmpPredicate, LLVMGetNumOperands, LLVMGetOperand, LLVMGetSuccessor, LLVMIsConditional};
use llvm_sys::{LLVMIntPredicate, LLVMOpcode};

use crate::entry_points::{lookup, Role};
use crate::ir::{self, BlockRef, ValueRef};

/// Who runs an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Every thread of the team.
    Replicated,
    /// Some threads, the work divided among them (or one thread).
    Divided,
    /// The threads combining their partial results of a reduction.
    Combine,
}

/// The scopes of one function's instructions.
#[derive(Debug, Default)]
pub struct Scopes {
    divided: HashSet<ValueRef>,
    /// The iterations of worksharing loops (a part of `divided`).
    iterations: HashSet<ValueRef>,
    combine: HashSet<ValueRef>,
    /// `omp_get_thread_num` calls whose answer only decides which code thread 0 runs.
    guards: HashSet<ValueRef>,
}

/// The role of the runtime entry point `i` calls, if it calls one.
pub fn role(i: ValueRef) -> Option<Role> {
    if !ir::is_call(i) {
        return None;
    }
    ir::with_callee_name(i, |name| lookup(name).map(|e| e.role))
}

impl Scopes {
    /// The scopes of `f`'s instructions, when every thread of a team runs `f`; `implicit_task`:
    /// each in its implicit task of the region (not in an explicit task, which any thread may
    /// run), where a thread-0 guard is a `masked` block.
    pub fn of(f: ValueRef, implicit_task: bool) -> Scopes {
        let mut s = Scopes::default();
        let insts = ir::function_instructions(f);
        let mut last_flags = HashSet::default();
        for &i in &insts {
            match role(i) {
                Some(Role::StaticLoopStart { last }) => {
                    last_flags.insert(strip(ir::call_args(i).get(last as usize).copied()));
                    let start = (ir::block_of(i), ir::index_in_block(i) + 1);
                    let is_end = |x: ValueRef| role(x) == Some(Role::StaticLoopEnd);
                    let is_start = |x: ValueRef| x == i;
                    s.iterations.extend(between(f, &[start], &is_end, &is_start));
                }
                Some(Role::DispatchNext { last }) => {
                    last_flags.insert(strip(ir::call_args(i).get(last as usize).copied()));
                    let is_next = |x: ValueRef| matches!(role(x), Some(Role::DispatchNext { .. }));
                    let starts: Vec<_> = guarded_successors(f, i, &[1], Entry::OrLoop).into_iter().map(|b| (b, 0)).collect();
                    s.iterations.extend(between(f, &starts, &is_next, &|_| false));
                }
                Some(Role::OneThread) => {
                    for b in guarded_successors(f, i, &[1], Entry::Only) {
                        s.divided.extend(dominated(f, b));
                    }
                }
                Some(Role::Reduce { .. }) => {
                    for b in guarded_successors(f, i, &[1, 2], Entry::Only) {
                        s.combine.extend(dominated(f, b));
                    }
                }
                _ => {}
            }
        }
        s.divided.extend(s.iterations.iter().copied());
        // The copy-out of lastprivate: one thread, the one that ran the last iteration.
        last_flags.remove(&std::ptr::null_mut());
        for &i in &insts {
            if ir::opcode(i) == Some(LLVMOpcode::LLVMLoad) && last_flags.contains(&strip(Some(ir::operand(i, 0)))) {
                for b in guarded_successors(f, i, &[1], Entry::Only) {
                    s.divided.extend(dominated(f, b));
                }
            }
        }
        // `if (omp_get_thread_num() == 0)` in code every thread runs: what only thread 0 runs
        // runs once, as under `masked`
        if implicit_task {
            for &i in &insts {
                if is_thread_num(i) && s.scope(i) == Scope::Replicated {
                    if let Some(blocks) = thread_zero_blocks(f, i, &s) {
                        s.divided.extend(blocks.into_iter().flat_map(|b| dominated(f, b)));
                        s.guards.insert(i);
                    }
                }
            }
        }
        s
    }

    /// Whether `call` (of `omp_get_thread_num`) only decides which code thread 0 runs, in code
    /// every thread of the team runs ([`thread_zero_blocks`]).
    pub fn is_thread_zero_guard(&self, call: ValueRef) -> bool {
        self.guards.contains(&call)
    }

    /// The instructions of the iterations of worksharing loops.
    pub fn iterations(&self) -> &HashSet<ValueRef> {
        &self.iterations
    }

    /// Who runs `i`.
    pub fn scope(&self, i: ValueRef) -> Scope {
        if self.combine.contains(&i) {
            Scope::Combine
        } else if self.divided.contains(&i) {
            Scope::Divided
        } else {
            Scope::Replicated
        }
    }
}

/// `v` without pointer casts and address computations.
pub fn strip(v: Option<ValueRef>) -> ValueRef {
    let Some(mut v) = v else { return std::ptr::null_mut() };
    for _ in 0..16 {
        match ir::opcode(v) {
            Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast) => v = ir::operand(v, 0),
            _ => return ir::strip_to_global(v),
        }
    }
    v
}

/// `base` and the addresses computed from it (element addresses, casts), transitively.
pub fn derived_addresses(base: ValueRef) -> Vec<ValueRef> {
    let mut out = vec![base];
    let mut k = 0;
    while k < out.len() {
        let p = out[k];
        k += 1;
        for u in ir::users(p) {
            let derived = matches!(ir::opcode(u), Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast)) && ir::operand(u, 0) == p;
            if derived && !out.contains(&u) {
                out.push(u);
            }
        }
    }
    out
}

/// How the code a guard's branch leads to may be entered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Entry {
    /// Through the branch only: the successor's only predecessor is the guard's block.
    Only,
    /// Through the branch, or from the code it leads to: the successor may be the header of a
    /// loop (flang-19's dynamic loop branches from the chunk's `__kmpc_dispatch_next` straight to
    /// the header of the loop over the chunk, which its latch also enters), as long as no block
    /// reachable from it without passing the guard's block is entered from elsewhere.
    OrLoop,
}

/// Whether every way into the blocks reachable from `target` (not through `guard`) is the edge
/// from `guard` to `target` or an edge among those blocks.
fn entered_only_from(f: ValueRef, target: BlockRef, guard: BlockRef) -> bool {
    let preds = ir::predecessors(f);
    let inside = ir::reachable_from(&[target], Some(guard));
    inside.contains(&target)
        && inside.iter().all(|b| preds.get(b).into_iter().flatten().all(|p| inside.contains(p) || (*b == target && *p == guard)))
}

/// The successors a conditional branch on `value` (compared with zero) takes when `value` is
/// one of `taken` (1: non-zero for a comparison `!= 0`), where that successor has the branch as
/// its only way in (with [`Entry::OrLoop`], also a loop the branch enters); for a `switch` on
/// `value`, the successors of the cases in `taken`.
fn guarded_successors(f: ValueRef, value: ValueRef, taken: &[i64], entry: Entry) -> Vec<BlockRef> {
    let preds = ir::predecessors(f);
    let only_from = |b: BlockRef, from: BlockRef| {
        preds.get(&b).is_some_and(|p| p.len() == 1 && p[0] == from) || (entry == Entry::OrLoop && entered_only_from(f, b, from))
    };
    let mut out = Vec::new();
    for u in ir::users(value) {
        match ir::opcode(u) {
            Some(LLVMOpcode::LLVMSwitch) if ir::operand(u, 0) == value => {
                // operands: condition, default, then (case value, successor) pairs
                let n = unsafe { LLVMGetNumOperands(u) } as u32;
                for k in (2..n).step_by(2) {
                    let case = ir::const_int(ir::operand(u, k));
                    let target = unsafe { llvm_sys::core::LLVMValueAsBasicBlock(LLVMGetOperand(u, k + 1)) };
                    if case.is_some_and(|c| taken.contains(&c)) && only_from(target, ir::block_of(u)) {
                        out.push(target);
                    }
                }
            }
            Some(LLVMOpcode::LLVMICmp) if taken == [1] => {
                let (a, b) = (ir::operand(u, 0), ir::operand(u, 1));
                let other = if a == value { b } else { a };
                if ir::const_int(other) != Some(0) {
                    continue;
                }
                // the successor on which `value` is non-zero
                let nonzero_is_true = match unsafe { LLVMGetICmpPredicate(u) } {
                    LLVMIntPredicate::LLVMIntNE => true,
                    LLVMIntPredicate::LLVMIntEQ => false,
                    _ => continue,
                };
                for br in ir::users(u) {
                    if ir::opcode(br) != Some(LLVMOpcode::LLVMBr) || unsafe { LLVMIsConditional(br) } == 0 {
                        continue;
                    }
                    if unsafe { LLVMGetCondition(br) } != u {
                        continue;
                    }
                    let target = unsafe { LLVMGetSuccessor(br, if nonzero_is_true { 0 } else { 1 }) };
                    let other = unsafe { LLVMGetSuccessor(br, if nonzero_is_true { 1 } else { 0 }) };
                    if target != other && only_from(target, ir::block_of(br)) {
                        out.push(target);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The instructions of the blocks `b` dominates.
fn dominated(f: ValueRef, b: BlockRef) -> Vec<ValueRef> {
    ir::blocks(f).into_iter().filter(|x| ir::block_dominates(f, b, *x)).flat_map(ir::instructions).collect()
}

/// The instructions on a path from one of `starts` (block, first index) to an instruction that
/// `is_end` accepts, passing neither an end nor an instruction `is_start` accepts on the way:
/// those reachable forward from a start without passing an end, that reach an end backward
/// without passing a start.
fn between(
    f: ValueRef,
    starts: &[(BlockRef, usize)],
    is_end: &dyn Fn(ValueRef) -> bool,
    is_start: &dyn Fn(ValueRef) -> bool,
) -> HashSet<ValueRef> {
    let stop = |x: ValueRef| is_end(x) || is_start(x);
    // forward from the starts
    let mut forward = HashSet::default();
    let mut ends = Vec::new();
    let mut queue: VecDeque<(BlockRef, usize)> = starts.iter().copied().collect();
    let mut entered = HashSet::default();
    while let Some((b, from)) = queue.pop_front() {
        let insts = ir::instructions(b);
        let mut stopped = false;
        for &x in insts.iter().skip(from) {
            if stop(x) {
                if is_end(x) {
                    ends.push(x);
                }
                stopped = true;
                break;
            }
            forward.insert(x);
        }
        if !stopped {
            for s in ir::successors(b) {
                if entered.insert(s) {
                    queue.push_back((s, 0));
                }
            }
        }
    }
    // backward from the ends that were reached
    let preds = ir::predecessors(f);
    let mut backward = HashSet::default();
    let mut queue: VecDeque<(BlockRef, Option<usize>)> = ends.iter().map(|e| (ir::block_of(*e), Some(ir::index_in_block(*e)))).collect();
    let mut entered = HashSet::default();
    while let Some((b, before)) = queue.pop_front() {
        let insts = ir::instructions(b);
        let upto = before.unwrap_or(insts.len());
        let mut stopped = false;
        for &x in insts[..upto].iter().rev() {
            if stop(x) {
                stopped = true;
                break;
            }
            backward.insert(x);
        }
        if !stopped {
            for p in preds.get(&b).into_iter().flatten() {
                if entered.insert(*p) {
                    queue.push_back((*p, None));
                }
            }
        }
    }
    forward.intersection(&backward).copied().collect()
}

/// Whether `call` asks for the thread's number (`omp_get_thread_num`, also Fortran's binding).
fn is_thread_num(call: ValueRef) -> bool {
    ir::is_call(call) && lookup(&ir::callee_name(call)).is_some_and(|e| e.name == crate::entry_points::name::GET_THREAD_NUM)
}

/// The blocks only thread 0 runs, where the answer of `call` (`omp_get_thread_num`, in code
/// every thread runs) is only compared with 0 to decide branches (directly, or kept in a stack
/// slot that holds nothing else, clang's and flang's code at -O0), every comparison and branch
/// in code every thread runs: the successors taken when it is 0, where the branch is their only
/// way in. None if it is used otherwise.
fn thread_zero_blocks(f: ValueRef, call: ValueRef, scopes: &Scopes) -> Option<Vec<BlockRef>> {
    let replicated = |i: ValueRef| scopes.scope(i) == Scope::Replicated;
    let mut values = vec![call];
    let mut tests = Vec::new();
    let mut k = 0;
    while k < values.len() {
        let v = values[k];
        k += 1;
        for u in ir::users(v) {
            match ir::opcode(u)? {
                LLVMOpcode::LLVMICmp if replicated(u) => tests.push(u),
                // kept in a slot that holds only this answer, read after it is stored
                LLVMOpcode::LLVMStore if ir::operand(u, 0) == v && v == call && ir::is_alloca(ir::operand(u, 1)) => {
                    let slot = ir::operand(u, 1);
                    for r in ir::users(slot) {
                        match ir::opcode(r)? {
                            LLVMOpcode::LLVMStore if r == u => {}
                            LLVMOpcode::LLVMLoad if replicated(r) && ir::inst_dominates(u, r) => values.push(r),
                            LLVMOpcode::LLVMCall
                                if ir::callee_name(r).starts_with("llvm.lifetime.") || ir::callee_name(r).starts_with("llvm.dbg.") => {}
                            _ => return None,
                        }
                    }
                }
                LLVMOpcode::LLVMCall if ir::callee_name(u).starts_with("llvm.dbg.") => {}
                _ => return None,
            }
        }
    }
    let preds = ir::predecessors(f);
    let mut blocks = Vec::new();
    for t in tests {
        let zero_is_true = match unsafe { LLVMGetICmpPredicate(t) } {
            LLVMIntPredicate::LLVMIntEQ => true,
            LLVMIntPredicate::LLVMIntNE => false,
            _ => return None,
        };
        let (a, b) = (ir::operand(t, 0), ir::operand(t, 1));
        let constant = if values.contains(&a) { b } else { a };
        if ir::const_int(constant) != Some(0) {
            return None;
        }
        for br in ir::users(t) {
            let conditional = ir::opcode(br) == Some(LLVMOpcode::LLVMBr) && unsafe { LLVMIsConditional(br) } != 0;
            if !conditional || unsafe { LLVMGetCondition(br) } != t || !replicated(br) {
                return None;
            }
            let zero = unsafe { LLVMGetSuccessor(br, if zero_is_true { 0 } else { 1 }) };
            let other = unsafe { LLVMGetSuccessor(br, if zero_is_true { 1 } else { 0 }) };
            if zero != other && preds.get(&zero).is_some_and(|p| p.len() == 1 && p[0] == ir::block_of(br)) {
                blocks.push(zero);
            }
        }
    }
    Some(blocks)
}
