//! `ompadapt_ctx`: one execution of an adaptive region, on the caller's stack.
//!
//! The layout mirrors `struct ompadapt_ctx` in `include/ompadapt.h` exactly; the assertions at
//! the bottom of this file fail the build if the two drift apart, and `tests/c_abi.rs` checks
//! `sizeof`/`offsetof` from the C side.

use std::os::raw::{c_char, c_int, c_void};

/// `OMPADAPT_API_VERSION`.
pub const API_VERSION: u32 = 6;
/// The version of the context's layout (`ompadapt_ctx`), which the functions that take one
/// carry in their symbols (`ompadapt_begin_v5`, ...): version 6 kept version 5's.
pub const CONTEXT_VERSION: u32 = 5;
/// `OMPADAPT_MAX_FEATURES`: features beyond this are ignored (with a warning, once per region).
pub use ompadapt_abi::MAX_FEATURES;

/// How an execution started (`ompadapt_ctx.t0`): its start time in [`crate::clock`] units, and
/// how `end` must treat it. The C header shows an `unsigned long long` private to the runtime;
/// the runtime packs the flags into its top bits (the clock never reaches 2^58 units: years of
/// uptime), so the generated code sees the same 8 bytes whatever the runtime keeps there.
/// Keeping this in the context (rather than in the region) is what lets concurrent executions
/// of one region stay independent. Only this type knows the bits: everything else asks it.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Start(u64);

impl Start {
    /// Must run but not be recorded (warm-up, a region whose spec could not be parsed, a
    /// replacement that is no variant).
    const NO_RECORD: u64 = 1 << 63;
    /// A published decision chose the variant (a trained execution).
    const DECIDED: u64 = 1 << 62;
    /// With `DECIDED`: the program's memo started the execution and counted it already
    /// (`OMPADAPT_MEMO_COUNTED` in the header is exactly `DECIDED | COUNTED`).
    const COUNTED: u64 = 1 << 61;
    /// The variant's first execution in this process (a cold measurement).
    const COLD: u64 = 1 << 60;
    /// Traced (`OMPADAPT_TRACE`); the time bits hold its start.
    const TRACED: u64 = 1 << 59;
    /// With `TRACED`: the start was read for the trace only; recording sees none.
    const UNTIMED: u64 = 1 << 58;
    const FLAGS: u64 = Self::NO_RECORD | Self::DECIDED | Self::COUNTED | Self::COLD | Self::TRACED | Self::UNTIMED;
    /// `OMPADAPT_MEMO_COUNTED`: what the program's memo writes.
    pub const MEMO_COUNTED: Start = Start(Self::DECIDED | Self::COUNTED);

    /// No start: what a context holds before `begin`, and after a `begin` that left the region
    /// NULL (then `end` reads nothing).
    pub const NONE: Start = Start(0);

    /// An execution that runs but is not recorded.
    pub(crate) const fn unrecorded() -> Start {
        Start(Self::NO_RECORD)
    }

    /// An exploring execution (or one an associated region fixed) started at `at`.
    pub(crate) fn exploring(at: u64, cold: bool) -> Start {
        Start(at & !Self::FLAGS | if cold { Self::COLD } else { 0 })
    }

    /// A trained execution; `at` = 0: not timed (between samples, or cold).
    pub(crate) fn decided(at: u64) -> Start {
        Start(at & !Self::FLAGS | Self::DECIDED)
    }

    /// When the execution started (clock units); 0 when it is not timed.
    pub fn at(self) -> u64 {
        self.0 & !Self::FLAGS
    }

    /// Whether recording will time this execution.
    pub fn is_timed(self) -> bool {
        self.at() != 0
    }

    /// Moves a timed start `ticks` earlier (never to 0, which means untimed); an untimed start
    /// stays untimed. Tests and benchmarks use it to give an execution a synthetic duration.
    pub fn backdate(&mut self, ticks: u64) {
        if self.is_timed() {
            self.0 = (self.at().saturating_sub(ticks).max(1)) | (self.0 & Self::FLAGS);
        }
    }

    /// The same start with its time replaced by `at` (flags kept; 0: untimed).
    pub(crate) fn with_time(self, at: u64) -> Start {
        Start(at & !Self::FLAGS | (self.0 & Self::FLAGS))
    }

    pub(crate) fn records(self) -> bool {
        self.0 & Self::NO_RECORD == 0
    }
    pub(crate) fn was_decided(self) -> bool {
        self.0 & Self::DECIDED != 0
    }
    pub(crate) fn is_cold(self) -> bool {
        self.0 & Self::COLD != 0
    }
    pub(crate) fn is_traced(self) -> bool {
        self.0 & Self::TRACED != 0
    }
    /// An untimed trained execution, nothing else: `end` only counts it.
    #[inline(always)]
    pub(crate) fn is_plain_trained(self) -> bool {
        self.0 == Self::DECIDED
    }

    /// Started and counted by the program's memo (untimed), whatever happened since.
    #[inline(always)]
    pub(crate) fn is_counted(self) -> bool {
        self.0 & Self::COUNTED != 0
    }
    /// The same start, no longer counted (recording counts it as a trained execution).
    pub(crate) fn uncounted(self) -> Start {
        Start(self.0 & !Self::COUNTED)
    }

    /// Not recorded from now on.
    pub(crate) fn set_unrecorded(&mut self) {
        self.0 |= Self::NO_RECORD;
    }
    pub(crate) fn set_cold(&mut self, cold: bool) {
        self.0 = self.0 & !Self::COLD | if cold { Self::COLD } else { 0 };
    }

    /// Marks the execution traced. An execution recording does not time gets a start `now`
    /// for the trace alone.
    pub(crate) fn set_traced(&mut self, now: impl FnOnce() -> u64) {
        let untimed = if self.is_timed() { 0 } else { now() & !Self::FLAGS | Self::UNTIMED };
        self.0 |= Self::TRACED | untimed;
    }

    /// A traced execution: (when the trace says it started, the start recording sees).
    pub(crate) fn untraced(self) -> (u64, Start) {
        let untraced = if self.0 & Self::UNTIMED != 0 { self.0 & Self::FLAGS } else { self.0 };
        (self.at(), Start(untraced & !(Self::TRACED | Self::UNTIMED)))
    }
}

/// One execution of an adaptive region (`ompadapt_ctx`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    /// `*const Region`; null when the runtime could not serve the region (then `end` is a no-op).
    pub region: *mut c_void,
    /// How the execution started (private to the runtime: an `unsigned long long` in C).
    pub t0: Start,
    /// Index of the selected variant, in declaration order.
    pub variant: c_int,
    /// Number of valid entries in `features`.
    pub nfeatures: c_int,
    /// Numeric value of the selected variant (its index if the variants are categorical).
    pub value: f64,
    /// The features, copied at `begin`. Entries past `nfeatures` are unspecified.
    pub features: [f64; MAX_FEATURES],
    /// (API version 4) The `__PRETTY_FUNCTION__` of the template instantiation the region is
    /// in, read by `begin` only when the descriptor says `instanced=1` (the generated code sets
    /// it there, and nowhere else).
    pub instance: *const c_char,
    /// (API version 5) Private to the runtime: what `end` records into (a slot of the calling
    /// thread's shard), or null; written by every `begin` that sets `region`
    /// ([`Ctx::keep_for_end`]).
    pub kept: *const c_void,
}

impl Ctx {
    /// An all-zero context, as a C caller would typically declare it.
    pub const fn zeroed() -> Self {
        Ctx {
            region: std::ptr::null_mut(),
            t0: Start::NONE,
            variant: 0,
            nfeatures: 0,
            value: 0.0,
            features: [0.0; MAX_FEATURES],
            instance: std::ptr::null(),
            kept: std::ptr::null(),
        }
    }

    /// Keeps `p` (null: nothing) for `end`: where it records.
    #[inline(always)]
    pub(crate) fn keep_for_end(&mut self, p: *const ()) {
        self.kept = p.cast();
    }

    /// What [`Ctx::keep_for_end`] kept, or null.
    #[inline(always)]
    pub(crate) fn kept_for_end(&self) -> *const () {
        self.kept.cast()
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
    assert!(offset_of!(Ctx, kept) == 40 + 8 * MAX_FEATURES);
    assert!(size_of::<Ctx>() == 48 + 8 * MAX_FEATURES);
    assert!(size_of::<Ctx>() == 176);
    assert!(align_of::<Ctx>() == 8);
    assert!(size_of::<Start>() == 8 && align_of::<Start>() == 8);
};

#[cfg(test)]
mod tests {
    use super::Start;

    /// Backdating moves a timed start and keeps what `end` needs to know; an untimed start
    /// stays untimed.
    #[test]
    fn a_start_backdates_only_its_time() {
        let mut s = Start::decided(1_000);
        s.backdate(400);
        assert_eq!((s.at(), s.was_decided(), s.records()), (600, true, true));
        s.backdate(10_000);
        assert_eq!(s.at(), 1, "never 0, which would mean untimed");
        let mut u = Start::decided(0);
        u.backdate(5);
        assert_eq!(u, Start::decided(0));
        let mut t = Start::exploring(0, true);
        t.set_traced(|| 77);
        let (at, untraced) = t.untraced();
        assert_eq!((at, untraced), (77, Start::exploring(0, true)), "the trace's start is not recording's");
    }

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
        // the symbols of the functions that take a context carry its layout's version (ffi.rs's
        // export names; runtime/tests/c/abi_test.c links through the header)
        let label = format!("#define __OMPADAPT_V(name) __asm__(#name \"_v{}\")", super::CONTEXT_VERSION);
        assert!(h.contains(&label), "{label}");
        // the program's memo (runtime/src/program_memo.rs)
        assert_eq!(define("OMPADAPT_MEMO_FEATURES"), crate::program_memo::MEMO_FEATURES);
        assert!(h.contains(&format!("#define OMPADAPT_MEMO_COUNTED {:#X}ULL", Start::MEMO_COUNTED.0)), "MEMO_COUNTED");
    }
}
