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
    ompadapt_pass_run_module_with(module, std::ptr::null())
}

/// [`ompadapt_pass_run_module`] with the `auto=` list of the pass parameter (null: none given).
///
/// # Safety
/// `module` as above; `auto` null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_pass_run_module_with(module: llvm_sys::prelude::LLVMModuleRef, auto: *const c_char) -> bool {
    let auto = (!auto.is_null()).then(|| std::ffi::CStr::from_ptr(auto).to_string_lossy().into_owned());
    // A bug in the pass must not take the compiler down: report it and leave the module as is
    // would be ideal, but a panic may leave it half-rewritten, so stop loudly instead.
    match std::panic::catch_unwind(|| crate::run_on_llvm_module(module, auto.as_deref())) {
        Ok(changed) => changed,
        Err(_) => {
            eprintln!("ompadapt: internal error in the pass; please report it with the input file");
            std::process::abort();
        }
    }
}

/// Checks the parameter of `ompadapt<...>`: null when it is fine (`*auto` then holds its `auto=`
/// list, or null), else the message. Strings are freed by [`ompadapt_pass_free`].
///
/// # Safety
/// `params` is a NUL-terminated string; `auto` points at writable storage.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_pass_check_parameter(params: *const c_char, auto: *mut *mut c_char) -> *mut c_char {
    let params = std::ffi::CStr::from_ptr(params).to_string_lossy();
    let into = |s: String| std::ffi::CString::new(s.replace('\0', " ")).unwrap_or_default().into_raw();
    *auto = std::ptr::null_mut();
    match crate::auto_mode::parse_parameter(&params) {
        Ok(list) => {
            if let Some(list) = list {
                *auto = into(list);
            }
            std::ptr::null_mut()
        }
        Err(why) => into(why),
    }
}

/// Frees a string of [`ompadapt_pass_check_parameter`].
///
/// # Safety
/// `s` comes from it (or is null).
#[no_mangle]
pub unsafe extern "C" fn ompadapt_pass_free(s: *mut c_char) {
    if !s.is_null() {
        drop(std::ffi::CString::from_raw(s));
    }
}
