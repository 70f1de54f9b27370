//! Limits shared by the frontend, which reports a located error when a region exceeds one, and
//! the runtime, which accepts exactly as much: a region that compiles always adapts.

/// Most variants a region may have. A power of two.
pub const MAX_VARIANTS: usize = 1024;

/// Most features a region may have: the runtime's per-execution context (`ompadapt_ctx` in
/// `ompadapt.h`, `OMPADAPT_MAX_FEATURES`) holds them inline.
pub const MAX_FEATURES: usize = 16;
