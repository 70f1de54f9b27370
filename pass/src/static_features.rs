//! Static features of a region's code (the compiler-extracted loop features of HPX smart executors,
//! as hpxML uses them), counted over the host version of the region: its outlined functions and
//! every function of the module they call, each once.
//!
//! Loads and stores of a function's own stack slots are not counted (they are registers after
//! optimisation, so the counts barely depend on the optimisation level of the IR), nor are
//! calls into the OpenMP runtime's bookkeeping (`__kmpc_*`, `__tgt_*`) or debug intrinsics.
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use crate::fast_hash::{HashMap, HashSet};

use llvm_sys::LLVMOpcode;

use crate::ir::{self, BlockRef, ValueRef};
use crate::memory::{self, Base};

/// Names of the static features, in the order they are stored.
pub const NAMES: [&str; 6] = ["ops", "flops", "comparisons", "memory_accesses", "loop_depth", "calls"];

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StaticFeatures {
    pub ops: u64,
    pub flops: u64,
    pub comparisons: u64,
    pub memory_accesses: u64,
    pub loop_depth: u64,
    pub calls: u64,
}

impl StaticFeatures {
    pub fn values(&self) -> [f64; 6] {
        [self.ops, self.flops, self.comparisons, self.memory_accesses, self.loop_depth, self.calls].map(|v| v as f64)
    }
}

fn is_bookkeeping(name: &str) -> bool {
    name.starts_with(crate::entry_points::name::prefix::KMPC)
        || name.starts_with(crate::entry_points::name::prefix::TGT)
        || name.starts_with("llvm.dbg.")
        || name.starts_with("llvm.lifetime.")
        || name.starts_with("llvm.assume")
        || name.starts_with("llvm.experimental.noalias")
        || name.contains(ompadapt_abi::markers::RESERVED_PREFIX)
}

fn is_float_math(name: &str) -> bool {
    const MATH: &[&str] = &[
        "sqrt", "sin", "cos", "tan", "exp", "exp2", "log", "log2", "log10", "pow", "fma", "fmuladd", "fabs", "floor", "ceil", "round",
        "trunc", "fmin", "fmax", "minnum", "maxnum", "atan", "atan2", "asin", "acos", "sinh", "cosh", "tanh", "cbrt", "hypot", "erf",
    ];
    let base = name.strip_prefix("llvm.").map(|n| n.split('.').next().unwrap_or(n)).unwrap_or(name);
    let base = base.strip_suffix('f').filter(|b| MATH.contains(b)).unwrap_or(base);
    MATH.contains(&base)
}

/// Counts the features over `roots` and the module functions they call (each function once).
/// `loop_depth` is the deepest nesting of natural loops, through calls; `chunk_loops`: the
/// outlined functions whose worksharing loop runs the chunks of the loop that forks them (the
/// inner half of a combined `distribute parallel for`: one source loop, two IR loops).
pub fn static_features(roots: &[ValueRef], data_layout: llvm_sys::target::LLVMTargetDataRef, chunk_loops: &[ValueRef]) -> StaticFeatures {
    let mut out = StaticFeatures::default();
    let mut seen = HashSet::default();
    let mut work: Vec<ValueRef> = roots.to_vec();
    while let Some(f) = work.pop() {
        if ir::is_declaration(f) || !seen.insert(f) {
            continue;
        }
        for inst in ir::function_instructions(f) {
            let Some(op) = ir::opcode(inst) else { continue };
            use LLVMOpcode::*;
            match op {
                LLVMAlloca | LLVMPHI | LLVMBr | LLVMRet | LLVMSwitch | LLVMUnreachable => continue,
                LLVMLoad | LLVMStore => {
                    let ptr = if op == LLVMLoad { ir::operand(inst, 0) } else { ir::operand(inst, 1) };
                    let local = matches!(memory::decompose(data_layout, ptr).base, Base::Alloca(a) if ir::function_of(a) == f);
                    if !local {
                        out.memory_accesses += 1;
                        out.ops += 1;
                    }
                    continue;
                }
                LLVMAtomicRMW | LLVMAtomicCmpXchg => out.memory_accesses += 1,
                LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMFNeg => out.flops += 1,
                LLVMICmp | LLVMFCmp => out.comparisons += 1,
                LLVMCall | LLVMInvoke => {
                    let callee = ir::callee(inst);
                    let name = ir::callee_name(inst);
                    if is_bookkeeping(&name) {
                        // Enter the outlined functions the runtime calls back.
                        if name == crate::entry_points::name::FORK_CALL || name == crate::entry_points::name::FORK_TEAMS {
                            let g = ir::strip_to_global(ir::call_args(inst)[2]);
                            if ir::is_function(g) {
                                work.push(g);
                            }
                        }
                        continue;
                    }
                    if is_float_math(&name) {
                        // A fused multiply-add is a multiplication and an addition (clang
                        // contracts `a * x + y` into llvm.fmuladd).
                        out.flops += if name.starts_with("llvm.fmuladd") || name.starts_with("llvm.fma.") || name == "fma" || name == "fmaf"
                        {
                            2
                        } else {
                            1
                        };
                    } else if memory::mem_intrinsic_dest(inst).is_some() {
                        out.memory_accesses += 1;
                    } else if !name.starts_with("llvm.") {
                        let outlined = name.contains(".omp_outlined") || name.starts_with(crate::omp_calls::OFFLOADING_PREFIX);
                        if outlined {
                            // Part of the region (clang's -g wrappers), not a call of the code.
                            work.push(callee);
                            continue;
                        }
                        out.calls += 1;
                    }
                    if !callee.is_null() {
                        work.push(callee);
                    }
                }
                _ => {}
            }
            out.ops += 1;
        }
    }
    let mut depth_memo = HashMap::default();
    out.loop_depth = roots.iter().map(|f| loop_depth(*f, &mut depth_memo, &mut HashSet::default(), chunk_loops)).max().unwrap_or(0);
    out
}

/// Deepest natural-loop nesting of `f`, counting the loops of the functions it calls (and of
/// the outlined functions it forks) at the depth of the call.
fn loop_depth(f: ValueRef, memo: &mut HashMap<ValueRef, u64>, active: &mut HashSet<ValueRef>, chunk_loops: &[ValueRef]) -> u64 {
    if let Some(d) = memo.get(&f) {
        return *d;
    }
    if ir::is_declaration(f) || !active.insert(f) {
        return 0;
    }
    let depth = block_loop_depths(f);
    let mut best = 0;
    for (b, d) in &depth {
        best = best.max(*d);
        for inst in ir::instructions(*b) {
            if !ir::is_call(inst) {
                continue;
            }
            let name = ir::callee_name(inst);
            let target = if name == crate::entry_points::name::FORK_CALL || name == crate::entry_points::name::FORK_TEAMS {
                ir::strip_to_global(ir::call_args(inst)[2])
            } else {
                ir::callee(inst)
            };
            if !target.is_null() && ir::is_function(target) {
                let inner = loop_depth(target, memo, active, chunk_loops);
                let forks = name.starts_with(crate::entry_points::name::prefix::FORK);
                let d = if forks && chunk_loops.contains(&target) { d.saturating_sub(1) } else { *d };
                best = best.max(d + inner);
            }
        }
    }
    active.remove(&f);
    memo.insert(f, best);
    best
}

/// How many of `f`'s source loops contain each of its blocks, in block order: its natural loops
/// without the chunk loops of its worksharing loops' schedules.
fn block_loop_depths(f: ValueRef) -> Vec<(BlockRef, u64)> {
    let blocks = ir::blocks(f);
    let mut depth: HashMap<BlockRef, u64> = blocks.iter().map(|b| (*b, 0)).collect();
    let is_chunk_loop = chunk_loop_test(f);
    for body in natural_loops(f, &blocks).values().filter(|body| !is_chunk_loop(body)) {
        for b in body {
            *depth.entry(*b).or_default() += 1;
        }
    }
    blocks.into_iter().map(|b| (b, depth[&b])).collect()
}

/// The natural loops of `f` by header: a back edge u -> h where h dominates u; the body is what
/// reaches u without passing h.
fn natural_loops(f: ValueRef, blocks: &[BlockRef]) -> HashMap<BlockRef, HashSet<BlockRef>> {
    let predecessors = ir::predecessors(f);
    let mut loops: HashMap<BlockRef, HashSet<BlockRef>> = HashMap::default();
    for u in blocks {
        for h in ir::successors(*u) {
            if !ir::block_dominates(f, h, *u) {
                continue;
            }
            let body = loops.entry(h).or_insert_with(|| HashSet::from_iter([h]));
            let mut stack = vec![*u];
            while let Some(b) = stack.pop() {
                if body.insert(b) {
                    for p in predecessors.get(&b).into_iter().flatten() {
                        stack.push(*p);
                    }
                }
            }
        }
    }
    loops
}

/// Whether a loop body of `f` is one of the loops libomp's schedules add around a worksharing
/// loop (fetching the next chunk: `__kmpc_dispatch_next`, or advancing a static chunk's bounds),
/// which are not source loops.
fn chunk_loop_test(f: ValueRef) -> impl Fn(&HashSet<BlockRef>) -> bool {
    let data_layout = unsafe { llvm_sys::target::LLVMGetModuleDataLayout(llvm_sys::core::LLVMGetGlobalParent(f)) };
    let bound_slots: HashSet<ValueRef> = ir::function_instructions(f)
        .into_iter()
        .filter_map(|i| match crate::worksharing::init_kind(i) {
            Some((crate::worksharing::Bounds::ByPointer { lower, .. }, _, _)) => {
                match memory::decompose(data_layout, ir::call_args(i)[lower as usize]).base {
                    Base::Alloca(a) => Some(a),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect();
    move |body: &HashSet<BlockRef>| {
        body.iter().flat_map(|b| ir::instructions(*b)).any(|i| {
            ir::callee_name(i).starts_with(crate::entry_points::name::prefix::DISPATCH_NEXT)
                || (ir::opcode(i) == Some(LLVMOpcode::LLVMStore)
                    && matches!(memory::decompose(data_layout, ir::operand(i, 1)).base, Base::Alloca(a) if bound_slots.contains(&a)))
        })
    }
}
