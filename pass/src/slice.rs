//! Backward slicing of a value the region computes (a loop bound, a map size) to the marker
//! that precedes the region, the method of Apollo's LLVM pass: follow the value's operands back
//! through the outlined functions' parameters to the arguments of the calls that enter them,
//! through loads to the store that reaches them, until everything is available at the marker
//! (constants, the host function's arguments and values defined before the marker); then
//! rebuild the computation there.
//!
//! Soundness: a load is only replaced by what an earlier store wrote, or re-executed at the
//! marker, when nothing on any path between the two points may write that memory
//! ([`crate::memory::may_write`]): otherwise there is no slice, and the caller reports why.
//! Rebuilt instructions lose their poison-generating flags, and divisions by a value that may be
//! zero are made safe, so evaluating them earlier than the program would never traps.
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use crate::fast_hash::HashMap;
use std::rc::Rc;

use llvm_sys::core::*;
use llvm_sys::debuginfo::LLVMInstructionSetDebugLoc;
use llvm_sys::prelude::{LLVMBuilderRef, LLVMTypeRef};
use llvm_sys::target::LLVMTargetDataRef;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};

use crate::ir::{self, ValueRef};
use crate::memory::{self, Addr, Base, Escapes};
use crate::worksharing::{init_kind, Bounds, Frame};

/// A computation to rebuild at the marker.
#[derive(Debug)]
pub enum Expr {
    /// A value available at the marker (a constant, an argument, an earlier instruction).
    Avail(ValueRef),
    /// A copy of `inst` with its operands replaced.
    Clone { inst: ValueRef, ops: Vec<Rc<Expr>> },
    /// A load, at the marker, of `ty` from `addr`.
    Load { ty: LLVMTypeRef, addr: Rc<Expr> },
    /// `base + offset` bytes.
    Offset { base: Rc<Expr>, offset: i64 },
    /// A conversion of `arg` to `ty` (trunc, zext, inttoptr, ptrtoint, bitcast).
    Convert { op: LLVMOpcode, ty: LLVMTypeRef, arg: Rc<Expr> },
    /// The (wrapping) sum of two integers of one type.
    Sum { lhs: Rc<Expr>, rhs: Rc<Expr> },
}

/// Why there is no slice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoSlice {
    /// The bounds come from the chunk an enclosing `distribute` hands out: this loop is part
    /// of that one (combined `distribute parallel for`).
    ChunkOfOuterLoop,
    /// Anything else, with the reason in words.
    Because(String),
}

pub type Sliced = Result<Rc<Expr>, NoSlice>;

pub fn no<T>(why: impl Into<String>) -> Result<T, NoSlice> {
    Err(NoSlice::Because(why.into()))
}

pub struct Slicer<'a> {
    pub data_layout: LLVMTargetDataRef,
    pub marker: ValueRef,
    pub frames: &'a [Frame],
    /// The last point of the chain: the init call of the loop, or the launch.
    pub final_point: ValueRef,
    /// The region's launch: its own effects come after it has read its arguments.
    pub launch: Option<ValueRef>,
    esc: Escapes,
    memo: HashMap<(ValueRef, usize), Sliced>,
}

impl<'a> Slicer<'a> {
    pub fn new(
        data_layout: LLVMTargetDataRef,
        marker: ValueRef,
        frames: &'a [Frame],
        final_point: ValueRef,
        launch: Option<ValueRef>,
    ) -> Self {
        Slicer { data_layout, marker, frames, final_point, launch, esc: Escapes::default(), memo: HashMap::default() }
    }

    /// The point in frame `j` where control leaves for frame `j + 1` (or the final point).
    fn point(&self, j: usize) -> ValueRef {
        if j + 1 < self.frames.len() {
            self.frames[j + 1].call.expect("inner frames are entered by a call")
        } else {
            self.final_point
        }
    }

    /// The value `v` of frame `k` has at that frame's point, as a computation at the marker.
    pub fn slice(&mut self, v: ValueRef, k: usize) -> Sliced {
        if let Some(r) = self.memo.get(&(v, k)) {
            return r.clone();
        }
        let r = self.slice_uncached(v, k);
        self.memo.insert((v, k), r.clone());
        r
    }

    fn slice_uncached(&mut self, v: ValueRef, k: usize) -> Sliced {
        if ir::is_constant(v) {
            return Ok(Rc::new(Expr::Avail(v)));
        }
        let f = self.frames[k].function;
        if ir::is_argument(v) {
            if ir::function_of(v) != f {
                return no("a value of another function");
            }
            if k == 0 {
                return Ok(Rc::new(Expr::Avail(v)));
            }
            let idx = ir::param_index(v).unwrap_or(usize::MAX);
            return match self.frames[k].args.get(idx).copied().flatten() {
                Some(actual) => self.slice(actual, k - 1),
                None => no("a thread id of the OpenMP runtime"),
            };
        }
        if !ir::is_instruction(v) || ir::function_of(v) != f {
            return no("a value the pass cannot follow");
        }
        if k == 0 {
            if v == self.marker {
                return no("the marker's own result");
            }
            if ir::inst_dominates(v, self.marker) {
                return Ok(Rc::new(Expr::Avail(v)));
            }
        }
        let op = ir::opcode(v).expect("an instruction");
        use LLVMOpcode::*;
        match op {
            LLVMLoad => {
                let ty = ir::type_of(v);
                let addr = ir::operand(v, 0);
                self.slice_memory(addr, ty, v, k, Some(v))
            }
            LLVMPHI => {
                let n = unsafe { LLVMCountIncoming(v) };
                let first = unsafe { LLVMGetIncomingValue(v, 0) };
                if n > 0 && (1..n).all(|i| unsafe { LLVMGetIncomingValue(v, i) } == first) {
                    self.slice(first, k)
                } else {
                    no("it depends on the path taken (a phi)")
                }
            }
            LLVMCall => {
                let name = ir::callee_name(v);
                let pure = ["llvm.smax.", "llvm.smin.", "llvm.umax.", "llvm.umin.", "llvm.abs."].iter().any(|p| name.starts_with(p));
                if !pure {
                    let what = if name.is_empty() { "an indirect call".to_string() } else { format!("a call of '{name}'") };
                    return no(format!("it is computed by {what}"));
                }
                let n = ir::num_operands(v);
                let mut ops = Vec::new();
                for i in 0..n {
                    let o = ir::operand(v, i);
                    ops.push(if i + 1 == n { Rc::new(Expr::Avail(o)) } else { self.slice(o, k)? });
                }
                Ok(Rc::new(Expr::Clone { inst: v, ops }))
            }
            LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr
            | LLVMXor | LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMFNeg | LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI
            | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP | LLVMFPTrunc | LLVMFPExt | LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast
            | LLVMAddrSpaceCast | LLVMICmp | LLVMFCmp | LLVMSelect | LLVMGetElementPtr | LLVMFreeze => {
                let mut ops = Vec::new();
                for i in 0..ir::num_operands(v) {
                    ops.push(self.slice(ir::operand(v, i), k)?);
                }
                Ok(Rc::new(Expr::Clone { inst: v, ops }))
            }
            LLVMAlloca => no("it is the address of a local variable of the region"),
            _ => no(format!("it is computed by an instruction the pass does not rebuild ({op:?})")),
        }
    }

    /// The `ty` value at `addr_v` (a pointer of frame `k`) at `point` in frame `k`.
    /// `load`: the load being sliced, if any (a virtual load otherwise: an init call's bound).
    pub fn slice_memory(&mut self, addr_v: ValueRef, ty: LLVMTypeRef, point: ValueRef, k: usize, load: Option<ValueRef>) -> Sliced {
        let (addr, j) = self.provenance(addr_v, k);
        self.slice_object(addr, j, Some(addr_v), ty, point, k, load)
    }

    /// As [`Self::slice_memory`], for an address already resolved to frame `j`.
    #[allow(clippy::too_many_arguments)]
    pub fn slice_object(
        &mut self,
        addr: Addr,
        j: usize,
        addr_v: Option<ValueRef>,
        ty: LLVMTypeRef,
        point: ValueRef,
        k: usize,
        load: Option<ValueRef>,
    ) -> Sliced {
        let size = memory::store_size(self.data_layout, ty);
        let at = |s: &Self, i: usize| if i == k { point } else { s.point(i) };
        match addr.base {
            Base::Alloca(x) => {
                if ir::function_of(x) != self.frames[j].function {
                    return no("a local variable of a function outside the region's call chain");
                }
                // Deeper frames receive the variable by pointer: nothing there may write it.
                for i in j + 1..=k {
                    let p = at(self, i);
                    if let Some(w) = ir::between(None, p).list.iter().copied().find(|w| self.writes(*w, addr, Some(size), false)) {
                        return no(format!("{} may be written before the loop starts ({})", describe(x), what(w)));
                    }
                }
                let pj = at(self, j);
                if j == 0 {
                    // Not written between the marker and the point: read it at the marker.
                    let after_marker = ir::between(Some(self.marker), pj);
                    let written_after = after_marker.list.iter().any(|w| self.writes(*w, addr, Some(size), false));
                    if let (Some(off), false, true) = (addr.offset, written_after, ir::inst_dominates(x, self.marker)) {
                        if ir::users(x).into_iter().any(|w| writes_bound_of_init(self.data_layout, w, x)) {
                            return Err(NoSlice::ChunkOfOuterLoop);
                        }
                        return Ok(Rc::new(Expr::Load { ty, addr: offset(Rc::new(Expr::Avail(x)), off) }));
                    }
                }
                if let Some(s) = self.reaching_store(addr, size, pj)? {
                    return self.stored_value(s, addr, ty, j);
                }
                no(format!("no single store to {} reaches the region", describe(x)))
            }
            Base::Global(g) => {
                let constant = unsafe { LLVMIsGlobalConstant(g) != 0 && !LLVMGetInitializer(g).is_null() };
                if !constant {
                    self.check_unwritten(addr, size, k, point, true)?;
                }
                let a = match (addr.offset, j == k, addr_v) {
                    (_, true, Some(v)) => self.slice(v, k)?,
                    (Some(off), _, _) => offset(Rc::new(Expr::Avail(g)), off),
                    _ => return no("the address of a global is not a constant"),
                };
                Ok(Rc::new(Expr::Load { ty, addr: a }))
            }
            Base::Unknown(b) => {
                // A pointer from outside the region's functions cannot point into their locals.
                let outside = matches!(self.slice(b, j).as_deref(), Ok(Expr::Avail(p)) if ir::is_argument(*p) || ir::is_constant(*p));
                self.check_unwritten(addr, size, k, point, outside)?;
                let Some(l) = load else {
                    return no("an address the pass cannot follow");
                };
                // Read at the marker only what the region reads whenever its loop runs.
                let safe = if k == 0 {
                    !ir::reaches_avoiding(self.marker, self.point(0), l)
                } else {
                    ir::inst_dominates(l, self.point(k)) || l == self.point(k)
                };
                if !safe {
                    return no("it is read through a pointer only on some paths of the region");
                }
                let a = self.slice(addr_v.expect("a load has an address"), k)?;
                Ok(Rc::new(Expr::Load { ty, addr: a }))
            }
        }
    }

    /// The store (or memcpy) whose value an alloca-based address holds at `point`: the one
    /// writer that dominates `point` with no other writer on a path in between.
    fn reaching_store(&mut self, addr: Addr, size: i64, point: ValueRef) -> Result<Option<ValueRef>, NoSlice> {
        let Base::Alloca(x) = addr.base else {
            return Ok(None);
        };
        // In the marker's function, when the marker is in no cycle, a store after it that
        // dominates the point hides everything before the marker: look there first (a large
        // function with many regions is then not scanned from its entry for each).
        if ir::function_of(point) == ir::function_of(self.marker) && !ir::in_cycle(ir::block_of(self.marker)) {
            let after: Vec<ValueRef> =
                ir::between(Some(self.marker), point).list.iter().copied().filter(|w| self.writes(*w, addr, Some(size), false)).collect();
            if after.iter().any(|w| writes_bound_of_init(self.data_layout, *w, x)) {
                return Err(NoSlice::ChunkOfOuterLoop);
            }
            let found = after.iter().copied().find(|s| {
                (ir::opcode(*s) == Some(LLVMOpcode::LLVMStore) || memory::mem_intrinsic_dest(*s).is_some())
                    && ir::inst_dominates(*s, point)
                    && {
                        let later = ir::between(Some(*s), point);
                        after.iter().all(|w| w == s || !later.contains(w))
                    }
            });
            if found.is_some() {
                return Ok(found);
            }
        }
        let writers: Vec<ValueRef> =
            ir::between(None, point).list.iter().copied().filter(|w| self.writes(*w, addr, Some(size), false)).collect();
        if writers.iter().any(|w| writes_bound_of_init(self.data_layout, *w, x)) {
            return Err(NoSlice::ChunkOfOuterLoop);
        }
        Ok(writers.iter().copied().find(|s| {
            (ir::opcode(*s) == Some(LLVMOpcode::LLVMStore) || memory::mem_intrinsic_dest(*s).is_some())
                && ir::inst_dominates(*s, point)
                && {
                    let after = ir::between(Some(*s), point);
                    writers.iter().all(|w| w == s || !after.contains(w))
                }
        }))
    }

    /// The value the last store to `addr` (an alloca-based address of the marker's function)
    /// before `point` wrote, unsliced: for constants the pass reads (a descriptor, map arrays).
    pub fn reaching_stored_value(&mut self, addr: Addr, ty: LLVMTypeRef, point: ValueRef) -> Option<ValueRef> {
        let size = memory::store_size(self.data_layout, ty);
        let s = self.reaching_store(addr, size, point).ok()??;
        (ir::opcode(s) == Some(LLVMOpcode::LLVMStore)
            && memory::decompose(self.data_layout, ir::operand(s, 1)).offset == addr.offset
            && ir::type_of(ir::operand(s, 0)) == ty)
            .then(|| ir::operand(s, 0))
    }

    /// The object a pointer of frame `k` points to: through parameters to the caller's
    /// arguments, and through loads of pointers from stack slots to what was stored there.
    pub fn provenance(&mut self, v: ValueRef, k: usize) -> (Addr, usize) {
        let mut addr = memory::decompose(self.data_layout, v);
        let mut j = k;
        for _ in 0..32 {
            let Base::Unknown(b) = addr.base else { break };
            let (next, nj) = if ir::is_argument(b) && j > 0 {
                let idx = ir::param_index(b).unwrap_or(usize::MAX);
                match self.frames[j].args.get(idx).copied().flatten() {
                    Some(actual) => (actual, j - 1),
                    None => break,
                }
            } else if ir::opcode(b) == Some(LLVMOpcode::LLVMLoad) && ir::function_of(b) == self.frames[j].function {
                // A pointer loaded from a stack slot (of this frame, or of a caller's through a
                // reference parameter): the pointer stored there.
                let size = memory::store_size(self.data_layout, ir::type_of(b));
                let (p, pj) = self.provenance(ir::operand(b, 0), j);
                match self.stored_pointer(p, size, b, j, pj) {
                    Some(v) => (v, pj),
                    None => break,
                }
            } else {
                break;
            };
            let outer = memory::decompose(self.data_layout, next);
            addr = Addr {
                base: outer.base,
                offset: match (addr.offset, outer.offset) {
                    (Some(a), Some(b)) => Some(a + b),
                    _ => None,
                },
            };
            j = nj;
        }
        (addr, j)
    }

    /// The value last stored at `p` (an alloca of frame `pj`) before `point` (in frame `j`),
    /// when nothing in between may have changed it.
    fn stored_pointer(&mut self, p: Addr, size: i64, point: ValueRef, j: usize, pj: usize) -> Option<ValueRef> {
        let Base::Alloca(x) = p.base else { return None };
        if ir::function_of(x) != self.frames[pj].function {
            return None;
        }
        for i in pj + 1..=j {
            let pi = if i == j { point } else { self.point(i) };
            if ir::between(None, pi).list.iter().any(|w| self.writes(*w, p, Some(size), false)) {
                return None;
            }
        }
        let ppoint = if pj == j { point } else { self.point(pj) };
        let mut s = self.reaching_store(p, size, ppoint).ok().flatten();
        if s.is_none() && pj == 0 && !ir::between(Some(self.marker), ppoint).list.iter().any(|w| self.writes(*w, p, Some(size), false)) {
            s = self.reaching_store(p, size, self.marker).ok().flatten();
        }
        let s = s?;
        (ir::opcode(s) == Some(LLVMOpcode::LLVMStore) && memory::decompose(self.data_layout, ir::operand(s, 1)).offset == p.offset)
            .then(|| ir::operand(s, 0))
    }

    fn writes(&mut self, w: ValueRef, addr: Addr, size: Option<i64>, outside: bool) -> bool {
        Some(w) != self.launch && memory::may_write(self.data_layout, &mut self.esc, w, addr, size, outside)
    }

    /// Nothing between the marker and `point` (in frame `k`) may write the object.
    fn check_unwritten(&mut self, addr: Addr, size: i64, k: usize, point: ValueRef, outside: bool) -> Result<(), NoSlice> {
        for i in 0..=k {
            let p = if i == k { point } else { self.point(i) };
            let from = if i == 0 { Some(self.marker) } else { None };
            if let Some(w) = ir::between(from, p).list.iter().copied().find(|w| self.writes(*w, addr, Some(size), outside)) {
                let obj = match addr.base {
                    Base::Global(g) => format!("global '{}'", ir::name(g)),
                    _ => "memory read through a pointer".to_string(),
                };
                return no(format!("{obj} may be written between the marker and the launch ({})", what(w)));
            }
        }
        Ok(())
    }

    /// The value store or memcpy `s` leaves at `addr` (as `ty`).
    fn stored_value(&mut self, s: ValueRef, addr: Addr, ty: LLVMTypeRef, j: usize) -> Sliced {
        let want = memory::store_size(self.data_layout, ty);
        if let Some((dest, _)) = memory::mem_intrinsic_dest(s) {
            let d = memory::decompose(self.data_layout, dest);
            if !ir::callee_name(s).starts_with("llvm.memcpy") {
                return no("it is set by a memset or memmove");
            }
            let src = memory::decompose(self.data_layout, ir::call_args(s)[1]);
            if let (Base::Global(g), Some(so), Some(doff), Some(off)) = (src.base, src.offset, d.offset, addr.offset) {
                if let Some(c) = constant_at(self.data_layout, g, so + off - doff, ty) {
                    return Ok(Rc::new(Expr::Avail(c)));
                }
            }
            return no("it is copied from memory the pass cannot read");
        }
        let value = ir::operand(s, 0);
        let at = memory::decompose(self.data_layout, ir::operand(s, 1));
        if at.offset != addr.offset {
            return no("it is written in parts");
        }
        let vt = ir::type_of(value);
        let have = memory::store_size(self.data_layout, vt);
        let inner = self.slice(value, j)?;
        if vt == ty {
            return Ok(inner);
        }
        let (vk, tk) = unsafe { (LLVMGetTypeKind(vt), LLVMGetTypeKind(ty)) };
        use LLVMTypeKind::*;
        let op = match (vk, tk) {
            (LLVMIntegerTypeKind, LLVMIntegerTypeKind) if have > want => LLVMOpcode::LLVMTrunc,
            // Wider than what was stored: only the stored bytes are known, and clang's
            // by-value captures only ever use those.
            (LLVMIntegerTypeKind, LLVMIntegerTypeKind) => LLVMOpcode::LLVMZExt,
            (LLVMIntegerTypeKind, LLVMPointerTypeKind) if have == want => LLVMOpcode::LLVMIntToPtr,
            (LLVMPointerTypeKind, LLVMIntegerTypeKind) if have == want => LLVMOpcode::LLVMPtrToInt,
            _ if have == want => LLVMOpcode::LLVMBitCast,
            _ => return no("it is stored as another type"),
        };
        Ok(Rc::new(Expr::Convert { op, ty, arg: inner }))
    }
}

fn offset(base: Rc<Expr>, off: i64) -> Rc<Expr> {
    if off == 0 {
        base
    } else {
        Rc::new(Expr::Offset { base, offset: off })
    }
}

fn describe(alloca: ValueRef) -> String {
    let n = ir::name(alloca);
    if n.is_empty() {
        "a local variable".into()
    } else {
        format!("local '{n}'")
    }
}

/// A short description of a writing instruction for remarks.
pub fn what(w: ValueRef) -> String {
    let loc = ir::debug_location(w).map(|l| format!(" at {l}")).unwrap_or_default();
    match ir::opcode(w) {
        Some(LLVMOpcode::LLVMStore) => format!("a store{loc}"),
        _ if ir::is_call(w) => {
            let n = ir::callee_name(w);
            if n.is_empty() {
                format!("an indirect call{loc}")
            } else {
                format!("a call of '{n}'{loc}")
            }
        }
        _ => format!("an instruction{loc}"),
    }
}

/// Whether `w` is a worksharing init that writes its lower or upper bound into `alloca`.
fn writes_bound_of_init(data_layout: LLVMTargetDataRef, w: ValueRef, alloca: ValueRef) -> bool {
    let Some((Bounds::ByPointer { lower, upper, .. }, _, _)) = init_kind(w) else {
        return false;
    };
    let args = ir::call_args(w);
    [lower, upper].iter().any(|i| memory::decompose(data_layout, args[*i as usize]).base == Base::Alloca(alloca))
}

/// The element of constant global `g`'s initializer at byte `off`, of type `ty`.
pub fn constant_at(data_layout: LLVMTargetDataRef, g: ValueRef, off: i64, ty: LLVMTypeRef) -> Option<ValueRef> {
    unsafe {
        if LLVMIsGlobalConstant(g) == 0 {
            return None;
        }
        let init = LLVMGetInitializer(g);
        if init.is_null() {
            return None;
        }
        let size = memory::store_size(data_layout, ty);
        if !LLVMIsAConstantAggregateZero(init).is_null() {
            return Some(LLVMConstNull(ty));
        }
        let it = LLVMTypeOf(init);
        if LLVMGetTypeKind(it) != LLVMTypeKind::LLVMArrayTypeKind {
            return (off == 0 && it == ty).then_some(init);
        }
        let et = LLVMGetElementType(it);
        let es = llvm_sys::target::LLVMABISizeOfType(data_layout, et) as i64;
        if et != ty || es != size || off < 0 || off % es != 0 {
            return None;
        }
        let idx = (off / es) as u32;
        if idx >= LLVMGetArrayLength2(it) as u32 {
            return None;
        }
        let e = LLVMGetAggregateElement(init, idx);
        (!e.is_null()).then_some(e)
    }
}

/// Emits `expr` with `builder` (positioned at the marker); `loc`: the debug location to give
/// the new instructions (the marker's), or null.
pub fn emit(expr: &Rc<Expr>, builder: LLVMBuilderRef, data_layout: LLVMTargetDataRef, loc: llvm_sys::prelude::LLVMMetadataRef) -> ValueRef {
    let _ = data_layout;
    let v = unsafe {
        match &**expr {
            Expr::Avail(v) => return *v,
            Expr::Load { ty, addr } => {
                let a = emit(addr, builder, data_layout, loc);
                let l = LLVMBuildLoad2(builder, *ty, a, c"ompadapt.sliced".as_ptr());
                // The original access's alignment is not known here (a packed field may be
                // misaligned): claim none.
                LLVMSetAlignment(l, 1);
                l
            }
            Expr::Offset { base, offset } => {
                let b = emit(base, builder, data_layout, loc);
                let ctx = LLVMGetTypeContext(ir::type_of(b));
                let i8t = LLVMInt8TypeInContext(ctx);
                let mut idx = [LLVMConstInt(LLVMInt64TypeInContext(ctx), *offset as u64, 1)];
                LLVMBuildGEP2(builder, i8t, b, idx.as_mut_ptr(), 1, c"".as_ptr())
            }
            Expr::Sum { lhs, rhs } => {
                let (l, r) = (emit(lhs, builder, data_layout, loc), emit(rhs, builder, data_layout, loc));
                LLVMBuildAdd(builder, l, r, c"".as_ptr())
            }
            Expr::Convert { op, ty, arg } => {
                let a = emit(arg, builder, data_layout, loc);
                LLVMBuildCast(builder, *op, a, *ty, c"".as_ptr())
            }
            Expr::Clone { inst, ops } => {
                let vals: Vec<ValueRef> = ops.iter().map(|o| emit(o, builder, data_layout, loc)).collect();
                let op = LLVMGetInstructionOpcode(*inst);
                use LLVMOpcode::*;
                if matches!(op, LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem) && ir::const_int(vals[1]).is_none_or(|d| d == 0 || d == -1) {
                    safe_division(builder, op, vals[0], vals[1])
                } else {
                    let c = LLVMInstructionClone(*inst);
                    for (i, v) in vals.iter().enumerate() {
                        LLVMSetOperand(c, i as u32, *v);
                    }
                    match op {
                        LLVMAdd | LLVMSub | LLVMMul | LLVMShl => {
                            LLVMSetNUW(c, 0);
                            LLVMSetNSW(c, 0);
                        }
                        LLVMUDiv | LLVMSDiv | LLVMLShr | LLVMAShr => LLVMSetExact(c, 0),
                        LLVMGetElementPtr => LLVMSetIsInBounds(c, 0),
                        LLVMZExt | LLVMUIToFP => LLVMSetNNeg(c, 0),
                        LLVMOr => LLVMSetIsDisjoint(c, 0),
                        _ => {}
                    }
                    LLVMInsertIntoBuilder(builder, c);
                    c
                }
            }
        }
    };
    if !loc.is_null() && ir::is_instruction(v) {
        unsafe { LLVMInstructionSetDebugLoc(v, loc) };
    } else if ir::is_instruction(v) {
        unsafe { LLVMInstructionSetDebugLoc(v, std::ptr::null_mut()) };
    }
    v
}

/// `x op d` that never traps: a zero divisor (and -1 for signed division, whose overflow
/// traps) is replaced, and the result of those cases is whatever is cheapest; the program
/// itself would have trapped or not used it.
unsafe fn safe_division(b: LLVMBuilderRef, op: LLVMOpcode, x: ValueRef, d: ValueRef) -> ValueRef {
    let t = ir::type_of(d);
    let zero = LLVMConstInt(t, 0, 0);
    let one = LLVMConstInt(t, 1, 0);
    let minus_one = LLVMConstAllOnes(t);
    let is_zero = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntEQ, d, zero, c"".as_ptr());
    let bad = if matches!(op, LLVMOpcode::LLVMSDiv | LLVMOpcode::LLVMSRem) {
        let is_m1 = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntEQ, d, minus_one, c"".as_ptr());
        LLVMBuildOr(b, is_zero, is_m1, c"".as_ptr())
    } else {
        is_zero
    };
    let safe_d = LLVMBuildSelect(b, bad, one, d, c"".as_ptr());
    let r = LLVMBuildBinOp(b, op, x, safe_d, c"".as_ptr());
    if matches!(op, LLVMOpcode::LLVMSDiv) {
        // x / -1 = -x (wrapping).
        let is_m1 = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntEQ, d, minus_one, c"".as_ptr());
        let neg = LLVMBuildSub(b, zero, x, c"".as_ptr());
        return LLVMBuildSelect(b, is_m1, neg, r, c"".as_ptr());
    }
    r
}
