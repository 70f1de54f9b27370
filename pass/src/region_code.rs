//! The code pass-only mode writes around an OpenMP construct to make it an adaptive region — the
//! runtime calls the frontend's lowering generates, in IR: the region's globals (its slot, its
//! descriptor, its name), the execution's context on the stack, the automatic-features marker
//! (filled in by [`crate::auto_features`]), `__ompadapt_v6_begin` and `__ompadapt_v6_end`, and
//! per-variant tables. Used by [`crate::host_regions`] and [`crate::offload_regions`].
// Raw `LLVMValueRef`s passed around here are values of the module being transformed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::ffi::CString;

use llvm_sys::core::*;
use llvm_sys::prelude::{LLVMBuilderRef, LLVMContextRef, LLVMMetadataRef, LLVMModuleRef, LLVMTypeRef};
use ompadapt_abi::markers::{AUTO_FEATURES, SUPPORT_BEGIN, SUPPORT_END};
use ompadapt_abi::MAX_FEATURES;

use crate::ir::{self, ValueRef};

/// Instruction metadata on a fork the pass made adaptive (idempotence).
pub const REGION_KIND: &str = "ompadapt.region";

/// The types and functions the region's code uses.
pub(crate) struct Decls {
    pub i32t: LLVMTypeRef,
    pub i64t: LLVMTypeRef,
    pub f64t: LLVMTypeRef,
    pub ptr: LLVMTypeRef,
    pub ctx_type: LLVMTypeRef,
}

/// The `ompadapt_ctx` of runtime/include/ompadapt.h: region, t0, variant, nfeatures, value,
/// features[MAX_FEATURES], instance, kept (API version 5; the runtime's own).
pub(crate) const CTX_VARIANT: u32 = 2;
pub(crate) const CTX_VALUE: u32 = 4;

pub(crate) fn decls(c: LLVMContextRef) -> Decls {
    unsafe {
        let i32t = LLVMInt32TypeInContext(c);
        let i64t = LLVMInt64TypeInContext(c);
        let f64t = LLVMDoubleTypeInContext(c);
        let ptr = LLVMPointerTypeInContext(c, 0);
        let mut fields = [ptr, i64t, i32t, i32t, f64t, LLVMArrayType2(f64t, MAX_FEATURES as u64), ptr, ptr];
        let ctx_type = LLVMStructTypeInContext(c, fields.as_mut_ptr(), fields.len() as u32, 0);
        Decls { i32t, i64t, f64t, ptr, ctx_type }
    }
}

/// The function `name` of the module, declared with `ty` if it is not there.
pub(crate) fn function(m: LLVMModuleRef, name: &str, ty: LLVMTypeRef) -> (LLVMTypeRef, ValueRef) {
    let c = CString::new(name).expect("no NUL");
    unsafe {
        let f = LLVMGetNamedFunction(m, c.as_ptr());
        if !f.is_null() {
            return (LLVMGlobalGetValueType(f), f);
        }
        let f = LLVMAddFunction(m, c.as_ptr(), ty);
        // The precompiled support code is hidden in every module (the header declares it so).
        if name.starts_with(ompadapt_abi::markers::SUPPORT_PREFIX) {
            LLVMSetVisibility(f, llvm_sys::LLVMVisibility::LLVMHiddenVisibility);
        }
        (ty, f)
    }
}

pub(crate) fn fn_type(ret: LLVMTypeRef, params: &mut [LLVMTypeRef], vararg: bool) -> LLVMTypeRef {
    unsafe { LLVMFunctionType(ret, params.as_mut_ptr(), params.len() as u32, vararg as i32) }
}

/// A private constant global holding `init`.
pub(crate) fn constant_global(m: LLVMModuleRef, name: &str, init: ValueRef) -> ValueRef {
    let c = CString::new(name).expect("no NUL");
    unsafe {
        let g = LLVMAddGlobal(m, LLVMTypeOf(init), c.as_ptr());
        LLVMSetInitializer(g, init);
        LLVMSetGlobalConstant(g, 1);
        LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
        LLVMSetUnnamedAddress(g, llvm_sys::LLVMUnnamedAddr::LLVMGlobalUnnamedAddr);
        g
    }
}

pub(crate) fn c_string(m: LLVMModuleRef, name: &str, text: &str) -> ValueRef {
    let c = unsafe { LLVMGetModuleContext(m) };
    let init = unsafe { LLVMConstStringInContext2(c, text.as_ptr().cast(), text.len(), 1) }; // (the callers write the NUL)
    constant_global(m, name, init)
}

/// What begin is called with: the region's slot, its descriptor (as the automatic-features
/// stage leaves it), the features and their number.
pub(crate) struct BeginArgs {
    pub slot: ValueRef,
    pub spec: ValueRef,
    pub features: ValueRef,
    pub nfeatures: ValueRef,
}

/// A region being written: the builder (positioned before the construct, with the construct's
/// debug location), the types and the context.
pub(crate) struct Region {
    pub m: LLVMModuleRef,
    pub b: LLVMBuilderRef,
    pub d: Decls,
    pub ctx: ValueRef,
    /// The region's name, a C string global.
    pub model: ValueRef,
    /// The debug location the new code gets (null: none).
    pub debug: LLVMMetadataRef,
}

impl Region {
    /// Writes, before `at`, the start of region `model` (globals named after `sym`) with
    /// descriptor `spec`: the context on the stack (in the entry block) with `preset` as its
    /// variant until the runtime decides, the automatic-features marker, begin. Returns the
    /// region and the variant the runtime chose (`ctx.variant` after begin, an i32).
    pub(crate) fn begin(m: LLVMModuleRef, at: ValueRef, sym: &str, model: &str, spec: &str, preset: i64) -> (Region, ValueRef) {
        let (r, args) = Region::prepare(m, at, sym, model, spec);
        let d = &r.d;
        let b = r.b;
        unsafe {
            LLVMBuildStore(b, LLVMConstInt(d.i32t, preset as u64, 1), LLVMBuildStructGEP2(b, d.ctx_type, r.ctx, CTX_VARIANT, c"".as_ptr()));
            LLVMBuildStore(b, LLVMConstReal(d.f64t, 0.0), LLVMBuildStructGEP2(b, d.ctx_type, r.ctx, CTX_VALUE, c"".as_ptr()));
            let minus1 = LLVMConstInt(d.i64t, u64::MAX, 1);
            let void = LLVMVoidTypeInContext(LLVMGetModuleContext(m));
            let begin_ty = fn_type(void, &mut [d.ptr, d.ptr, d.i64t, d.i64t, d.i64t, d.ptr, d.i32t, d.ptr], false);
            call(m, b, SUPPORT_BEGIN, begin_ty, &mut [args.slot, args.spec, minus1, minus1, minus1, args.features, args.nfeatures, r.ctx]);
            let variant_field = LLVMBuildStructGEP2(b, d.ctx_type, r.ctx, CTX_VARIANT, c"".as_ptr());
            let variant = LLVMBuildLoad2(b, d.i32t, variant_field, c"ompadapt.variant".as_ptr());
            (r, variant)
        }
    }

    /// Writes, before `at`, what every region's start needs (globals named after `sym`,
    /// descriptor `spec`): the context and the features on the stack (in the entry block), the
    /// automatic-features marker and the descriptor it leaves. Returns the region and begin's
    /// arguments, for the caller to call begin, or a support
    /// function that calls it, with.
    pub(crate) fn prepare(m: LLVMModuleRef, at: ValueRef, sym: &str, model: &str, spec: &str) -> (Region, BeginArgs) {
        let f = ir::function_of(at);
        unsafe {
            let c = LLVMGetModuleContext(m);
            let d = decls(c);
            let spec = c_string(m, &format!("{sym}.spec"), &format!("{spec}\0"));
            let model_str = c_string(m, &format!("{sym}.model"), &format!("{model}\0"));
            let loops = c_string(m, &format!("{sym}.loops"), "\0");
            let name = CString::new(format!("{sym}.slot")).expect("no NUL");
            let slot = LLVMAddGlobal(m, d.ptr, name.as_ptr());
            LLVMSetInitializer(slot, LLVMConstNull(d.ptr));
            LLVMSetLinkage(slot, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            let b = LLVMCreateBuilderInContext(c);
            LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(ir::entry_block(f)));
            let ctx = LLVMBuildAlloca(b, d.ctx_type, c"ompadapt.ctx".as_ptr());
            let feats = LLVMBuildAlloca(b, LLVMArrayType2(d.f64t, MAX_FEATURES as u64), c"ompadapt.features".as_ptr());
            let spec_slot = LLVMBuildAlloca(b, d.ptr, c"ompadapt.spec".as_ptr());
            // Positioning gives the builder the instruction's location; the new code gets the
            // construct's (clang gives a launch none: then none).
            LLVMPositionBuilderBefore(b, at);
            let debug = llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(at);
            LLVMSetCurrentDebugLocation2(b, debug);
            LLVMBuildStore(b, spec, spec_slot);
            let mut args = [feats, LLVMConstInt(d.i32t, MAX_FEATURES as u64, 0), spec_slot, model_str, loops];
            let nfeat = call(m, b, AUTO_FEATURES.name, fn_type(d.i32t, &mut [d.ptr, d.i32t, d.ptr, d.ptr, d.ptr], false), &mut args);
            let spec_now = LLVMBuildLoad2(b, d.ptr, spec_slot, c"".as_ptr());
            let region = Region { m, b, d, ctx, model: model_str, debug };
            (region, BeginArgs { slot, spec: spec_now, features: feats, nfeatures: nfeat })
        }
    }

    /// `table[variant]` of a per-variant table (`values`, then one more entry for a variant out
    /// of range: the construct as written), of i32 or f64 elements.
    pub(crate) fn per_variant(&self, variant: ValueRef, name: &str, element: LLVMTypeRef, mut values: Vec<ValueRef>) -> ValueRef {
        unsafe {
            let n = values.len() as u64 - 1;
            let table = constant_global(self.m, name, LLVMConstArray2(element, values.as_mut_ptr(), values.len() as u64));
            let b = self.b;
            let in_range = LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntULT, variant, LLVMConstInt(self.d.i32t, n, 0), c"".as_ptr());
            let index = LLVMBuildSelect(b, in_range, variant, LLVMConstInt(self.d.i32t, n, 0), c"".as_ptr());
            let mut idx = [LLVMConstInt(self.d.i64t, 0, 0), LLVMBuildZExt(b, index, self.d.i64t, c"".as_ptr())];
            let at = LLVMBuildInBoundsGEP2(b, LLVMGlobalGetValueType(table), table, idx.as_mut_ptr(), 2, c"".as_ptr());
            LLVMBuildLoad2(b, element, at, c"".as_ptr())
        }
    }

    /// A call of `name` (declared with `ty` where the module lacks it) at the builder.
    pub(crate) fn call(&self, name: &str, ty: LLVMTypeRef, args: &mut [ValueRef]) -> ValueRef {
        call(self.m, self.b, name, ty, args)
    }

    /// Writes end before the first instruction of `block` that is not a phi, tags `construct`
    /// as the pass's (a second run leaves it alone) and disposes of the builder.
    pub(crate) fn end(self, block: ir::BlockRef, construct: ValueRef, model: &str) {
        let mut first = unsafe { LLVMGetFirstInstruction(block) };
        while ir::opcode(first) == Some(llvm_sys::LLVMOpcode::LLVMPHI) {
            first = unsafe { LLVMGetNextInstruction(first) };
        }
        self.end_before(first, construct, model);
    }

    /// [`Region::end`], with end written before instruction `at`.
    pub(crate) fn end_before(self, at: ValueRef, construct: ValueRef, model: &str) {
        unsafe {
            LLVMPositionBuilderBefore(self.b, at);
            LLVMSetCurrentDebugLocation2(self.b, self.debug);
            let void = LLVMVoidTypeInContext(LLVMGetModuleContext(self.m));
            self.call(SUPPORT_END, fn_type(void, &mut [self.d.ptr], false), &mut [self.ctx]);
            LLVMDisposeBuilder(self.b);
            let c = LLVMGetModuleContext(self.m);
            let kind = LLVMGetMDKindIDInContext(c, REGION_KIND.as_ptr().cast(), REGION_KIND.len() as u32);
            let mut text = [LLVMMDStringInContext2(c, model.as_ptr().cast(), model.len())];
            LLVMSetMetadata(construct, kind, LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, text.as_mut_ptr(), 1)));
        }
    }
}

fn call(m: LLVMModuleRef, b: LLVMBuilderRef, name: &str, ty: LLVMTypeRef, args: &mut [ValueRef]) -> ValueRef {
    let (ty, f) = function(m, name, ty);
    unsafe { LLVMBuildCall2(b, ty, f, args.as_mut_ptr(), args.len() as u32, c"".as_ptr()) }
}

/// The i32 constants of `values`.
pub(crate) fn i32s(d: &Decls, values: impl Iterator<Item = u32>) -> Vec<ValueRef> {
    values.map(|v| unsafe { LLVMConstInt(d.i32t, v as u64, 0) }).collect()
}

/// Whether the fork already is the pass's (a second run).
pub fn is_adaptive(fork: ValueRef) -> bool {
    unsafe {
        let c = LLVMGetTypeContext(LLVMTypeOf(fork));
        let kind = LLVMGetMDKindIDInContext(c, REGION_KIND.as_ptr().cast(), REGION_KIND.len() as u32);
        !LLVMGetMetadata(fork, kind).is_null()
    }
}
