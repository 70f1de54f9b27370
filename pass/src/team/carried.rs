//! Private copies carried from one iteration of a worksharing loop to the next (OpenMP 5.2
//! §5.4.4 `firstprivate`, §5.4.5 `lastprivate`, §11.5 worksharing-loop): a thread's private copy
//! lives through all the iterations the thread runs. Where an iteration reads the copy before
//! writing it, it sees what the thread's previous iteration left (or the `firstprivate` value
//! for the thread's first one), so what it computes depends on which iterations ran before it on
//! the same thread — on how the iterations were divided (libgomp's `omp-parallel-for.c`:
//! `firstprivate(a) lastprivate(a)` with `a = a + i`). Where the copy's value after the loop is
//! read (the `lastprivate` copy-out, or the code after the loop) and some iteration may leave it
//! unwritten, the value comes from whichever earlier iteration the last thread ran.
//!
//! The analysis works on the form clang and flang emit at the start of the pipeline, where
//! every variable is a stack slot: for each slot of the function written in the iterations of a
//! worksharing loop ([`Scopes::iterations`]), a read reachable from the head of an iteration
//! (the header of the outermost loop inside the worksharing code) without a write on the way is
//! *carried*. Not the program's: the runtime's bound and flag slots (passed to the loop's
//! start), clang's iteration counter (reset from the lower bound, stepped by a constant), and
//! reduction copies, which are meant to be carried and are checked by [`super::reduction`].
//! A call given the slot's address may read it: it counts as a read. A write through an element
//! address of an aggregate does not count as writing all of it; an aggregate that is only ever
//! written in parts, given no value before the loop and not read after it (a scratch array of
//! the loop body) is not followed: what an iteration reads of it without writing it first is
//! indeterminate in a thread's first iteration.
// Raw `LLVMValueRef`s passed around here are values of the module being analysed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::collections::VecDeque;

use crate::fast_hash::HashSet;

use llvm_sys::LLVMOpcode;

use super::scope::{derived_addresses, role, strip, Scopes};
use crate::entry_points::Role;
use crate::ir::{self, BlockRef, ValueRef};

/// How an instruction uses a slot.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    /// A load.
    Read,
    /// A store of the whole slot (or a `memset`/`memcpy` into it from its start).
    Write,
    /// A store into part of it: an element, a field.
    PartialWrite,
    /// Anything else (a call given its address): may read and write.
    Both,
}

impl Access {
    fn reads(self) -> bool {
        matches!(self, Access::Read | Access::Both)
    }
    fn writes(self) -> bool {
        !matches!(self, Access::Read)
    }
}

/// A private copy carried across iterations: where, which, and how.
#[derive(Clone, Copy)]
pub struct Carried {
    /// The read that may see an earlier iteration's value, or the loop's header.
    pub at: ValueRef,
    /// The copy's stack slot.
    pub slot: ValueRef,
    /// Read before the iteration writes it (else: read after the loop, not written by every
    /// iteration).
    pub read_first: bool,
}

impl Carried {
    /// In words, with the copy's source name where the module keeps it.
    pub fn describe(&self, name: Option<String>) -> String {
        let copy = name.map_or_else(|| "a private copy".to_string(), |n| format!("the private copy '{n}'"));
        if self.read_first {
            format!("{copy} is read before the iteration writes it: it carries what the thread's previous iteration left")
        } else {
            format!("{copy} is read after the loop, and an iteration may leave it unwritten: its value is the last thread's earlier iteration's")
        }
    }
}

/// The first read of a private copy that an iteration may see from an earlier iteration, or the
/// write a `lastprivate` copy-out may miss, in `f` (whose scopes are `scopes`).
pub fn carried_copy(f: ValueRef, scopes: &Scopes) -> Option<Carried> {
    let iterations = scopes.iterations();
    if iterations.is_empty() {
        return None;
    }
    let insts = ir::function_instructions(f);
    let runtime_slots: HashSet<ValueRef> = insts
        .iter()
        .filter(|i| matches!(role(**i), Some(Role::StaticLoopStart { .. } | Role::DispatchNext { .. } | Role::DispatchStart)))
        .flat_map(|i| ir::call_args(*i))
        .map(|a| strip(Some(a)))
        .collect();
    let reductions: HashSet<ValueRef> = super::reduction::of(f).iter().map(|r| strip(Some(r.private))).collect();
    let loops = iteration_loops(f, iterations);
    // clang leaves blocks no branch reaches (the other half of an `inscan` loop's body)
    let reachable = ir::reachable_from(&[ir::entry_block(f)], None);
    for slot in insts.iter().copied().filter(|i| ir::is_alloca(*i)) {
        if runtime_slots.contains(&slot) || reductions.contains(&slot) {
            continue;
        }
        let accesses = accesses(slot);
        if !accesses.iter().any(|(i, a)| a.writes() && iterations.contains(i)) || is_loop_counter(slot, &runtime_slots) {
            continue;
        }
        // each worksharing loop that writes it, with what the function does with it elsewhere
        let live = |i: &ValueRef| reachable.contains(&ir::block_of(*i));
        if !accesses.iter().any(|(_, a)| *a == Access::Write)
            && accesses.iter().filter(|(i, _)| live(i)).all(|(i, _)| iterations.contains(i))
        {
            // an aggregate only ever written in parts and only used in the iterations of
            // worksharing loops (a scratch array of their bodies, filled there): nothing gives it a
            // value before them or reads it after them, and what an iteration reads of it without
            // writing it first is indeterminate in a thread's first iteration, which the model
            // leaves out of scope (element writes are not followed; docs/soundness.md)
            continue;
        }
        // each worksharing loop that writes it
        for (header, body) in loops.iter().filter(|(_, body)| accesses.iter().any(|(i, a)| a.writes() && body.contains(&ir::block_of(*i))))
        {
            if let Some(read) = exposed_read(*header, body, &accesses) {
                return Some(Carried { at: read, slot, read_first: true });
            }
            if read_after(body, &accesses) && may_skip_write(*header, body, &accesses) {
                let at = ir::instructions(*header).first().copied().unwrap_or(std::ptr::null_mut());
                return Some(Carried { at, slot, read_first: false });
            }
        }
    }
    None
}

/// Every use of `slot` (through element addresses and casts) and how it uses it.
fn accesses(slot: ValueRef) -> Vec<(ValueRef, Access)> {
    let mut out = Vec::new();
    for address in derived_addresses(slot) {
        let whole = address == slot;
        for u in ir::users(address) {
            let access = match ir::opcode(u) {
                Some(LLVMOpcode::LLVMLoad) => Access::Read,
                Some(LLVMOpcode::LLVMStore) if ir::operand(u, 1) == address => {
                    if whole {
                        Access::Write
                    } else {
                        Access::PartialWrite
                    }
                }
                Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast) if ir::operand(u, 0) == address => continue,
                Some(LLVMOpcode::LLVMCall) if ir::callee_name(u).starts_with("llvm.lifetime.") => continue,
                Some(LLVMOpcode::LLVMCall) if is_fill(u, address, whole) => Access::Write,
                _ => Access::Both,
            };
            out.push((u, access));
        }
    }
    out
}

/// A `memset` or `memcpy` into the whole of a slot, from its start.
fn is_fill(call: ValueRef, address: ValueRef, whole: bool) -> bool {
    let name = ir::callee_name(call);
    whole && (name.starts_with("llvm.memset.") || name.starts_with("llvm.memcpy.")) && ir::call_args(call).first() == Some(&address)
}

/// clang's iteration counter (`.omp.iv`): every store into it stores the loop's lower bound (a
/// load of a runtime slot) or its own value plus a constant.
fn is_loop_counter(slot: ValueRef, runtime_slots: &HashSet<ValueRef>) -> bool {
    let stores: Vec<ValueRef> =
        ir::users(slot).into_iter().filter(|u| ir::opcode(*u) == Some(LLVMOpcode::LLVMStore) && ir::operand(*u, 1) == slot).collect();
    let from_bound = |v: ValueRef| ir::opcode(v) == Some(LLVMOpcode::LLVMLoad) && runtime_slots.contains(&strip(Some(ir::operand(v, 0))));
    let stepped = |v: ValueRef| {
        ir::opcode(v) == Some(LLVMOpcode::LLVMAdd)
            && (0..2).any(|k| {
                let (a, b) = (ir::operand(v, k), ir::operand(v, 1 - k));
                ir::opcode(a) == Some(LLVMOpcode::LLVMLoad) && ir::operand(a, 0) == slot && ir::const_int(b).is_some()
            })
    };
    stores.iter().any(|s| from_bound(ir::operand(*s, 0)))
        && stores.iter().all(|s| from_bound(ir::operand(*s, 0)) || stepped(ir::operand(*s, 0)))
        && ir::users(slot).iter().all(|u| {
            matches!(ir::opcode(*u), Some(LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMStore))
                || ir::callee_name(*u).starts_with("llvm.lifetime.")
        })
}

/// The outermost loops inside the worksharing code: (header, blocks of the loop).
fn iteration_loops(f: ValueRef, iterations: &HashSet<ValueRef>) -> Vec<(BlockRef, HashSet<BlockRef>)> {
    let in_loop_code: HashSet<BlockRef> = iterations.iter().map(|i| ir::block_of(*i)).collect();
    let preds = ir::predecessors(f);
    let mut loops: Vec<(BlockRef, HashSet<BlockRef>)> = Vec::new();
    for &latch in &in_loop_code {
        for header in ir::successors(latch) {
            if !in_loop_code.contains(&header) || !ir::block_dominates(f, header, latch) {
                continue;
            }
            // the natural loop: the header, and what reaches the latch without passing it
            let mut body = HashSet::from_iter([header, latch]);
            let mut queue = VecDeque::from([latch]);
            while let Some(b) = queue.pop_front() {
                if b == header {
                    continue;
                }
                for p in preds.get(&b).into_iter().flatten() {
                    if body.insert(*p) {
                        queue.push_back(*p);
                    }
                }
            }
            match loops.iter_mut().find(|(h, _)| *h == header) {
                Some((_, known)) => known.extend(body),
                None => loops.push((header, body)),
            }
        }
    }
    let nested: Vec<BlockRef> =
        loops.iter().filter(|(h, _)| loops.iter().any(|(other, body)| other != h && body.contains(h))).map(|(h, _)| *h).collect();
    loops.retain(|(h, _)| !nested.contains(h));
    loops
}

/// A read of the slot that an iteration (entered at `header`) may reach without writing the
/// slot first.
fn exposed_read(header: BlockRef, body: &HashSet<BlockRef>, accesses: &[(ValueRef, Access)]) -> Option<ValueRef> {
    first_unwritten_read(vec![header], &|s| body.contains(&s) && s != header, accesses)
}

/// Whether code after the loop (`body`) may read the slot before writing the whole of it: the
/// value the loop left (a `lastprivate` copy-out, code after the `for`), not a later loop's own
/// value (a local reused as the index of the next loop).
fn read_after(body: &HashSet<BlockRef>, accesses: &[(ValueRef, Access)]) -> bool {
    let exits: Vec<BlockRef> = body.iter().flat_map(|b| ir::successors(*b)).filter(|s| !body.contains(s)).collect();
    first_unwritten_read(exits, &|_| true, accesses).is_some()
}

/// The first read of the slot on a path from the start of one of `starts`, through blocks
/// `enters` accepts, with no write of the whole slot before it.
fn first_unwritten_read(starts: Vec<BlockRef>, enters: &dyn Fn(BlockRef) -> bool, accesses: &[(ValueRef, Access)]) -> Option<ValueRef> {
    let mut seen: HashSet<BlockRef> = starts.iter().copied().collect();
    let mut queue: VecDeque<BlockRef> = starts.into();
    while let Some(b) = queue.pop_front() {
        let mut killed = false;
        for i in ir::instructions(b) {
            match accesses.iter().find(|(x, _)| *x == i).map(|(_, a)| *a) {
                Some(a) if a.reads() => return Some(i),
                Some(Access::Write) => {
                    killed = true;
                    break;
                }
                _ => {}
            }
        }
        if !killed {
            for s in ir::successors(b) {
                if enters(s) && seen.insert(s) {
                    queue.push_back(s);
                }
            }
        }
    }
    None
}

/// Whether an iteration may go round the loop (from `header` back to it) without writing the
/// whole slot.
fn may_skip_write(header: BlockRef, body: &HashSet<BlockRef>, accesses: &[(ValueRef, Access)]) -> bool {
    let writes_whole = |b: BlockRef| ir::instructions(b).iter().any(|i| accesses.iter().any(|(x, a)| x == i && *a == Access::Write));
    if writes_whole(header) {
        return false;
    }
    let mut seen = HashSet::default();
    let mut queue: VecDeque<BlockRef> = ir::successors(header).into_iter().filter(|s| body.contains(s)).collect();
    while let Some(b) = queue.pop_front() {
        if b == header {
            return true;
        }
        if !seen.insert(b) || writes_whole(b) {
            continue;
        }
        queue.extend(ir::successors(b).into_iter().filter(|s| body.contains(s)));
    }
    false
}
