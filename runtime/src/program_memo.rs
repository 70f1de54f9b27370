//! The program's memo (API version 6, `struct ompadapt_memo` in `include/ompadapt.h`): the
//! precompiled begin of the generated code keeps, per thread, a table of recent trained
//! executions and starts a repeat without calling the runtime (it counts the execution and
//! steps the thread's sampling countdown itself, through pointers into the thread's shard).
//! The runtime fills an entry ([`crate::region::Region`]'s `fill_program_memo`) only where its
//! own memo would start the same execution, and an entry is used only while [`GENERATION`] is
//! the value it was filled under: everything that may change such a decision bumps it
//! ([`invalidate`]). Rare events (a published model, a drift, a vector that starts exploring, a
//! variant made unavailable, a pin, tracing or the data-movement tool starting), so one
//! process-wide counter: one load on the program's side.

use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};

/// `OMPADAPT_MEMO_FEATURES`: longer vectors never use the program's memo.
pub const MEMO_FEATURES: usize = 4;

/// The generation entries are valid for. Starts at 1: an empty entry (all zero) never is.
pub static GENERATION: AtomicU64 = AtomicU64::new(1);

/// Every entry of every program's memo is stale from now on. Call it after the change (the
/// filling side reads the generation before it looks at a decision).
#[inline]
pub fn invalidate() {
    GENERATION.fetch_add(1, Release);
}

/// The current generation (read before looking at what an entry will hold).
#[inline(always)]
pub fn generation() -> u64 {
    GENERATION.load(Acquire)
}

/// `struct ompadapt_memo`: one entry of a thread's table in the program.
#[repr(C)]
#[derive(Debug)]
pub struct MemoEntry {
    /// The call site's slot (null: empty).
    pub site: *const c_void,
    /// [`GENERATION`] when filled.
    pub generation: u64,
    /// The vector's length.
    pub nfeatures: c_int,
    /// The decision.
    pub variant: c_int,
    /// Its value.
    pub value: f64,
    /// `ctx.region`.
    pub region: *mut c_void,
    /// `ctx.kept`: the slot.
    pub kept: *const c_void,
    /// The slot's count of `variant` (the calling thread's).
    pub count: *const AtomicU64,
    /// The calling thread's countdown to its next timed execution.
    pub sample_left: *const AtomicU32,
    /// The vector's raw bits.
    pub features: [u64; MEMO_FEATURES],
}

// Layout check against the C header (LP64).
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(offset_of!(MemoEntry, generation) == 8);
    assert!(offset_of!(MemoEntry, nfeatures) == 16);
    assert!(offset_of!(MemoEntry, variant) == 20);
    assert!(offset_of!(MemoEntry, value) == 24);
    assert!(offset_of!(MemoEntry, region) == 32);
    assert!(offset_of!(MemoEntry, kept) == 40);
    assert!(offset_of!(MemoEntry, count) == 48);
    assert!(offset_of!(MemoEntry, sample_left) == 56);
    assert!(offset_of!(MemoEntry, features) == 64);
    assert!(size_of::<MemoEntry>() == 96);
};

/// An empty entry (tests).
#[cfg(test)]
pub(crate) fn tests_empty() -> MemoEntry {
    MemoEntry {
        site: std::ptr::null(),
        generation: 0,
        nfeatures: 0,
        variant: 0,
        value: 0.0,
        region: std::ptr::null_mut(),
        kept: std::ptr::null(),
        count: std::ptr::null(),
        sample_left: std::ptr::null(),
        features: [0; MEMO_FEATURES],
    }
}
