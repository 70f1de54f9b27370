//! Resource limits. Each is reported as a located diagnostic when exceeded, never as a crash.

/// Deepest nesting of (), [] and {} in a directive: Clang's own default (`-fbracket-depth`).
pub const MAX_NESTING: usize = 256;

/// Most variants a region may have. The runtime (runtime/src/spec.rs, `MAX_VARIANTS`) accepts
/// exactly as many: a region that compiles always adapts.
pub const MAX_VARIANTS: usize = 1024;

/// Most features a region may have (the runtime's per-execution context holds them inline).
pub const MAX_FEATURES: usize = 16;
