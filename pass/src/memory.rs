//! What memory an address names, and which instructions may write it: the alias reasoning
//! behind slicing a load to an earlier point. Deliberately simple and conservative: an address
//! is a base object (an alloca, a global, or anything else) plus a constant byte offset when
//! every GEP on the way has constant indices. Two different allocas or globals never overlap;
//! an alloca whose address never leaves its function (stored as a value, passed to a call) can
//! only be written through itself; anything else may be written by any store through an
//! unknown pointer and by any call that is not known to leave user memory alone.
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use crate::fast_hash::HashMap;

use llvm_sys::core::*;
use llvm_sys::prelude::{LLVMTypeRef, LLVMValueRef};
use llvm_sys::target::{LLVMABISizeOfType, LLVMOffsetOfElement, LLVMStoreSizeOfType, LLVMTargetDataRef};
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use ompadapt_abi::markers;

use crate::ir::{self, ValueRef};

/// The base object of an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    Alloca(LLVMValueRef),
    Global(LLVMValueRef),
    /// An argument, a loaded pointer, a call result...: may point anywhere user-visible.
    Unknown(LLVMValueRef),
}

/// An address: base object and byte offset (None: not a constant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addr {
    pub base: Base,
    pub offset: Option<i64>,
}

/// Decomposes `ptr` within its function (arguments stay `Unknown`).
pub fn decompose(data_layout: LLVMTargetDataRef, ptr: ValueRef) -> Addr {
    let mut v = ptr;
    let mut offset = Some(0i64);
    for _ in 0..64 {
        let op = if ir::is_instruction(v) {
            Some(unsafe { LLVMGetInstructionOpcode(v) })
        } else if unsafe { !LLVMIsAConstantExpr(v).is_null() } {
            Some(unsafe { LLVMGetConstOpcode(v) })
        } else {
            None
        };
        match op {
            Some(LLVMOpcode::LLVMBitCast) | Some(LLVMOpcode::LLVMAddrSpaceCast) => v = ir::operand(v, 0),
            Some(LLVMOpcode::LLVMGetElementPtr) => {
                offset = match (offset, gep_offset(data_layout, v)) {
                    (Some(a), Some(b)) => Some(a + b),
                    _ => None,
                };
                v = ir::operand(v, 0);
            }
            _ => break,
        }
    }
    let base = if ir::is_alloca(v) {
        Base::Alloca(v)
    } else if ir::is_global_variable(v) {
        Base::Global(v)
    } else {
        Base::Unknown(v)
    };
    Addr { base, offset }
}

/// Constant byte offset of a GEP (instruction or constant expression), if its indices are
/// constants.
pub fn gep_offset(data_layout: LLVMTargetDataRef, gep: ValueRef) -> Option<i64> {
    unsafe {
        let mut ty: LLVMTypeRef = LLVMGetGEPSourceElementType(gep);
        let n = ir::num_operands(gep);
        let mut off = 0i64;
        for i in 1..n {
            let idx = ir::const_int(ir::operand(gep, i))?;
            if i == 1 {
                off += idx * LLVMABISizeOfType(data_layout, ty) as i64;
                continue;
            }
            match LLVMGetTypeKind(ty) {
                LLVMTypeKind::LLVMStructTypeKind => {
                    off += LLVMOffsetOfElement(data_layout, ty, idx as u32) as i64;
                    ty = LLVMStructGetTypeAtIndex(ty, idx as u32);
                }
                LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
                    ty = LLVMGetElementType(ty);
                    off += idx * LLVMABISizeOfType(data_layout, ty) as i64;
                }
                _ => return None,
            }
        }
        Some(off)
    }
}

pub fn store_size(data_layout: LLVMTargetDataRef, ty: LLVMTypeRef) -> i64 {
    unsafe { LLVMStoreSizeOfType(data_layout, ty) as i64 }
}

/// Whether two byte ranges may overlap (unknown offsets always may).
pub fn overlaps(a: Option<i64>, asize: Option<i64>, b: Option<i64>, bsize: Option<i64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => {
            let a_end = asize.map(|s| a + s);
            let b_end = bsize.map(|s| b + s);
            a_end.is_none_or(|e| b < e) && b_end.is_none_or(|e| a < e)
        }
        _ => true,
    }
}

/// Calls that never write user memory: ompadapt's own markers and runtime entry, queries of
/// the OpenMP runtime, debug and lifetime intrinsics, functions declared not to write memory.
pub fn is_benign_call(call: ValueRef) -> bool {
    let f = ir::callee(call);
    if f.is_null() {
        return is_ompadapt_api_call(call) || !call_may_write_memory(call);
    }
    let name = ir::name(f);
    if name.contains(markers::RESERVED_PREFIX) {
        return true;
    }
    if name.starts_with(crate::entry_points::name::prefix::OMP_GET)
        || name.starts_with(crate::entry_points::name::prefix::OMP_IS)
        || name == crate::entry_points::name::GLOBAL_THREAD_NUM
    {
        return true;
    }
    if name.starts_with("llvm.dbg.")
        || name.starts_with("llvm.lifetime.")
        || name.starts_with("llvm.assume")
        || name.starts_with("llvm.experimental.noalias.scope.decl")
        || name.starts_with("llvm.invariant.")
        || name.starts_with("llvm.prefetch")
    {
        return true;
    }
    !call_may_write_memory(call)
}

/// libomp entry points that only touch memory through their pointer arguments (no user code
/// runs inside them).
pub fn is_argmem_only_runtime_call(call: ValueRef) -> bool {
    let name = ir::callee_name(call);
    name.starts_with(crate::entry_points::name::prefix::KMPC)
        && !["fork", "task", "reduce", "copyprivate", "critical_with_hint", "doacross"].iter().any(|w| name.contains(w))
}

/// The indirect call `__ompadapt_api()->begin(...)` (and its siblings): the runtime writes only
/// its own state and the context it is given.
fn is_ompadapt_api_call(call: ValueRef) -> bool {
    let callee = unsafe { LLVMGetCalledValue(call) };
    if ir::opcode(callee) != Some(LLVMOpcode::LLVMLoad) {
        return false;
    }
    let mut p = ir::operand(callee, 0);
    while ir::opcode(p) == Some(LLVMOpcode::LLVMGetElementPtr) {
        p = ir::operand(p, 0);
    }
    ir::is_call(p) && ir::callee_name(p).contains(markers::RUNTIME_API)
}

/// The lowering header's ways into the runtime (`__ompadapt_api`, `__ompadapt_begin`,
/// `__ompadapt_end`, and their precompiled forms): what they are given may be kept by the runtime.
fn is_runtime_entry(name: &str) -> bool {
    markers::RUNTIME_ENTRIES.iter().any(|e| name.contains(e)) || name.starts_with(markers::SUPPORT_PREFIX)
}

/// `memory(...)` attribute of the call or its callee without any write effect.
fn call_may_write_memory(call: ValueRef) -> bool {
    unsafe {
        let kind = LLVMGetEnumAttributeKindForName(c"memory".as_ptr(), 6);
        let idx = llvm_sys::LLVMAttributeFunctionIndex;
        let mut attr = LLVMGetCallSiteEnumAttribute(call, idx, kind);
        let f = ir::callee(call);
        if attr.is_null() && !f.is_null() {
            attr = LLVMGetEnumAttributeAtIndex(f, idx, kind);
        }
        if attr.is_null() {
            return true;
        }
        // MemoryEffects: two bits (Ref = 1, Mod = 2) per location kind.
        let effects = LLVMGetEnumAttributeValue(attr);
        effects & 0xAAAA != 0
    }
}

/// Memory intrinsics as stores: (destination, length if constant).
pub fn mem_intrinsic_dest(call: ValueRef) -> Option<(ValueRef, Option<i64>)> {
    let name = ir::callee_name(call);
    if name.starts_with("llvm.memcpy") || name.starts_with("llvm.memmove") || name.starts_with("llvm.memset") {
        let args = ir::call_args(call);
        return Some((args[0], ir::const_int(args[2])));
    }
    None
}

/// Escape analysis of allocas, memoised per analysis.
#[derive(Default)]
pub struct Escapes {
    memo: HashMap<ValueRef, bool>,
}

impl Escapes {
    /// Whether the address of `alloca` (or anything derived from it) is stored as a value,
    /// passed to a call other than a memory intrinsic or a marker, returned, or converted to an
    /// integer: then code elsewhere may write it.
    pub fn escapes(&mut self, alloca: ValueRef) -> bool {
        if let Some(e) = self.memo.get(&alloca) {
            return *e;
        }
        let e = Self::compute(alloca);
        self.memo.insert(alloca, e);
        e
    }

    fn compute(alloca: ValueRef) -> bool {
        let mut work = vec![alloca];
        let mut seen = crate::fast_hash::HashSet::default();
        while let Some(p) = work.pop() {
            if !seen.insert(p) {
                continue;
            }
            for u in ir::users(p) {
                match ir::opcode(u) {
                    Some(LLVMOpcode::LLVMLoad) => {}
                    Some(LLVMOpcode::LLVMStore) => {
                        if ir::operand(u, 0) == p {
                            return true;
                        }
                    }
                    Some(LLVMOpcode::LLVMGetElementPtr)
                    | Some(LLVMOpcode::LLVMBitCast)
                    | Some(LLVMOpcode::LLVMAddrSpaceCast)
                    | Some(LLVMOpcode::LLVMPHI)
                    | Some(LLVMOpcode::LLVMSelect) => work.push(u),
                    Some(LLVMOpcode::LLVMICmp) => {}
                    Some(LLVMOpcode::LLVMCall) | Some(LLVMOpcode::LLVMInvoke) => {
                        let name = ir::callee_name(u);
                        let harmless = mem_intrinsic_dest(u).is_some()
                            || name.starts_with("llvm.lifetime.")
                            || name.starts_with("llvm.dbg.")
                            || is_argmem_only_runtime_call(u)
                            || (name.contains(markers::RESERVED_PREFIX) && !is_runtime_entry(&name));
                        if !harmless {
                            return true;
                        }
                    }
                    _ => return true,
                }
            }
        }
        false
    }
}

/// Whether `inst` may write the `size` bytes at `target` (an address decomposed in
/// `target_function`; `size` None: unknown). `target_escaped`: whether the target's alloca
/// escapes (always true when `inst` is in another function than the alloca).
///
/// `outside`: the target is reached through a pointer that existed before any alloca of the
/// region's call chain (an argument of the marker's function, a global): it cannot point into
/// one of those allocas.
pub fn may_write(
    data_layout: LLVMTargetDataRef,
    esc: &mut Escapes,
    inst: ValueRef,
    target: Addr,
    size: Option<i64>,
    outside: bool,
) -> bool {
    let alloca_escaped = |esc: &mut Escapes, a: ValueRef| ir::function_of(a) != ir::function_of(inst) || esc.escapes(a);
    let store_like = |esc: &mut Escapes, ptr: ValueRef, len: Option<i64>| -> bool {
        let w = decompose(data_layout, ptr);
        if let Base::Global(g) = w.base {
            if unsafe { LLVMIsGlobalConstant(g) } != 0 {
                return false;
            }
        }
        match (w.base, target.base) {
            (Base::Alloca(x), Base::Alloca(y)) | (Base::Global(x), Base::Global(y)) => {
                x == y && overlaps(w.offset, len, target.offset, size)
            }
            (Base::Alloca(_), Base::Global(_)) | (Base::Global(_), Base::Alloca(_)) => false,
            (Base::Alloca(x), Base::Unknown(_)) => !outside && alloca_escaped(esc, x),
            (Base::Unknown(_), Base::Alloca(y)) => alloca_escaped(esc, y),
            _ => true,
        }
    };
    match ir::opcode(inst) {
        Some(LLVMOpcode::LLVMStore) => {
            let ty = ir::type_of(ir::operand(inst, 0));
            store_like(esc, ir::operand(inst, 1), Some(store_size(data_layout, ty)))
        }
        Some(LLVMOpcode::LLVMAtomicRMW) | Some(LLVMOpcode::LLVMAtomicCmpXchg) => store_like(esc, ir::operand(inst, 0), None),
        Some(LLVMOpcode::LLVMCall) | Some(LLVMOpcode::LLVMInvoke) => {
            if let Some((dest, len)) = mem_intrinsic_dest(inst) {
                return store_like(esc, dest, len);
            }
            if is_benign_call(inst) {
                return false;
            }
            let args = ir::call_args(inst);
            let passes_target = args.iter().any(|a| {
                is_pointer(*a)
                    && match (decompose(data_layout, *a).base, target.base) {
                        (Base::Alloca(x), Base::Alloca(y)) | (Base::Global(x), Base::Global(y)) => x == y,
                        _ => false,
                    }
            });
            if passes_target {
                return true;
            }
            if is_argmem_only_runtime_call(inst) {
                // Writes only what its pointer arguments point to.
                return args.iter().any(|a| is_pointer(*a) && store_like(esc, *a, None));
            }
            match target.base {
                Base::Alloca(y) => alloca_escaped(esc, y),
                _ => true,
            }
        }
        _ => false,
    }
}

pub fn is_pointer(v: ValueRef) -> bool {
    unsafe { LLVMGetTypeKind(ir::type_of(v)) == LLVMTypeKind::LLVMPointerTypeKind }
}
