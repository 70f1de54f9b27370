//! Points in saving and compacting where a test can stop the process (the crash-safety tests
//! kill a process there with SIGKILL and check that nothing is lost or counted twice). A
//! process-wide hook, unset unless a test sets it: one relaxed load per point otherwise.

use std::sync::atomic::{AtomicPtr, Ordering};

/// Where the hook is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    /// A compaction has renamed its `merged.json` into place and is about to delete a part
    /// it contains.
    BeforeUnlink,
    /// A save has written its part file and not yet marked its samples saved.
    AfterPartWrite,
}

static HOOK: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());

/// Sets (or clears) the hook.
pub fn set_hook(f: Option<fn(Point)>) {
    HOOK.store(f.map_or(std::ptr::null_mut(), |f| f as *mut ()), Ordering::Release);
}

/// Calls the hook, if set.
#[inline]
pub(crate) fn hook(p: Point) {
    let f = HOOK.load(Ordering::Acquire);
    if !f.is_null() {
        // SAFETY: only `set_hook` stores here, and it stores an `fn(Point)`.
        let f: fn(Point) = unsafe { std::mem::transmute::<*mut (), fn(Point)>(f) };
        f(p);
    }
}
