//! Thin, raw helpers over the LLVM C API for the analyses of automatic features, which walk
//! values of every kind (instructions, arguments, constants) across functions: working on
//! `LLVMValueRef` directly keeps them short where inkwell's typed wrappers would need a
//! conversion at every step.
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::cell::RefCell;
use std::collections::VecDeque;

use crate::fast_hash::{HashMap, HashSet};
use std::rc::Rc;

use llvm_sys::core::*;
use llvm_sys::prelude::{LLVMBasicBlockRef, LLVMTypeRef, LLVMValueRef};
use llvm_sys::LLVMOpcode;

/// A value of the module being transformed (an instruction, argument, constant, function...).
pub type ValueRef = LLVMValueRef;
/// A basic block of the module being transformed.
pub type BlockRef = LLVMBasicBlockRef;

/// Per-run memo of the CFG queries, which the slicer asks many times over the same functions.
/// Keys are raw LLVM pointers: [`invalidate`] must be called whenever the IR changes.
#[derive(Default)]
struct Cache {
    position: HashMap<ValueRef, usize>,
    preds: HashMap<ValueRef, Rc<HashMap<BlockRef, Vec<BlockRef>>>>,
    domtree: HashMap<ValueRef, Rc<DomTree>>,
    between: HashMap<(ValueRef, ValueRef), Rc<Between>>,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
}

/// Forgets everything memoised about the IR (call after changing it).
pub fn invalidate() {
    CACHE.with(|c| *c.borrow_mut() = Cache::default());
}

/// Forgets what depends on instruction positions, keeping the control-flow graph's facts
/// (call after inserting or deleting instructions other than terminators).
pub fn invalidate_instructions() {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        c.position.clear();
        c.between.clear();
    });
}

/// The instructions on the paths between two points ([`between`]).
#[derive(Debug, Default)]
pub struct Between {
    pub list: Vec<ValueRef>,
    set: HashSet<ValueRef>,
}

impl Between {
    pub fn contains(&self, v: &ValueRef) -> bool {
        self.set.contains(v)
    }
}

pub fn is_instruction(v: ValueRef) -> bool {
    !v.is_null() && unsafe { !LLVMIsAInstruction(v).is_null() }
}
pub fn is_argument(v: ValueRef) -> bool {
    unsafe { !LLVMIsAArgument(v).is_null() }
}
pub fn is_constant(v: ValueRef) -> bool {
    unsafe { !LLVMIsAConstant(v).is_null() }
}
pub fn is_alloca(v: ValueRef) -> bool {
    unsafe { !LLVMIsAAllocaInst(v).is_null() }
}
pub fn is_global_variable(v: ValueRef) -> bool {
    unsafe { !LLVMIsAGlobalVariable(v).is_null() }
}
pub fn is_function(v: ValueRef) -> bool {
    unsafe { !LLVMIsAFunction(v).is_null() }
}

pub fn opcode(v: ValueRef) -> Option<LLVMOpcode> {
    is_instruction(v).then(|| unsafe { LLVMGetInstructionOpcode(v) })
}

pub fn operand(v: ValueRef, i: u32) -> ValueRef {
    unsafe { LLVMGetOperand(v, i) }
}
pub fn num_operands(v: ValueRef) -> u32 {
    unsafe { LLVMGetNumOperands(v) as u32 }
}

pub fn block_of(v: ValueRef) -> BlockRef {
    unsafe { LLVMGetInstructionParent(v) }
}
pub fn function_of_block(b: BlockRef) -> ValueRef {
    unsafe { LLVMGetBasicBlockParent(b) }
}
/// The function an instruction or argument belongs to (null for constants).
pub fn function_of(v: ValueRef) -> ValueRef {
    if is_instruction(v) {
        function_of_block(block_of(v))
    } else if is_argument(v) {
        unsafe { LLVMGetParamParent(v) }
    } else {
        std::ptr::null_mut()
    }
}

pub fn type_of(v: ValueRef) -> LLVMTypeRef {
    unsafe { LLVMTypeOf(v) }
}

/// Whether `v` is a pointer.
pub fn is_pointer(v: ValueRef) -> bool {
    unsafe { llvm_sys::core::LLVMGetTypeKind(LLVMTypeOf(v)) == llvm_sys::LLVMTypeKind::LLVMPointerTypeKind }
}

pub fn name(v: ValueRef) -> String {
    unsafe {
        let mut len = 0usize;
        let p = LLVMGetValueName2(v, &mut len);
        if p.is_null() {
            return String::new();
        }
        String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
    }
}

pub fn is_call(v: ValueRef) -> bool {
    matches!(opcode(v), Some(LLVMOpcode::LLVMCall) | Some(LLVMOpcode::LLVMInvoke))
}

/// The directly called function of a call or invoke (through no cast), or null.
pub fn callee(v: ValueRef) -> ValueRef {
    if !is_call(v) {
        return std::ptr::null_mut();
    }
    let c = unsafe { LLVMGetCalledValue(v) };
    if !c.is_null() && is_function(c) {
        c
    } else {
        std::ptr::null_mut()
    }
}

/// Name of the directly called function ("" for indirect calls and non-calls).
/// `f` applied to the name of `v` (as [`name`] gives it), without copying the name: for the
/// checks that run on every call of a function (the entry-point lookup of each instruction's
/// role), where [`name`]'s copy was most of their cost.
pub fn with_name<R>(v: ValueRef, f: impl FnOnce(&str) -> R) -> R {
    unsafe {
        let mut len = 0usize;
        let p = LLVMGetValueName2(v, &mut len);
        if p.is_null() {
            return f("");
        }
        f(&String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)))
    }
}

/// [`with_name`] of the function `v` calls directly ("" when none).
pub fn with_callee_name<R>(v: ValueRef, f: impl FnOnce(&str) -> R) -> R {
    let c = callee(v);
    if c.is_null() {
        f("")
    } else {
        with_name(c, f)
    }
}

pub fn callee_name(v: ValueRef) -> String {
    let c = callee(v);
    if c.is_null() {
        String::new()
    } else {
        name(c)
    }
}

pub fn call_args(v: ValueRef) -> Vec<ValueRef> {
    let n = unsafe { LLVMGetNumArgOperands(v) };
    (0..n).map(|i| operand(v, i)).collect()
}

pub fn is_declaration(f: ValueRef) -> bool {
    unsafe { LLVMIsDeclaration(f) != 0 }
}

pub fn params(f: ValueRef) -> Vec<ValueRef> {
    let n = unsafe { LLVMCountParams(f) };
    (0..n).map(|i| unsafe { LLVMGetParam(f, i) }).collect()
}

pub fn param_index(arg: ValueRef) -> Option<usize> {
    let f = unsafe { LLVMGetParamParent(arg) };
    params(f).iter().position(|p| *p == arg)
}

pub fn blocks(f: ValueRef) -> Vec<BlockRef> {
    let mut out = Vec::new();
    unsafe {
        let mut b = LLVMGetFirstBasicBlock(f);
        while !b.is_null() {
            out.push(b);
            b = LLVMGetNextBasicBlock(b);
        }
    }
    out
}

pub fn instructions(b: BlockRef) -> Vec<ValueRef> {
    let mut out = Vec::new();
    unsafe {
        let mut i = LLVMGetFirstInstruction(b);
        while !i.is_null() {
            out.push(i);
            i = LLVMGetNextInstruction(i);
        }
    }
    out
}

/// The instructions of `f`, block by block in layout order. One list filled by walking the
/// blocks directly: collecting each block's own list first cost twice as much (the pass asks
/// for every function's instructions many times; ~60 M instructions on LULESH's lulesh.cc).
pub fn function_instructions(f: ValueRef) -> Vec<ValueRef> {
    let mut out = Vec::new();
    unsafe {
        let mut b = LLVMGetFirstBasicBlock(f);
        while !b.is_null() {
            let mut i = LLVMGetFirstInstruction(b);
            while !i.is_null() {
                out.push(i);
                i = LLVMGetNextInstruction(i);
            }
            b = LLVMGetNextBasicBlock(b);
        }
    }
    out
}

pub fn successors(b: BlockRef) -> Vec<BlockRef> {
    unsafe {
        let t = LLVMGetBasicBlockTerminator(b);
        if t.is_null() {
            return Vec::new();
        }
        (0..LLVMGetNumSuccessors(t)).map(|i| LLVMGetSuccessor(t, i)).collect()
    }
}

/// The terminator of block `b` (null while it has none).
pub fn terminator(b: BlockRef) -> ValueRef {
    unsafe { LLVMGetBasicBlockTerminator(b) }
}

pub fn entry_block(f: ValueRef) -> BlockRef {
    unsafe { LLVMGetEntryBasicBlock(f) }
}

/// Whether nothing uses `v` (any kind of value).
pub fn unused(v: ValueRef) -> bool {
    unsafe { LLVMGetFirstUse(v) }.is_null()
}

/// Users of `v` (any kind of value).
pub fn users(v: ValueRef) -> Vec<ValueRef> {
    let mut out = Vec::new();
    unsafe {
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            out.push(LLVMGetUser(u));
            u = LLVMGetNextUse(u);
        }
    }
    out
}

/// Position of an instruction in its block.
pub fn index_in_block(v: ValueRef) -> usize {
    if let Some(i) = CACHE.with(|c| c.borrow().position.get(&v).copied()) {
        return i;
    }
    let all = instructions(block_of(v));
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        for (i, inst) in all.iter().enumerate() {
            c.position.insert(*inst, i);
        }
    });
    all.iter().position(|i| *i == v).unwrap_or(0)
}

/// Predecessor lists of the blocks of `f`.
pub fn predecessors(f: ValueRef) -> Rc<HashMap<BlockRef, Vec<BlockRef>>> {
    if let Some(p) = CACHE.with(|c| c.borrow().preds.get(&f).cloned()) {
        return p;
    }
    let mut preds: HashMap<BlockRef, Vec<BlockRef>> = HashMap::default();
    for b in blocks(f) {
        preds.entry(b).or_default();
        for s in successors(b) {
            preds.entry(s).or_default().push(b);
        }
    }
    let preds = Rc::new(preds);
    CACHE.with(|c| c.borrow_mut().preds.insert(f, preds.clone()));
    preds
}

/// Blocks reachable from `start` (inclusive) through successor edges, not entering `avoid`.
pub fn reachable_from(start: &[BlockRef], avoid: Option<BlockRef>) -> HashSet<BlockRef> {
    let mut seen = HashSet::default();
    let mut queue: VecDeque<BlockRef> = start.iter().copied().filter(|b| Some(*b) != avoid).collect();
    while let Some(b) = queue.pop_front() {
        if !seen.insert(b) {
            continue;
        }
        for s in successors(b) {
            if Some(s) != avoid && !seen.contains(&s) {
                queue.push_back(s);
            }
        }
    }
    seen
}

/// Blocks from which one of `targets` is reachable (inclusive).
pub fn reaching(f: ValueRef, targets: &[BlockRef]) -> HashSet<BlockRef> {
    let preds = predecessors(f);
    let mut seen = HashSet::default();
    let mut queue: VecDeque<BlockRef> = targets.iter().copied().collect();
    while let Some(b) = queue.pop_front() {
        if !seen.insert(b) {
            continue;
        }
        for p in preds.get(&b).into_iter().flatten() {
            if !seen.contains(p) {
                queue.push_back(*p);
            }
        }
    }
    seen
}

/// Whether block `dom` dominates block `b` in `f` (blocks unreachable from the entry are
/// dominated by everything).
pub fn block_dominates(f: ValueRef, dom: BlockRef, b: BlockRef) -> bool {
    if dom == b || dom == entry_block(f) {
        return true;
    }
    let tree = match CACHE.with(|c| c.borrow().domtree.get(&f).cloned()) {
        Some(t) => t,
        None => {
            let t = Rc::new(DomTree::new(f));
            CACHE.with(|c| c.borrow_mut().domtree.insert(f, t.clone()));
            t
        }
    };
    match (tree.number.get(&dom), tree.number.get(&b)) {
        (Some(&(dpre, dpost)), Some(&(bpre, bpost))) => dpre <= bpre && bpost <= dpost,
        // Unreachable blocks are dominated by everything; they dominate nothing reachable.
        (_, None) => true,
        (None, Some(_)) => false,
    }
}

/// The dominator tree of a function (Cooper, Harvey and Kennedy's iterative algorithm over the
/// reverse post-order), numbered by a depth-first walk so that a dominance query is two
/// comparisons.
struct DomTree {
    number: HashMap<BlockRef, (usize, usize)>,
}

impl DomTree {
    fn new(f: ValueRef) -> DomTree {
        let entry = entry_block(f);
        // Post-order of the blocks reachable from the entry (iteratively: no recursion limit).
        let mut post = Vec::new();
        let mut seen = HashSet::from_iter([entry]);
        let mut stack = vec![(entry, successors(entry), 0usize)];
        while let Some((b, succ, i)) = stack.last_mut() {
            if *i < succ.len() {
                let s = succ[*i];
                *i += 1;
                if seen.insert(s) {
                    let ss = successors(s);
                    stack.push((s, ss, 0));
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
        let order: HashMap<BlockRef, usize> = post.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let preds = predecessors(f);
        let mut idom: HashMap<BlockRef, BlockRef> = HashMap::from_iter([(entry, entry)]);
        let intersect = |idom: &HashMap<BlockRef, BlockRef>, mut a: BlockRef, mut b: BlockRef| {
            while a != b {
                while order[&a] < order[&b] {
                    a = idom[&a];
                }
                while order[&b] < order[&a] {
                    b = idom[&b];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for b in post.iter().rev().filter(|b| **b != entry) {
                let mut new: Option<BlockRef> = None;
                for p in preds.get(b).into_iter().flatten().filter(|p| idom.contains_key(p)) {
                    new = Some(match new {
                        None => *p,
                        Some(n) => intersect(&idom, *p, n),
                    });
                }
                if let Some(n) = new {
                    if idom.get(b) != Some(&n) {
                        idom.insert(*b, n);
                        changed = true;
                    }
                }
            }
        }
        let mut children: HashMap<BlockRef, Vec<BlockRef>> = HashMap::default();
        for (b, d) in &idom {
            if b != d {
                children.entry(*d).or_default().push(*b);
            }
        }
        let mut number = HashMap::default();
        let mut counter = 0usize;
        let mut stack = vec![(entry, false)];
        let mut pre: HashMap<BlockRef, usize> = HashMap::default();
        while let Some((b, done)) = stack.pop() {
            if done {
                number.insert(b, (pre[&b], counter));
                counter += 1;
                continue;
            }
            pre.insert(b, counter);
            counter += 1;
            stack.push((b, true));
            for c in children.get(&b).into_iter().flatten() {
                stack.push((*c, false));
            }
        }
        DomTree { number }
    }
}

/// Whether instruction `a` dominates instruction `b` (same function); `a` does not dominate
/// itself.
pub fn inst_dominates(a: ValueRef, b: ValueRef) -> bool {
    let (ba, bb) = (block_of(a), block_of(b));
    if ba == bb {
        return index_in_block(a) < index_in_block(b);
    }
    block_dominates(function_of_block(ba), ba, bb)
}

/// Instructions that may execute after `from` and before `to` on some path from `from` to `to`
/// in their function (both excluded); `from = None` means the function's entry.
pub fn between(from: Option<ValueRef>, to: ValueRef) -> Rc<Between> {
    let key = (from.unwrap_or(std::ptr::null_mut()), to);
    if let Some(b) = CACHE.with(|c| c.borrow().between.get(&key).cloned()) {
        return b;
    }
    let list = between_uncached(from, to);
    let set = list.iter().copied().collect();
    let b = Rc::new(Between { list, set });
    CACHE.with(|c| c.borrow_mut().between.insert(key, b.clone()));
    b
}

fn between_uncached(from: Option<ValueRef>, to: ValueRef) -> Vec<ValueRef> {
    let f = function_of(to);
    let tb = block_of(to);
    let ti = index_in_block(to);
    let mut out: Vec<ValueRef> = Vec::new();
    let mut seen: HashSet<ValueRef> = HashSet::default();
    let mut add = |v: ValueRef, out: &mut Vec<ValueRef>| {
        if Some(v) != from && v != to && seen.insert(v) {
            out.push(v);
        }
    };
    let preds = predecessors(f);
    let tb_preds = preds.get(&tb).cloned().unwrap_or_default();
    let Some(a) = from else {
        let fwd = reachable_from(&[entry_block(f)], None);
        if !fwd.contains(&tb) {
            return out;
        }
        let bwd = reaching(f, &tb_preds);
        for b in blocks(f) {
            if fwd.contains(&b) && bwd.contains(&b) {
                for i in instructions(b) {
                    add(i, &mut out);
                }
            }
        }
        for i in &instructions(tb)[..ti] {
            add(*i, &mut out);
        }
        return out;
    };
    // Paths from `a` to `to` that do not execute `a` again (what `to` sees comes from the
    // latest execution of `a`): they never re-enter a's block, unless `to` lies in it before
    // `a` (entering the block from the top reaches `to` first).
    let (ab, ai) = (block_of(a), index_in_block(a));
    if ab == tb && ai < ti {
        for i in &instructions(ab)[ai + 1..ti] {
            add(*i, &mut out);
        }
    }
    let fwd = reachable_from(&successors(ab), Some(ab));
    let reaches = if tb == ab { ti < ai && tb_preds.iter().any(|p| *p == ab || fwd.contains(p)) } else { fwd.contains(&tb) };
    if !reaches {
        return out;
    }
    for i in &instructions(ab)[ai + 1..] {
        add(*i, &mut out);
    }
    let targets: Vec<BlockRef> = tb_preds.iter().copied().filter(|p| *p != ab).collect();
    let bwd = reaching_avoiding(&preds, &targets, ab);
    for b in blocks(f) {
        if b != ab && fwd.contains(&b) && bwd.contains(&b) {
            for i in instructions(b) {
                add(i, &mut out);
            }
        }
    }
    for i in &instructions(tb)[..ti] {
        add(*i, &mut out);
    }
    out
}

/// Blocks from which one of `targets` is reachable without entering `avoid` (inclusive).
fn reaching_avoiding(preds: &HashMap<BlockRef, Vec<BlockRef>>, targets: &[BlockRef], avoid: BlockRef) -> HashSet<BlockRef> {
    let mut seen = HashSet::default();
    let mut queue: VecDeque<BlockRef> = targets.iter().copied().filter(|b| *b != avoid).collect();
    while let Some(b) = queue.pop_front() {
        if !seen.insert(b) {
            continue;
        }
        for p in preds.get(&b).into_iter().flatten() {
            if *p != avoid && !seen.contains(p) {
                queue.push_back(*p);
            }
        }
    }
    seen
}

/// Whether `b` lies on a cycle of its function.
pub fn in_cycle(b: BlockRef) -> bool {
    reachable_from(&successors(b), None).contains(&b)
}

/// Whether `to` can be reached from `from` (same function) without executing `avoid`.
pub fn reaches_avoiding(from: ValueRef, to: ValueRef, avoid: ValueRef) -> bool {
    let (fb, tb, ab) = (block_of(from), block_of(to), block_of(avoid));
    let fi = index_in_block(from);
    if fb == tb && fi < index_in_block(to) && !(ab == fb && index_in_block(avoid) > fi && index_in_block(avoid) < index_in_block(to)) {
        return true;
    }
    if ab == fb && index_in_block(avoid) > fi {
        return false;
    }
    let fwd = reachable_from(&successors(fb), Some(ab));
    if fwd.contains(&tb) {
        return true;
    }
    // `to` in avoid's block before `avoid`.
    ab == tb && index_in_block(to) < index_in_block(avoid) && reachable_from(&successors(fb), None).contains(&tb)
}

/// Intrinsic id of a called function (0 when not an intrinsic).
pub fn intrinsic_id(f: ValueRef) -> u32 {
    if f.is_null() {
        0
    } else {
        unsafe { LLVMGetIntrinsicID(f) }
    }
}

/// The integer value of a constant integer, sign-extended.
pub fn const_int(v: ValueRef) -> Option<i64> {
    unsafe { (!LLVMIsAConstantInt(v).is_null()).then(|| LLVMConstIntGetSExtValue(v)) }
}

/// Strips constant-expression casts and GEPs of zero offset down to a global.
pub fn strip_to_global(v: ValueRef) -> ValueRef {
    let mut v = v;
    for _ in 0..8 {
        unsafe {
            if !LLVMIsAConstantExpr(v).is_null() {
                match LLVMGetConstOpcode(v) {
                    LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast | LLVMOpcode::LLVMGetElementPtr => {
                        v = LLVMGetOperand(v, 0);
                        continue;
                    }
                    _ => {}
                }
            }
        }
        break;
    }
    v
}

/// The bytes of a constant C string global (without the trailing NUL).
pub fn c_string(v: ValueRef) -> Option<String> {
    let g = strip_to_global(v);
    if !is_global_variable(g) {
        return None;
    }
    unsafe {
        let init = LLVMGetInitializer(g);
        if init.is_null() || LLVMIsAConstantDataSequential(init).is_null() {
            return None;
        }
        let mut len = 0usize;
        let p = LLVMGetAsString(init, &mut len);
        if p.is_null() {
            return None;
        }
        let bytes = std::slice::from_raw_parts(p as *const u8, len);
        let bytes = bytes.split(|&b| b == 0).next().unwrap_or(&[]);
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// The first instruction after `call`, in breadth-first block order, that satisfies `pred`.
pub fn first_after(call: ValueRef, mut pred: impl FnMut(ValueRef) -> bool) -> Option<ValueRef> {
    let b = block_of(call);
    let idx = index_in_block(call);
    if let Some(i) = instructions(b)[idx + 1..].iter().copied().find(|i| pred(*i)) {
        return Some(i);
    }
    let mut seen = HashSet::from_iter([b]);
    let mut queue: VecDeque<_> = successors(b).into();
    while let Some(x) = queue.pop_front() {
        if !seen.insert(x) {
            continue;
        }
        if let Some(i) = instructions(x).into_iter().find(|i| pred(*i)) {
            return Some(i);
        }
        queue.extend(successors(x));
    }
    None
}

/// The functions defined in the module that `roots` run: the roots and every function their code
/// calls or takes the address of, transitively (declarations and non-functions left out).
pub fn reachable_functions(mut queue: Vec<ValueRef>) -> HashSet<ValueRef> {
    let mut seen = HashSet::default();
    while let Some(f) = queue.pop() {
        if !is_function(f) || is_declaration(f) || !seen.insert(f) {
            continue;
        }
        for i in function_instructions(f) {
            for k in 0..num_operands(i) {
                let op = strip_to_global(operand(i, k));
                if is_function(op) {
                    queue.push(op);
                }
            }
        }
    }
    seen
}

/// `file:line` of an instruction's debug location, if it has one.
pub fn debug_location(v: ValueRef) -> Option<String> {
    use llvm_sys::debuginfo::*;
    unsafe {
        let loc = LLVMInstructionGetDebugLoc(v);
        if loc.is_null() {
            return None;
        }
        let line = LLVMDILocationGetLine(loc);
        let scope = LLVMDILocationGetScope(loc);
        let file = if scope.is_null() { std::ptr::null_mut() } else { LLVMDIScopeGetFile(scope) };
        let name = if file.is_null() {
            String::new()
        } else {
            let mut len = 0u32;
            let p = LLVMDIFileGetFilename(file, &mut len);
            if p.is_null() {
                String::new()
            } else {
                String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize)).into_owned()
            }
        };
        Some(format!("{}:{line}", if name.is_empty() { "?" } else { &name }))
    }
}

/// Replaces the marker call's result by `k` and deletes the call (an `invoke` becomes a branch
/// to its normal destination).
pub fn replace_call(call: ValueRef, k: i64) {
    unsafe {
        let ty = LLVMTypeOf(call);
        if LLVMGetTypeKind(ty) == llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind {
            LLVMReplaceAllUsesWith(call, LLVMConstInt(ty, k as u64, 1));
        } else if LLVMGetTypeKind(ty) != llvm_sys::LLVMTypeKind::LLVMVoidTypeKind {
            LLVMReplaceAllUsesWith(call, LLVMGetPoison(ty));
        }
        if opcode(call) == Some(LLVMOpcode::LLVMInvoke) {
            let block = block_of(call);
            let (normal, unwind) = (LLVMGetNormalDest(call), LLVMGetUnwindDest(call));
            let builder = LLVMCreateBuilderInContext(LLVMGetTypeContext(ty));
            LLVMPositionBuilderBefore(builder, call);
            LLVMBuildBr(builder, normal);
            LLVMDisposeBuilder(builder);
            if unwind != normal {
                if let (Some(u), Some(bb)) = (inkwell::basic_block::BasicBlock::new(unwind), inkwell::basic_block::BasicBlock::new(block)) {
                    crate::cfg::remove_phi_incoming(u, bb);
                }
            }
        }
        LLVMInstructionEraseFromParent(call);
    }
}

/// Adds `g` to the list `list` (`llvm.used`: also kept by the linker; `llvm.compiler.used`).
pub fn add_to_used_list(m: llvm_sys::prelude::LLVMModuleRef, g: ValueRef, list: &std::ffi::CStr) {
    unsafe {
        use llvm_sys::core::*;
        let c = LLVMGetModuleContext(m);
        let ptr = LLVMPointerTypeInContext(c, 0);
        let old = LLVMGetNamedGlobal(m, list.as_ptr());
        let mut elements: Vec<ValueRef> = Vec::new();
        if !old.is_null() {
            let init = LLVMGetInitializer(old);
            if !init.is_null() {
                elements.extend((0..LLVMGetNumOperands(init) as u32).map(|k| LLVMGetOperand(init, k)));
            }
            LLVMDeleteGlobal(old);
        }
        elements.push(g);
        let array = LLVMConstArray2(ptr, elements.as_mut_ptr(), elements.len() as u64);
        let used = LLVMAddGlobal(m, LLVMTypeOf(array), list.as_ptr());
        LLVMSetInitializer(used, array);
        LLVMSetLinkage(used, llvm_sys::LLVMLinkage::LLVMAppendingLinkage);
        LLVMSetSection(used, c"llvm.metadata".as_ptr());
    }
}
