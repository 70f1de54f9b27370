//! The pass plugin entry point. A Rust cdylib does not export symbols of the C++ objects it
//! links, so `llvmGetPassPluginInfo` is defined here and points at the C++ registration.

use std::ffi::{c_char, c_void};

extern "C" {
    fn ompadapt_register_pass_callbacks(pass_builder: *mut c_void);
    fn ompadapt_frontend_plugin_anchor() -> i32;
}

/// Mirrors `llvm::PassPluginLibraryInfo`.
#[repr(C)]
pub struct PassPluginLibraryInfo {
    pub api_version: u32,
    pub plugin_name: *const c_char,
    pub plugin_version: *const c_char,
    pub register_pass_builder_callbacks: unsafe extern "C" fn(*mut c_void),
}

/// `LLVM_PLUGIN_API_VERSION` of LLVM 19.
const LLVM_PLUGIN_API_VERSION: u32 = 1;

/// Keeps the object with the Clang plugin registration (a static initializer) in the link.
#[used]
static KEEP_FRONTEND_PLUGIN: unsafe extern "C" fn() -> i32 = ompadapt_frontend_plugin_anchor;

#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: LLVM_PLUGIN_API_VERSION,
        plugin_name: c"ompadapt".as_ptr(),
        plugin_version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast(),
        register_pass_builder_callbacks: ompadapt_register_pass_callbacks,
    }
}

/// Called by the C++ pass wrapper for each module; returns whether the module changed.
///
/// # Safety
/// `module` must be a valid module owned by the caller for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_pass_run_module(module: llvm_sys::prelude::LLVMModuleRef) -> bool {
    // A bug in the pass must not take the compiler down: report it and leave the module as is
    // would be ideal, but a panic may leave it half-rewritten, so stop loudly instead.
    match std::panic::catch_unwind(|| ompadapt_pass::run_on_llvm_module(module)) {
        Ok(changed) => changed,
        Err(_) => {
            eprintln!("ompadapt: internal error in the pass; please report it with the input file");
            std::process::abort();
        }
    }
}
