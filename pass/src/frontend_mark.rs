//! The frontend's mark ([`FRONTEND_MARK`]): where the ompadapt frontend compiled a module, its
//! lowering is what the user asked for (explicit directives, and with
//! `-fplugin-arg-ompadapt-auto` every region), so pass-only mode stays off. Under LTO a module
//! merged from translation units of both kinds counts as the frontend's: pass-only mode is off
//! for all of it.

use std::ffi::CString;

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::LLVMGetNamedGlobal;
use ompadapt_abi::markers::FRONTEND_MARK;

use crate::ir;

/// Whether the frontend compiled `module`: its mark is there, or the module calls a marker of
/// the frontend's lowering (a module of an older frontend, or written by hand to drive the pass).
/// The mark stays (an internal byte): a later run of the pass on the module, at link time under
/// LTO, must see it too.
pub fn is_frontends(module: &Module<'_>) -> bool {
    let name = CString::new(FRONTEND_MARK).expect("no NUL");
    let mark = unsafe { LLVMGetNamedGlobal(module.as_mut_ptr(), name.as_ptr()) };
    !mark.is_null() || calls_a_marker(module)
}

/// Whether the module calls one of the frontend's markers.
fn calls_a_marker(module: &Module<'_>) -> bool {
    module.get_functions().any(|f| {
        let name = f.get_name().to_bytes().to_vec();
        ompadapt_abi::markers::MARKERS.iter().any(|mk| mk.names(&name)) && !ir::unused(f.as_value_ref())
    })
}
