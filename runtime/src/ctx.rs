//! `ompadapt_ctx`: one execution of an adaptive region, on the caller's stack.
//!
//! The layout mirrors `struct ompadapt_ctx` in `include/ompadapt.h` exactly; the assertions at
//! the bottom of this file fail the build if the two drift apart, and `tests/c_abi.rs` checks
//! `sizeof`/`offsetof` from the C side.

use std::os::raw::{c_char, c_int, c_void};

/// `OMPADAPT_API_VERSION`.
pub const API_VERSION: u32 = 4;
/// `OMPADAPT_MAX_FEATURES`: features beyond this are ignored (with a warning, once per region).
pub use ompadapt_abi::MAX_FEATURES;

/// Bit of [`Ctx::t0`] that marks an execution that must run but not be recorded (warm-up, or a
/// region whose spec could not be parsed). The clock never reaches 2^63 ns (292 years), and
/// `t0` is private to the runtime, so the generated code is unaffected. Keeping the flag in the
/// context (rather than in the region) is what lets concurrent executions of one region stay
/// independent.
pub(crate) const T0_NO_RECORD: u64 = 1 << 63;

/// One execution of an adaptive region (`ompadapt_ctx`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    /// `*const Region`; null when the runtime could not serve the region (then `end` is a no-op).
    pub region: *mut c_void,
    /// Start of the execution in [`crate::clock`] units, possibly or-ed with `T0_NO_RECORD`.
    pub t0: u64,
    /// Index of the selected variant, in declaration order.
    pub variant: c_int,
    /// Number of valid entries in `features`.
    pub nfeatures: c_int,
    /// Numeric value of the selected variant (its index if the variants are categorical).
    pub value: f64,
    /// The features, copied at `begin`. Entries past `nfeatures` are the runtime's scratch
    /// space (it keeps where `end` records there): their contents are unspecified.
    pub features: [f64; MAX_FEATURES],
    /// (API version 4) The `__PRETTY_FUNCTION__` of the template instantiation the region is
    /// in, read by `begin` only when the descriptor says `instanced=1` (the generated code sets
    /// it there, and nowhere else).
    pub instance: *const c_char,
}

impl Ctx {
    /// An all-zero context, as a C caller would typically declare it.
    pub const fn zeroed() -> Self {
        Ctx {
            region: std::ptr::null_mut(),
            t0: 0,
            variant: 0,
            nfeatures: 0,
            value: 0.0,
            features: [0.0; MAX_FEATURES],
            instance: std::ptr::null(),
        }
    }

    /// The valid features of this execution.
    pub fn feature_slice(&self) -> &[f64] {
        let n = (self.nfeatures.max(0) as usize).min(MAX_FEATURES);
        &self.features[..n]
    }
}

impl Default for Ctx {
    fn default() -> Self {
        Self::zeroed()
    }
}

// Compile-time layout check against the C header (x86-64 / aarch64 LP64 ABI).
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<*mut c_void>() == 8, "ompadapt_ctx layout is checked for LP64 targets only");
    assert!(offset_of!(Ctx, region) == 0);
    assert!(offset_of!(Ctx, t0) == 8);
    assert!(offset_of!(Ctx, variant) == 16);
    assert!(offset_of!(Ctx, nfeatures) == 20);
    assert!(offset_of!(Ctx, value) == 24);
    assert!(offset_of!(Ctx, features) == 32);
    assert!(offset_of!(Ctx, instance) == 32 + 8 * MAX_FEATURES);
    assert!(size_of::<Ctx>() == 40 + 8 * MAX_FEATURES);
    assert!(size_of::<Ctx>() == 168);
    assert!(align_of::<Ctx>() == 8);
};

#[cfg(test)]
mod tests {
    /// The C header states the same limits as the contract crate.
    #[test]
    fn the_header_agrees() {
        let h = include_str!("../include/ompadapt.h");
        let define = |name: &str| {
            let line = h.lines().find(|l| l.starts_with(&format!("#define {name} "))).unwrap_or_else(|| panic!("{name} missing"));
            line.split_whitespace().nth(2).unwrap().parse::<usize>().unwrap()
        };
        assert_eq!(define("OMPADAPT_MAX_FEATURES"), super::MAX_FEATURES);
        assert_eq!(define("OMPADAPT_API_VERSION"), super::API_VERSION as usize);
    }
}
