//! Which modules the pass may touch: host modules only.
//!
//! Device modules (GPU triples, or any OpenMP device compilation, which clang marks with the
//! `openmp-device` module flag; the x86_64 "device" of host offload has the host triple) hold
//! the outlined kernels, never the launches.

use inkwell::module::Module;

/// Triples of device compilations.
const DEVICE_TRIPLE_PREFIXES: &[&str] = &["nvptx", "amdgcn", "spirv", "spir"];

/// Module flag clang sets on OpenMP device compilations.
const OPENMP_DEVICE_FLAG: &str = "openmp-device";

/// Whether `module` is a device module the pass must leave alone.
pub fn is_device_module(module: &Module<'_>) -> bool {
    let triple = module.get_triple();
    let triple = triple.as_str().to_string_lossy();
    DEVICE_TRIPLE_PREFIXES.iter().any(|p| triple.starts_with(p)) || module.get_flag(OPENMP_DEVICE_FLAG).is_some()
}
