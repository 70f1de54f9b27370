//! libompadapt.so: one shared library that is both
//! - a Clang frontend plugin (`-fplugin=libompadapt.so`): it takes over `#pragma omp`, lowers the
//!   adaptation directives (logic in the `ompadapt-syntax` crate, Clang glue in shim/*.cpp), and
//!   adds itself to the compilation's LLVM pass plugins;
//! - an LLVM pass plugin (`opt-19 -load-pass-plugin=libompadapt.so -passes=ompadapt`) running
//!   the `ompadapt-pass` crate.

mod ffi;
mod pass_plugin;

pub use ffi::*;
pub use pass_plugin::*;
