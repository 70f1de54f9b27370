//! Debug locations for the calls the pass writes. A function with debug information (`-g`,
//! `-gline-tables-only`, and the location tracking the frontend turns on for
//! zero-source-change mode) must give every call of a function that has debug information
//! itself a location (the verifier rejects the module otherwise: the inliner needs one). The
//! calls the pass builds get line 0 of their function: code of no source line, as LLVM's own
//! transformations mark what they generate.

use inkwell::module::Module;
use inkwell::values::AsValueRef;
use llvm_sys::core::LLVMGetModuleContext;
use llvm_sys::debuginfo::{LLVMDIBuilderCreateDebugLocation, LLVMGetSubprogram, LLVMInstructionGetDebugLoc, LLVMInstructionSetDebugLoc};

use crate::ir;

/// Gives each call without a location, in a function with debug information, line 0 of it.
pub fn give_calls_locations(module: &Module<'_>) {
    let c = unsafe { LLVMGetModuleContext(module.as_mut_ptr()) };
    for f in module.get_functions() {
        let sp = unsafe { LLVMGetSubprogram(f.as_value_ref()) };
        if sp.is_null() {
            continue;
        }
        let mut line0 = None;
        for i in ir::function_instructions(f.as_value_ref()) {
            if ir::is_call(i) && unsafe { LLVMInstructionGetDebugLoc(i) }.is_null() {
                let loc = *line0.get_or_insert_with(|| unsafe { LLVMDIBuilderCreateDebugLocation(c, 0, 0, sp, std::ptr::null_mut()) });
                unsafe { LLVMInstructionSetDebugLoc(i, loc) };
            }
        }
    }
}
