//! The pass plugin entry points of libompadapt_pass.so. A Rust cdylib does not export symbols of
//! the C++ objects it links, so `llvmGetPassPluginInfo` is defined here and points at the C++
//! registration (shim/pass_plugin.cpp).

use std::ffi::{c_char, c_void};

extern "C" {
    fn ompadapt_register_pass_callbacks(pass_builder: *mut c_void);
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

#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: LLVM_PLUGIN_API_VERSION,
        plugin_name: c"ompadapt".as_ptr(),
        plugin_version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast(),
        register_pass_builder_callbacks: ompadapt_register_pass_callbacks,
    }
}

/// Called by the C++ pass wrapper for each module, and by libompadapt.so in the driver's first
/// host job (see plugin/shim/PassLoader.cpp); returns whether the module changed.
///
/// # Safety
/// `module` must be a valid module owned by the caller for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_pass_run_module(module: llvm_sys::prelude::LLVMModuleRef) -> bool {
    // A bug in the pass must not take the compiler down: report it and leave the module as is
    // would be ideal, but a panic may leave it half-rewritten, so stop loudly instead.
    match std::panic::catch_unwind(|| crate::run_on_llvm_module(module)) {
        Ok(changed) => changed,
        Err(_) => {
            eprintln!("ompadapt: internal error in the pass; please report it with the input file");
            std::process::abort();
        }
    }
}
