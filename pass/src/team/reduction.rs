//! Whether a reduction's result can depend on how its iterations are divided.
//!
//! OpenMP 5.2 §5.5.8: each thread's private copy starts at the operator's identity and the copies
//! are combined with the operator at the end. The combined value equals the sequential one, for
//! any division of the iterations, only where every update of a private copy applies that same
//! operator: `x = x op e`, `x op= e`, and for `max`/`min` the choice between `x` and `e` —
//! with `e` not reading `x`, and the partial value flowing nowhere else. A program that does
//! something else (`reduction(+: top)` with `if (i*i > top) top = i*i`, a maximum combined with
//! `+`; `reduction(*: p)` with `p = p + i`) prints another number with another team. So a region
//! adapts only where each private copy is updated that way; everything else is a finding.
//!
//! The operator is read from the reduction function clang and flang hand to `__kmpc_reduce`
//! (one store per list element: `lhs = lhs op rhs`, or `max`/`min` as an intrinsic, a `select`
//! or a branch and `phi` on a comparison). A combiner that is a call (`declare reduction`) or
//! another shape (`&&`, `||`) is not recognised: its region stays as written. The updates are
//! matched on the IR the pass sees at the start of the pipeline, where each source expression
//! reloads its variables from memory: two loads of one address with nothing written between
//! them are the same value.
// Raw `LLVMValueRef`s passed around here are values of the module being analysed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use crate::fast_hash::{HashMap, HashSet};

use llvm_sys::core::{
    LLVMGetCondition, LLVMGetFCmpPredicate, LLVMGetICmpPredicate, LLVMGetIncomingBlock, LLVMGetNumSuccessors, LLVMGetSuccessor,
    LLVMIsConditional, LLVMTypeOf,
};
use llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate};

use crate::ir::{self, BlockRef, ValueRef};

/// Which values a `max`/`min` compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Signed,
    Unsigned,
    Float,
}

/// A reduction's operator, as its combiner applies it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operator {
    /// `lhs = lhs op rhs` with one instruction: add, fadd, mul, fmul, and, or, xor.
    Arith(LLVMOpcode),
    /// The larger (`max: true`) or smaller of the two.
    Extreme { max: bool, family: Family },
}

impl Operator {
    pub fn describe(&self) -> String {
        match self {
            Operator::Arith(op) => match op {
                LLVMOpcode::LLVMAdd | LLVMOpcode::LLVMFAdd => "+",
                LLVMOpcode::LLVMMul | LLVMOpcode::LLVMFMul => "*",
                LLVMOpcode::LLVMAnd => "&",
                LLVMOpcode::LLVMOr => "|",
                _ => "^",
            }
            .to_string(),
            Operator::Extreme { max: true, .. } => "max".into(),
            Operator::Extreme { max: false, .. } => "min".into(),
        }
    }
}

const ARITH: [LLVMOpcode; 7] = [
    LLVMOpcode::LLVMAdd,
    LLVMOpcode::LLVMFAdd,
    LLVMOpcode::LLVMMul,
    LLVMOpcode::LLVMFMul,
    LLVMOpcode::LLVMAnd,
    LLVMOpcode::LLVMOr,
    LLVMOpcode::LLVMXor,
];

/// The operator the reduction function `combiner` applies to each element of the reduction
/// list (by its index in the list); an element whose combination is not recognised (or not
/// one operator) is absent.
pub fn combiner_operators(combiner: ValueRef) -> HashMap<u64, Operator> {
    let mut found: HashMap<u64, Option<Operator>> = HashMap::default();
    let Some(&lhs) = ir::params(combiner).first() else { return HashMap::default() };
    for inst in ir::function_instructions(combiner) {
        if ir::opcode(inst) != Some(LLVMOpcode::LLVMStore) {
            continue;
        }
        let Some(k) = list_element(ir::operand(inst, 1), lhs) else { continue };
        let op = operator_of(ir::operand(inst, 0));
        let slot = found.entry(k).or_insert(op);
        if *slot != op {
            *slot = None;
        }
    }
    found.into_iter().filter_map(|(k, op)| Some((k, op?))).collect()
}

/// The index of the list element `address` points into: an address computed from the pointer
/// loaded from slot `k` of the list `list` (a parameter, or the local clang keeps it in).
fn list_element(address: ValueRef, list: ValueRef) -> Option<u64> {
    let mut v = address;
    for _ in 0..16 {
        match ir::opcode(v)? {
            LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast => v = ir::operand(v, 0),
            // an array's element loop: where it starts
            LLVMOpcode::LLVMPHI => v = ir::operand(v, 0),
            LLVMOpcode::LLVMLoad => {
                let slot = ir::operand(v, 0);
                let (base, k) = match ir::opcode(slot) {
                    Some(LLVMOpcode::LLVMGetElementPtr) => {
                        (ir::operand(slot, 0), ir::const_int(ir::operand(slot, ir::num_operands(slot) - 1))?)
                    }
                    _ => (slot, 0),
                };
                return holds_param(base, list).then_some(k as u64);
            }
            _ => return None,
        }
    }
    None
}

/// Whether `v` is the parameter `param`, or loaded from a local whose one store stores it.
fn holds_param(v: ValueRef, param: ValueRef) -> bool {
    if v == param {
        return true;
    }
    if ir::opcode(v) != Some(LLVMOpcode::LLVMLoad) || !ir::is_alloca(ir::operand(v, 0)) {
        return false;
    }
    let stores: Vec<ValueRef> =
        ir::users(ir::operand(v, 0)).into_iter().filter(|u| ir::opcode(*u) == Some(LLVMOpcode::LLVMStore)).collect();
    stores.len() == 1 && ir::operand(stores[0], 0) == param
}

/// The operator a combiner's stored value applies.
fn operator_of(v: ValueRef) -> Option<Operator> {
    let v = strip_casts(v);
    let op = ir::opcode(v)?;
    if ARITH.contains(&op) {
        return Some(Operator::Arith(op));
    }
    if let Some(op) = extreme_call(v) {
        return Some(op);
    }
    let (cond, t, f) = choice(v)?;
    extreme_of(cond, t, f)
}

/// `v` without integer and floating-point conversions.
fn strip_casts(mut v: ValueRef) -> ValueRef {
    for _ in 0..8 {
        match ir::opcode(v) {
            Some(LLVMOpcode::LLVMTrunc | LLVMOpcode::LLVMZExt | LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMFPTrunc | LLVMOpcode::LLVMFPExt) => {
                v = ir::operand(v, 0)
            }
            _ => return v,
        }
    }
    v
}

/// The conversions between `v` and what [`strip_casts`] returns, `v` first.
fn cast_chain(v: ValueRef) -> Vec<ValueRef> {
    let mut out = Vec::new();
    let mut x = v;
    while x != strip_casts(x) {
        out.push(x);
        x = ir::operand(x, 0);
    }
    out
}

/// A call of a max/min intrinsic or C library function.
fn extreme_call(v: ValueRef) -> Option<Operator> {
    if !ir::is_call(v) {
        return None;
    }
    let name = ir::callee_name(v);
    let base = name.strip_prefix("llvm.").map(|n| n.split('.').next().unwrap_or(n)).unwrap_or(name.as_str());
    let (max, family) = match base {
        "smax" => (true, Family::Signed),
        "smin" => (false, Family::Signed),
        "umax" => (true, Family::Unsigned),
        "umin" => (false, Family::Unsigned),
        "maxnum" | "maximum" | "fmax" | "fmaxf" | "fmaxl" => (true, Family::Float),
        "minnum" | "minimum" | "fmin" | "fminf" | "fminl" => (false, Family::Float),
        _ => return None,
    };
    (ir::call_args(v).len() == 2).then_some(Operator::Extreme { max, family })
}

/// `v` as a choice on a comparison: (the comparison, the value when it holds, the value when
/// not). A `select`, or a `phi` of two values from the two sides of one conditional branch
/// (directly, or through blocks that do nothing but compute).
fn choice(v: ValueRef) -> Option<(ValueRef, ValueRef, ValueRef)> {
    match ir::opcode(v)? {
        LLVMOpcode::LLVMSelect => Some((ir::operand(v, 0), ir::operand(v, 1), ir::operand(v, 2))),
        LLVMOpcode::LLVMPHI if ir::num_operands(v) == 2 => {
            let join = ir::block_of(v);
            let side = |k: u32| branch_side(unsafe { LLVMGetIncomingBlock(v, k) }, join);
            let ((p0, s0), (p1, s1)) = (side(0)?, side(1)?);
            if p0 != p1 || s0 == s1 {
                return None;
            }
            let cond = unsafe { LLVMGetCondition(ir::terminator(p0)) };
            let (t, f) = if s0 { (ir::operand(v, 0), ir::operand(v, 1)) } else { (ir::operand(v, 1), ir::operand(v, 0)) };
            Some((cond, t, f))
        }
        _ => None,
    }
}

/// The block whose conditional branch the edge `from -> join` is a side of, and whether it is
/// the side taken when the condition holds: `from` itself branching to `join`, or `from` with
/// one predecessor branching to it, computing nothing with an effect on the way.
fn branch_side(from: BlockRef, join: BlockRef) -> Option<(BlockRef, bool)> {
    let term = ir::terminator(from);
    if is_conditional(term) {
        let s = successor_index(term, join)?;
        return Some((from, s == 0));
    }
    if !effect_free(from) {
        return None;
    }
    let preds = ir::predecessors(ir::function_of_block(from));
    let [p] = preds.get(&from)?.as_slice() else { return None };
    let term = ir::terminator(*p);
    if !is_conditional(term) {
        return None;
    }
    Some((*p, successor_index(term, from)? == 0))
}

fn is_conditional(term: ValueRef) -> bool {
    ir::opcode(term) == Some(LLVMOpcode::LLVMBr) && unsafe { LLVMIsConditional(term) } != 0
}

/// The index of `to` among the two successors of the conditional branch `term` (None: both or
/// neither).
fn successor_index(term: ValueRef, to: BlockRef) -> Option<u32> {
    let (a, b) = unsafe { (LLVMGetSuccessor(term, 0), LLVMGetSuccessor(term, 1)) };
    match (a == to, b == to) {
        (true, false) => Some(0),
        (false, true) => Some(1),
        _ => None,
    }
}

/// Whether block `b` only computes: no store, no call other than debug and lifetime markers.
fn effect_free(b: BlockRef) -> bool {
    ir::instructions(b).into_iter().all(|i| !may_write(i))
}

fn may_write(i: ValueRef) -> bool {
    match ir::opcode(i) {
        Some(LLVMOpcode::LLVMStore | LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg | LLVMOpcode::LLVMFence) => true,
        Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) => {
            let n = ir::callee_name(i);
            !(n.starts_with("llvm.dbg.") || n.starts_with("llvm.lifetime.") || extreme_call(i).is_some() || value_function(ir::callee(i)))
        }
        _ => false,
    }
}

/// The max/min a choice makes: `t` when the comparison `cond` holds, `f` otherwise, where
/// `cond` compares the same two values.
fn extreme_of(cond: ValueRef, t: ValueRef, f: ValueRef) -> Option<Operator> {
    let (a, b) = (ir::operand(cond, 0), ir::operand(cond, 1));
    let (greater, family) = comparison(cond)?;
    // `greater`: the comparison holds when its first operand is the larger
    let max = if same_value(t, a) && same_value(f, b) {
        greater
    } else if same_value(t, b) && same_value(f, a) {
        !greater
    } else {
        return None;
    };
    Some(Operator::Extreme { max, family })
}

/// Whether comparison `cond` holds when its first operand is the larger (`>`, `>=`) or the
/// smaller, and what it compares; None for equality and other predicates.
fn comparison(cond: ValueRef) -> Option<(bool, Family)> {
    use LLVMIntPredicate::*;
    use LLVMRealPredicate::*;
    match ir::opcode(cond)? {
        LLVMOpcode::LLVMICmp => match unsafe { LLVMGetICmpPredicate(cond) } {
            LLVMIntSGT | LLVMIntSGE => Some((true, Family::Signed)),
            LLVMIntSLT | LLVMIntSLE => Some((false, Family::Signed)),
            LLVMIntUGT | LLVMIntUGE => Some((true, Family::Unsigned)),
            LLVMIntULT | LLVMIntULE => Some((false, Family::Unsigned)),
            _ => None,
        },
        LLVMOpcode::LLVMFCmp => match unsafe { LLVMGetFCmpPredicate(cond) } {
            LLVMRealOGT | LLVMRealOGE | LLVMRealUGT | LLVMRealUGE => Some((true, Family::Float)),
            LLVMRealOLT | LLVMRealOLE | LLVMRealULT | LLVMRealULE => Some((false, Family::Float)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `a` and `b` compute the same value: one value, or the same computation of the same
/// values, where two loads of one address with nothing written between them are one value.
fn same_value(a: ValueRef, b: ValueRef) -> bool {
    same_value_at(a, b, 0)
}

fn same_value_at(a: ValueRef, b: ValueRef, depth: u32) -> bool {
    if a == b {
        return true;
    }
    if depth > 12 || !ir::is_instruction(a) || !ir::is_instruction(b) || ir::opcode(a) != ir::opcode(b) {
        return false;
    }
    if unsafe { LLVMTypeOf(a) != LLVMTypeOf(b) } {
        return false;
    }
    let op = ir::opcode(a).unwrap();
    match op {
        LLVMOpcode::LLVMLoad => same_value_at(ir::operand(a, 0), ir::operand(b, 0), depth + 1) && nothing_written_between(a, b),
        LLVMOpcode::LLVMICmp if unsafe { LLVMGetICmpPredicate(a) != LLVMGetICmpPredicate(b) } => false,
        LLVMOpcode::LLVMFCmp if unsafe { LLVMGetFCmpPredicate(a) != LLVMGetFCmpPredicate(b) } => false,
        // a function of its arguments alone (a math intrinsic, `fabs`): the same call of the same
        // values is the same value
        LLVMOpcode::LLVMCall if ir::callee(a) == ir::callee(b) && value_function(ir::callee(a)) => {
            let (x, y) = (ir::call_args(a), ir::call_args(b));
            x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| same_value_at(*p, *q, depth + 1))
        }
        LLVMOpcode::LLVMCall
        | LLVMOpcode::LLVMInvoke
        | LLVMOpcode::LLVMPHI
        | LLVMOpcode::LLVMAlloca
        | LLVMOpcode::LLVMStore
        | LLVMOpcode::LLVMAtomicRMW
        | LLVMOpcode::LLVMAtomicCmpXchg => false,
        _ => {
            let n = ir::num_operands(a);
            n == ir::num_operands(b) && (0..n).all(|k| same_value_at(ir::operand(a, k), ir::operand(b, k), depth + 1))
        }
    }
}

/// Whether `f` computes its result from its arguments alone: LLVM's math and integer intrinsics,
/// and the C library's math functions (whose `errno` never changes what they return).
fn value_function(f: ValueRef) -> bool {
    if f.is_null() {
        return false;
    }
    const INTRINSICS: [&str; 20] = [
        "fabs", "sqrt", "smax", "smin", "umax", "umin", "maxnum", "minnum", "maximum", "minimum", "abs", "fmuladd", "fma", "floor", "ceil",
        "trunc", "round", "copysign", "exp", "log",
    ];
    const LIBRARY: [&str; 18] = [
        "fabs", "fabsf", "fabsl", "sqrt", "sqrtf", "fmax", "fmaxf", "fmin", "fminf", "abs", "labs", "llabs", "exp", "log", "pow", "sin",
        "cos", "floor",
    ];
    let name = ir::name(f);
    match name.strip_prefix("llvm.") {
        Some(rest) => INTRINSICS.contains(&rest.split('.').next().unwrap_or(rest)),
        None => LIBRARY.contains(&name.as_str()),
    }
}

/// Whether nothing may write memory between two loads, one of which reaches the other through
/// its block's chain of single predecessors (a few blocks at most).
fn nothing_written_between(a: ValueRef, b: ValueRef) -> bool {
    let order = |first: ValueRef, second: ValueRef| -> Option<bool> {
        let (bf, bs) = (ir::block_of(first), ir::block_of(second));
        if bf == bs {
            let (i, j) = (ir::index_in_block(first), ir::index_in_block(second));
            if i > j {
                return None;
            }
            return Some(ir::instructions(bf)[i + 1..j].iter().all(|x| !may_write(*x)));
        }
        let preds = ir::predecessors(ir::function_of_block(bs));
        let mut chain = vec![bs];
        let mut cur = bs;
        for _ in 0..4 {
            let [p] = preds.get(&cur)?.as_slice() else { return None };
            cur = *p;
            if chain.contains(&cur) {
                return None;
            }
            chain.push(cur);
            if cur == bf {
                break;
            }
        }
        if cur != bf {
            return None;
        }
        let after_first = ir::instructions(bf)[ir::index_in_block(first) + 1..].iter().all(|x| !may_write(*x));
        let middle = chain[1..chain.len() - 1].iter().all(|blk| effect_free(*blk));
        let before_second = ir::instructions(bs)[..ir::index_in_block(second)].iter().all(|x| !may_write(*x));
        Some(after_first && middle && before_second)
    };
    order(a, b).or_else(|| order(b, a)).unwrap_or(false)
}

/// What one accepted update of a private copy consists of: the instructions whose values it
/// computes from the private copy (they may be used nowhere else).
#[derive(Debug, Default)]
pub struct Update {
    pub internal: HashSet<ValueRef>,
}

/// Whether `store` (to an address of the private copy) is an update through `op`: the loads of
/// the private copy it reads (`is_private_load`) and the values it computes from them, or None.
pub fn combining_update(store: ValueRef, op: Operator, is_private_load: &dyn Fn(ValueRef) -> bool) -> Option<Update> {
    let address = ir::operand(store, 1);
    let own = |v: ValueRef| is_private_load(v) && same_value(ir::operand(v, 0), address);
    let value = ir::operand(store, 0);
    let mut u = Update::default();
    u.internal.extend(cast_chain(value));
    let core = strip_casts(value);
    let found = match op {
        Operator::Arith(opcode) => arith_update(core, opcode, &own, &mut u),
        Operator::Extreme { max, family } => {
            extreme_update(core, max, family, &own, &mut u) || conditional_store(store, max, family, &own, &mut u)
        }
    };
    found.then_some(u)
}

/// `x op e` (or `x - e` for a `+` reduction): `core` is the operation.
fn arith_update(core: ValueRef, opcode: LLVMOpcode, own: &dyn Fn(ValueRef) -> bool, u: &mut Update) -> bool {
    arith_chain(core, opcode, own, u, 0)
}

/// [`arith_update`] through a chain of the operator: `x + a + b` is `(x + a) + b`, each step an
/// application of `+` (likewise `x - a - b` for `+`, `x * a * b`): the old value may be an
/// operand of an inner operation, whose value then flows only into the outer one.
fn arith_chain(core: ValueRef, opcode: LLVMOpcode, own: &dyn Fn(ValueRef) -> bool, u: &mut Update, depth: u32) -> bool {
    let Some(got) = ir::opcode(core) else { return false };
    // `x += a * b` contracted (clang's default -ffp-contract=on): fmuladd(a, b, x)
    if opcode == LLVMOpcode::LLVMFAdd && ir::is_call(core) {
        let name = ir::callee_name(core);
        let args = ir::call_args(core);
        let contracted = (name.starts_with("llvm.fmuladd.") || name.starts_with("llvm.fma.")) && args.len() == 3;
        if contracted && (own(strip_casts(args[2])) || (depth < 8 && arith_chain(strip_casts(args[2]), opcode, own, u, depth + 1))) {
            u.internal.insert(core);
            u.internal.extend(cast_chain(args[2]));
            u.internal.insert(strip_casts(args[2]));
            return true;
        }
        return false;
    }
    let subtracts = matches!((opcode, got), (LLVMOpcode::LLVMAdd, LLVMOpcode::LLVMSub) | (LLVMOpcode::LLVMFAdd, LLVMOpcode::LLVMFSub));
    if got != opcode && !subtracts {
        return false;
    }
    // the private copy's old value: either operand of a commutative operator, the first of `-`
    let sides: &[u32] = if subtracts { &[0] } else { &[0, 1] };
    for &k in sides {
        let x = ir::operand(core, k);
        let inner = strip_casts(x);
        if own(inner) || (depth < 8 && arith_chain(inner, opcode, own, u, depth + 1)) {
            u.internal.insert(core);
            u.internal.extend(cast_chain(x));
            u.internal.insert(inner);
            return true;
        }
    }
    false
}

/// `max(x, e)` / `min(x, e)`: an intrinsic or library call, or a choice on a comparison.
fn extreme_update(core: ValueRef, max: bool, family: Family, own: &dyn Fn(ValueRef) -> bool, u: &mut Update) -> bool {
    let wanted = Operator::Extreme { max, family };
    if let Some(got) = extreme_call(core) {
        if got != wanted {
            return false;
        }
        let old = ir::call_args(core).into_iter().find(|a| own(strip_casts(*a)));
        let Some(old) = old else { return false };
        u.internal.insert(core);
        u.internal.extend(cast_chain(old));
        u.internal.insert(strip_casts(old));
        return true;
    }
    let Some((cond, t, f)) = choice(core) else { return false };
    if extreme_of(cond, t, f) != Some(wanted) {
        return false;
    }
    let operands = [t, f, ir::operand(cond, 0), ir::operand(cond, 1)];
    if !operands.iter().any(|v| own(*v)) {
        return false;
    }
    u.internal.insert(core);
    u.internal.insert(cond);
    u.internal.extend(operands.iter().copied().filter(|v| own(*v)));
    true
}

/// `if (e > x) x = e;`: the store alone (with what computes `e`) on one side of a branch on the
/// comparison of `e` and the private copy, the side where `e` wins.
fn conditional_store(store: ValueRef, max: bool, family: Family, own: &dyn Fn(ValueRef) -> bool, u: &mut Update) -> bool {
    let block = ir::block_of(store);
    let term = ir::terminator(block);
    if ir::opcode(term) != Some(LLVMOpcode::LLVMBr) || is_conditional(term) || unsafe { LLVMGetNumSuccessors(term) } != 1 {
        return false;
    }
    // nothing else in the block has an effect
    if ir::instructions(block).into_iter().any(|i| i != store && may_write(i)) {
        return false;
    }
    let preds = ir::predecessors(ir::function_of_block(block));
    let Some([p]) = preds.get(&block).map(|v| v.as_slice()) else { return false };
    let branch = ir::terminator(*p);
    // the if-then shape: the branch's other side is where the block goes
    let after = unsafe { LLVMGetSuccessor(term, 0) };
    let Some(side) = successor_index(branch, block).filter(|_| is_conditional(branch)) else { return false };
    if successor_index(branch, after) != Some(1 - side) {
        return false;
    }
    let cond = unsafe { LLVMGetCondition(branch) };
    let value = ir::operand(store, 0);
    let (a, b) = (ir::operand(cond, 0), ir::operand(cond, 1));
    let old = if own(a) {
        a
    } else if own(b) {
        b
    } else {
        return false;
    };
    let (t, f) = if side == 0 { (value, old) } else { (old, value) };
    if extreme_of(cond, t, f) != Some(Operator::Extreme { max, family }) {
        return false;
    }
    u.internal.insert(cond);
    u.internal.insert(old);
    true
}

/// The reductions of function `f`: for each `__kmpc_reduce` call, the private copies its list
/// points at, with their operators.
pub fn of(f: ValueRef) -> Vec<Reduction> {
    use crate::entry_points::Role;
    let mut out = Vec::new();
    for i in ir::function_instructions(f) {
        let Some(Role::Reduce { list, combiner }) = super::scope::role(i) else { continue };
        let args = ir::call_args(i);
        let operators = args
            .get(combiner as usize)
            .map(|c| ir::strip_to_global(*c))
            .filter(|c| ir::is_function(*c) && !ir::is_declaration(*c))
            .map(combiner_operators)
            .unwrap_or_default();
        if let Some(&l) = args.get(list as usize) {
            for (k, private) in list_entries(l) {
                out.push(Reduction { private, list: l, operator: operators.get(&k).copied() });
            }
        }
    }
    out
}

/// The private copies a reduction list points at, with their indices in the list: the values
/// stored into the list's slots.
fn list_entries(list: ValueRef) -> Vec<(u64, ValueRef)> {
    let base = super::scope::strip(Some(list));
    if !ir::is_alloca(base) {
        return Vec::new();
    }
    let index = |slot: ValueRef| match ir::opcode(slot) {
        Some(LLVMOpcode::LLVMGetElementPtr) => ir::const_int(ir::operand(slot, ir::num_operands(slot) - 1)).map(|k| k as u64),
        _ => Some(0),
    };
    let mut out = Vec::new();
    for slot in super::scope::derived_addresses(base) {
        for store in ir::users(slot).into_iter().filter(|u| ir::opcode(*u) == Some(LLVMOpcode::LLVMStore) && ir::operand(*u, 1) == slot) {
            let private = super::scope::strip(Some(ir::operand(store, 0)));
            if let (true, Some(k)) = (ir::is_alloca(private), index(slot)) {
                out.push((k, private));
            }
        }
    }
    out
}

/// One reduction of a function: a private copy, the list it is handed to the runtime in, and
/// the operator of its element of that list.
#[derive(Clone, Debug)]
pub struct Reduction {
    pub private: ValueRef,
    pub list: ValueRef,
    pub operator: Option<Operator>,
}

/// Why a reduction's private copy may make the combined result depend on the team: the
/// instruction and what it does, or None. Code every thread runs (`replicated`) may only
/// initialise the copy (one store of a constant); worksharing code may only update it through
/// the operator; the combination itself (`combine`) reads it.
pub fn private_copy_finding(r: &Reduction, scope_of: &dyn Fn(ValueRef) -> super::scope::Scope) -> Option<(ValueRef, String)> {
    use super::scope::Scope;
    let (addresses, escapes) = addresses_of(r.private, r.list);
    if let Some(at) = escapes {
        return Some((at, "it hands the address of its copy of a reduction variable to code the analysis does not follow".into()));
    }
    let in_addresses: HashSet<ValueRef> = addresses.iter().copied().collect();
    let is_private_load = |v: ValueRef| ir::opcode(v) == Some(LLVMOpcode::LLVMLoad) && in_addresses.contains(&ir::operand(v, 0));
    let (mut accounted, mut initialised) = (HashSet::default(), false);
    for &a in &addresses {
        for u in ir::users(a).into_iter().filter(|u| scope_of(*u) != Scope::Combine) {
            if ir::opcode(u) != Some(LLVMOpcode::LLVMStore) || ir::operand(u, 1) != a {
                continue;
            }
            if scope_of(u) == Scope::Replicated {
                if initialised || !ir::is_constant(ir::operand(u, 0)) {
                    return Some((u, "every thread of the team updates its copy of a reduction variable outside a worksharing construct: the combined result would count the team's threads".into()));
                }
                initialised = true;
                continue;
            }
            let Some(op) = r.operator else {
                return Some((u, "it updates its copy of a reduction variable whose combiner ompadapt does not recognise (declare reduction, && or ||): it cannot show the update is the combiner's".into()));
            };
            let Some(update) = combining_update(u, op, &is_private_load) else {
                return Some((u, format!("it updates its copy of a reduction variable by something other than the reduction's operator ({}): the combined result would depend on how the iterations are divided", op.describe())));
            };
            if let Some(leak) =
                update.internal.iter().find(|v| ir::users(**v).iter().any(|x| *x != u && !update.internal.contains(x) && !is_branch(*x)))
            {
                return Some((*leak, "it uses the partial value of its copy of a reduction variable other than to update it: it depends on how the iterations are divided".into()));
            }
            accounted.extend(update.internal);
        }
    }
    let stray = addresses
        .iter()
        .flat_map(|a| ir::users(*a))
        .find(|u| is_private_load(*u) && scope_of(*u) != Scope::Combine && !accounted.contains(u));
    stray.map(|l| (l, "it reads the partial value of its copy of a reduction variable other than to update it through the reduction's operator: it depends on how the iterations are divided".into()))
}

fn is_branch(v: ValueRef) -> bool {
    ir::opcode(v) == Some(LLVMOpcode::LLVMBr)
}

/// The addresses of a private copy: `private` and what is computed from it (element
/// addresses, casts), and the values loaded from locals that hold only such addresses (clang
/// keeps a pointer to an array section's copy in one); and the first use through which the
/// address escapes anywhere else (a call, a store into other memory), if any.
fn addresses_of(private: ValueRef, list: ValueRef) -> (Vec<ValueRef>, Option<ValueRef>) {
    let list_slots: HashSet<ValueRef> = super::scope::derived_addresses(super::scope::strip(Some(list))).into_iter().collect();
    let mut out = vec![private];
    let mut k = 0;
    while k < out.len() {
        let p = out[k];
        k += 1;
        for u in ir::users(p) {
            let push = |out: &mut Vec<ValueRef>, v: ValueRef| {
                if !out.contains(&v) {
                    out.push(v)
                }
            };
            match ir::opcode(u) {
                Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast) if ir::operand(u, 0) == p => push(&mut out, u),
                // an array copy's element loop: the merged address may point into the copy
                Some(LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect) => push(&mut out, u),
                Some(LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMICmp) => {}
                Some(LLVMOpcode::LLVMStore) if ir::operand(u, 1) == p => {}
                Some(LLVMOpcode::LLVMStore) if list_slots.contains(&ir::operand(u, 1)) => {}
                Some(LLVMOpcode::LLVMStore) => {
                    let slot = ir::operand(u, 1);
                    if !ir::is_alloca(slot) || !only_loads_and_stores(slot) {
                        return (out, Some(u));
                    }
                    for l in ir::users(slot).into_iter().filter(|l| ir::opcode(*l) == Some(LLVMOpcode::LLVMLoad)) {
                        push(&mut out, l);
                    }
                }
                Some(LLVMOpcode::LLVMCall) => {
                    let n = ir::callee_name(u);
                    let bookkeeping = n.starts_with("llvm.lifetime.") || n.starts_with("llvm.dbg.") || super::scope::role(u).is_some();
                    if !bookkeeping {
                        return (out, Some(u));
                    }
                }
                _ => return (out, Some(u)),
            }
        }
    }
    (out, None)
}

/// Whether every use of local `slot` loads from it or stores into it.
fn only_loads_and_stores(slot: ValueRef) -> bool {
    ir::users(slot).into_iter().all(|u| match ir::opcode(u) {
        Some(LLVMOpcode::LLVMLoad) => true,
        Some(LLVMOpcode::LLVMStore) => ir::operand(u, 1) == slot,
        Some(LLVMOpcode::LLVMCall) => ir::callee_name(u).starts_with("llvm.lifetime.") || ir::callee_name(u).starts_with("llvm.dbg."),
        _ => false,
    })
}
