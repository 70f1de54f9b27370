//! Whether something process-wide needs every execution's full `begin` and `end`: the trace
//! (`OMPADAPT_TRACE`) and the data-movement tool. One flag, so that the trained path's memo
//! (`region::memo`) checks both with one load. Set when either starts, never cleared (a trace
//! that finishes at exit leaves the memo off: the process is ending).

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

static NEEDED: AtomicBool = AtomicBool::new(false);

/// Something needs every execution's full path from now on.
pub fn need() {
    NEEDED.store(true, Relaxed);
    // the program's memo starts executions without either
    crate::program_memo::invalidate();
}

/// Whether something needs every execution's full path.
#[inline(always)]
pub fn needed() -> bool {
    NEEDED.load(Relaxed)
}
