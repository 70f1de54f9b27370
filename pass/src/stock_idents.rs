//! Stock's `ident_t` strings back where the frontend turned locations on for the pass alone.
//!
//! Zero-source-change mode without `-g` has clang track locations so that the pass can name
//! regions (`function@file:line`, [`crate::construct_places`]); the pass drops the debug
//! locations once it has ([`crate::frontend_mark::locations_for_the_pass_only`]). Clang also
//! writes each construct's place into the `ident_t` it passes to the OpenMP runtime
//! (`;file;function;line;column;;`), where a stock build without `-g` holds
//! `;unknown;unknown;0;0;;`. libomptarget parses that string at every launch: on an offload
//! sweep of 1999 launches the longer strings cost 2.8 M instructions (1.4 k per launch,
//! callgrind; stock built with `-g` pays the same), and a tool or a runtime message would see a
//! place stock does not give. So, with the debug locations, each such ident gets stock's string
//! back: the module passes the runtime what the stock build passes. (Offload map names, which
//! clang also emits with locations, are read only by libomptarget's info messages: kept.)

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::prelude::LLVMValueRef;

use crate::construct_places::global_ident_place;
use crate::ir;

/// What a stock build writes into every `ident_t` without `-g`.
pub const STOCK_PSOURCE: &str = ";unknown;unknown;0;0;;";

/// Points every `ident_t` of `module` that records a place at [`STOCK_PSOURCE`] (the module's
/// own copy of it, or a new one); returns how many it changed.
pub fn restore(module: &Module<'_>) -> usize {
    let idents: Vec<LLVMValueRef> = module.get_globals().map(|g| g.as_value_ref()).filter(|&g| records_a_place(g)).collect();
    if idents.is_empty() {
        return 0;
    }
    let unknown = stock_string(module);
    for &g in &idents {
        unsafe {
            let init = LLVMGetInitializer(g);
            let mut ops: Vec<LLVMValueRef> = (0..5).map(|i| LLVMGetOperand(init, i)).collect();
            // the fourth field is the string's length (clang's `OpenMPIRBuilder` writes it)
            ops[3] = LLVMConstInt(LLVMTypeOf(ops[3]), STOCK_PSOURCE.len() as u64, 0);
            ops[4] = unknown;
            LLVMSetInitializer(g, LLVMConstNamedStruct(LLVMTypeOf(init), ops.as_mut_ptr(), 5));
        }
    }
    idents.len()
}

/// Whether `g` is an `ident_t` (clang's `%struct.ident_t`: four integers and the string)
/// whose string records a place.
fn records_a_place(g: LLVMValueRef) -> bool {
    global_ident_place(g).is_some()
        && unsafe {
            let init = LLVMGetInitializer(g);
            let name = LLVMGetStructName(LLVMTypeOf(init));
            LLVMGetNumOperands(init) == 5 && !name.is_null() && std::ffi::CStr::from_ptr(name).to_bytes().starts_with(b"struct.ident_t")
        }
}

/// The module's private `;unknown;unknown;0;0;;` constant (clang's own, where it made one).
fn stock_string(module: &Module<'_>) -> LLVMValueRef {
    let existing = module
        .get_globals()
        .map(|g| g.as_value_ref())
        .find(|&g| unsafe { LLVMIsGlobalConstant(g) != 0 } && ir::c_string(g).as_deref() == Some(STOCK_PSOURCE));
    existing.unwrap_or_else(|| unsafe {
        let m = module.as_mut_ptr();
        let ctx = LLVMGetModuleContext(m);
        let init = LLVMConstStringInContext2(ctx, STOCK_PSOURCE.as_ptr().cast(), STOCK_PSOURCE.len(), 0);
        let g = LLVMAddGlobal(m, LLVMTypeOf(init), c"".as_ptr());
        LLVMSetInitializer(g, init);
        LLVMSetGlobalConstant(g, 1);
        LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
        LLVMSetUnnamedAddress(g, llvm_sys::LLVMUnnamedAddr::LLVMGlobalUnnamedAddr);
        LLVMSetAlignment(g, 1);
        g
    })
}
