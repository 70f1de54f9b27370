//! `bytes_mapped`: the sum of the sizes an offload launch maps `to` or `from` the device.
//!
//! Clang passes them in the kernel arguments (`__tgt_kernel_arguments`): field 1 the number of
//! map entries, field 4 the sizes (a constant `.offload_sizes` global, or a stack array copied
//! from one and completed with the sizes only known at run time), field 5 the map types (a
//! constant `.offload_maptypes` global). Each size is sliced to the marker like a loop bound.
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::rc::Rc;

use llvm_sys::core::*;
use llvm_sys::prelude::LLVMTypeRef;
use llvm_sys::LLVMTypeKind;

use crate::ir::{self, ValueRef};
use crate::memory::{self, Addr, Base};
use crate::slice::{constant_at, no, Expr, NoSlice, Slicer};

/// `OMP_MAP_TO | OMP_MAP_FROM`.
const MAP_TO_FROM: i64 = 0x1 | 0x2;

/// The number of bytes `launch` (a `__tgt_target_kernel` call) maps to or from the device, as a
/// computation at the marker (an `i64`), or why there is none.
pub fn bytes_mapped(slicer: &mut Slicer<'_>, launch: ValueRef) -> Result<Rc<Expr>, NoSlice> {
    let data_layout = slicer.data_layout;
    let args = ir::call_args(launch);
    let Some(kargs) = args.get(5).copied() else {
        return no("the launch has no kernel arguments");
    };
    let base = memory::decompose(data_layout, kargs);
    let Base::Alloca(k) = base.base else {
        return no("the kernel arguments are not a local structure");
    };
    let st = unsafe { LLVMGetAllocatedType(k) };
    if unsafe { LLVMGetTypeKind(st) } != LLVMTypeKind::LLVMStructTypeKind || unsafe { LLVMCountStructElementTypes(st) } < 6 {
        return no("the kernel arguments do not have the expected layout");
    }
    let field = |i: u32| -> (i64, LLVMTypeRef) {
        unsafe {
            (llvm_sys::target::LLVMOffsetOfElement(data_layout, st, i) as i64 + base.offset.unwrap_or(0), LLVMStructGetTypeAtIndex(st, i))
        }
    };
    let reaching = |slicer: &mut Slicer<'_>, off: i64, ty: LLVMTypeRef| -> Option<ValueRef> {
        slicer.reaching_stored_value(Addr { base: base.base, offset: Some(off) }, ty, launch)
    };
    let (n_off, n_ty) = field(1);
    let Some(n) = reaching(slicer, n_off, n_ty).and_then(ir::const_int) else {
        return no("the number of map entries is not a constant");
    };
    let (s_off, p_ty) = field(4);
    let (m_off, _) = field(5);
    let (Some(sizes), Some(types)) = (reaching(slicer, s_off, p_ty), reaching(slicer, m_off, p_ty)) else {
        return no("the map sizes or types are not known at the launch");
    };
    let types = memory::decompose(data_layout, types);
    let Base::Global(tg) = types.base else {
        return no("the map types are not a constant array");
    };
    let i64t = unsafe { LLVMInt64TypeInContext(LLVMGetTypeContext(ir::type_of(launch))) };
    let sizes = memory::decompose(data_layout, sizes);
    let mut total: Option<Rc<Expr>> = None;
    for i in 0..n {
        let Some(t) = constant_at(data_layout, tg, types.offset.unwrap_or(0) + 8 * i, i64t).and_then(ir::const_int) else {
            return no("a map type is not a constant");
        };
        if t & MAP_TO_FROM == 0 {
            continue;
        }
        let size = match sizes.base {
            Base::Global(g) => match constant_at(data_layout, g, sizes.offset.unwrap_or(0) + 8 * i, i64t) {
                Some(c) => Rc::new(Expr::Avail(c)),
                None => return no("a map size is not a constant"),
            },
            Base::Alloca(_) => {
                let addr = Addr { base: sizes.base, offset: sizes.offset.map(|o| o + 8 * i) };
                slicer.slice_object(addr, 0, None, i64t, launch, 0, None).map_err(|e| match e {
                    NoSlice::Because(why) => NoSlice::Because(format!("the size of map entry {}: {why}", i + 1)),
                    other => other,
                })?
            }
            Base::Unknown(_) => return no("the map sizes are not an array the pass can read"),
        };
        total = Some(match total {
            None => size,
            Some(t) => Rc::new(Expr::Sum { lhs: t, rhs: size }),
        });
    }
    Ok(total.unwrap_or_else(|| Rc::new(Expr::Avail(unsafe { LLVMConstInt(i64t, 0, 0) }))))
}
