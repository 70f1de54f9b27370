//! Resource limits. Each is reported as a located diagnostic when exceeded, never as a crash.

/// Deepest nesting of (), [] and {} in a directive: Clang's own default (`-fbracket-depth`).
pub const MAX_NESTING: usize = 256;

/// Most variants and features a region may have: the contract crate's limits, which the
/// runtime accepts exactly (a region that compiles always adapts).
pub use ompadapt_abi::{MAX_FEATURES, MAX_VARIANTS};
