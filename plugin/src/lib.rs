//! libompadapt.so, the Clang frontend plugin (`-fplugin=libompadapt.so`): it takes over
//! `#pragma omp`, lowers the adaptation directives (logic in the `ompadapt-syntax` crate, Clang
//! glue in shim/, the plugin action in shim/OmpAdaptPlugin.cpp), and registers
//! libompadapt_pass.so (pass/), found beside it, with the compilation's LLVM pipeline.

mod ffi;
/// The numbers of the C interface's enums, written once: shim/ffi.h includes the header build.rs
/// writes from this module.
pub mod ffi_enums;

pub use ffi::*;

extern "C" {
    fn ompadapt_frontend_plugin_anchor() -> i32;
}

/// Keeps the object with the Clang plugin registration (a static initializer) in the link.
#[used]
static KEEP_FRONTEND_PLUGIN: unsafe extern "C" fn() -> i32 = ompadapt_frontend_plugin_anchor;
