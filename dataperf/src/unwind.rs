//! The caller of the function a construct is in, read from the stack once, at the construct's
//! first event: what lets a suggestion name the loop that calls a function which maps its data
//! on every call. libgcc's unwinder walks the stack (the tool links libgcc_s already); a
//! construct whose return address is not on the stack (a `nowait` construct run by a task) has
//! no caller.

use std::ffi::{c_int, c_void};

#[repr(C)]
struct UnwindContext {
    _opaque: [u8; 0],
}

type Trace = extern "C" fn(*mut UnwindContext, *mut c_void) -> c_int;

unsafe extern "C" {
    fn _Unwind_Backtrace(trace: Trace, arg: *mut c_void) -> c_int;
    fn _Unwind_GetIP(ctx: *mut UnwindContext) -> usize;
}

const URC_NO_REASON: c_int = 0;
const URC_NORMAL_STOP: c_int = 4;
/// Frames looked at, at most: the construct's own frame is a few above the callback's.
const MAX_FRAMES: usize = 64;

struct Walk {
    ra: usize,
    found: bool,
    caller: usize,
    frames: usize,
}

extern "C" fn frame(ctx: *mut UnwindContext, arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the Walk that caller_of hands to _Unwind_Backtrace, alive during the
    // walk; `ctx` is the unwinder's context of this frame.
    let (w, ip) = unsafe { (&mut *(arg as *mut Walk), _Unwind_GetIP(ctx)) };
    w.frames += 1;
    if w.found {
        w.caller = ip;
        return URC_NORMAL_STOP;
    }
    w.found = ip == w.ra;
    if w.frames >= MAX_FRAMES {
        URC_NORMAL_STOP
    } else {
        URC_NO_REASON
    }
}

/// The return address one frame above the frame that returns to `ra` on the current thread's
/// stack: where the function holding the call at `ra` was called from (0: `ra` is not on the
/// stack, or it is the outermost frame).
pub fn caller_of(ra: usize) -> usize {
    if ra == 0 {
        return 0;
    }
    let mut w = Walk { ra, found: false, caller: 0, frames: 0 };
    // SAFETY: the trace function only touches `w`, which outlives the call.
    unsafe { _Unwind_Backtrace(frame, &mut w as *mut Walk as *mut c_void) };
    w.caller
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn callee(out: &mut (usize, usize)) {
        // The return address of this call into `probe` is on the stack while it runs.
        probe(out);
        std::hint::black_box(&out);
    }

    #[inline(never)]
    fn probe(out: &mut (usize, usize)) {
        // Find the return address into `callee` by walking from here: the second frame.
        struct Nth(usize, usize);
        extern "C" fn nth(ctx: *mut UnwindContext, arg: *mut c_void) -> c_int {
            let n = unsafe { &mut *(arg as *mut Nth) };
            n.0 -= 1;
            if n.0 == 0 {
                n.1 = unsafe { _Unwind_GetIP(ctx) };
                return URC_NORMAL_STOP;
            }
            URC_NO_REASON
        }
        let mut n = Nth(2, 0);
        unsafe { _Unwind_Backtrace(nth, &mut n as *mut Nth as *mut c_void) };
        *out = (n.1, caller_of(n.1));
    }

    #[test]
    fn finds_the_frame_above_a_return_address() {
        let mut out = (0, 0);
        callee(&mut out);
        let (into_callee, above) = out;
        assert_ne!(into_callee, 0);
        // The frame above `callee` is this test: its return address lies in this function.
        let here = finds_the_frame_above_a_return_address as fn() as usize;
        assert!(above > here && above < here + 4096, "{above:#x} vs {here:#x}");
        assert_eq!(caller_of(0), 0);
        assert_eq!(caller_of(8), 0);
    }
}
