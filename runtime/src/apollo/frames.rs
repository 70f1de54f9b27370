//! Per-thread stacks of Apollo executions.
//!
//! Apollo's calls name no execution: `begin(r)`, `set_feature(r, v)`, `get_policy(r)`, `end(r)`
//! act on "the current context" of region `r`, which Apollo keeps in the region itself — so
//! two threads running one region overwrite each other's features and policies. Here each
//! thread has a stack of executions: `begin` pushes one, `set_feature` appends to the most
//! recent execution of that region on this thread, `get_policy` decides it (once; a second call
//! returns the same policy), `end` removes it and records it. Regions may nest, interleave
//! (`begin(a) begin(b) end(a) end(b)`) and run on any number of threads; nothing is shared
//! between threads except the region's own (thread-safe) recording.
//!
//! A `set_feature` whose region matches no execution of this thread goes to the most recent
//! execution: that is also what makes the one-argument `__apollo_region_set_feature(value)` of
//! the paper's Listing 2 work (the float arrives in the same register either way, the region
//! argument is then garbage and is only compared, never dereferenced).
//!
//! The stack is a fixed array of [`DEPTH`] frames in thread-local storage with no destructor:
//! each call is one thread-local address lookup and no lazy-initialisation check, no lock, no
//! allocation. Executions begun deeper than that on one thread run policy 0 unrecorded (one
//! warning).

use std::cell::UnsafeCell;

use super::handle::Handle;
use crate::ctx::{Ctx, MAX_FEATURES};
use crate::diag;

/// Executions one thread may have begun and not ended (nesting and interleaving).
pub const DEPTH: usize = 32;

/// One execution between `begin` and `end`.
#[derive(Clone, Copy)]
struct Frame {
    handle: *const Handle,
    /// Features set so far (may exceed `MAX_FEATURES`; the extra ones are dropped).
    set: usize,
    decided: bool,
    /// Before the decision: the features set so far in `ctx.features`; after: the context the
    /// region filled (its contents past `nfeatures` belong to the runtime).
    ctx: Ctx,
}

struct Stack {
    len: usize,
    /// Begins past [`DEPTH`] not yet ended.
    overflow: usize,
    frames: [Frame; DEPTH],
}

const EMPTY: Frame = Frame { handle: std::ptr::null(), set: 0, decided: false, ctx: Ctx::zeroed() };

thread_local! {
    static STACK: UnsafeCell<Stack> = const { UnsafeCell::new(Stack { len: 0, overflow: 0, frames: [EMPTY; DEPTH] }) };
}

/// Runs `f` on this thread's stack. Nothing called while it runs re-enters this module (the
/// region's decision and recording never call Apollo's ABI), so the access is exclusive.
#[inline(always)]
fn with<R>(f: impl FnOnce(&mut Stack) -> R) -> R {
    // SAFETY: the stack is this thread's own, and `f` never reaches another `with` (above).
    STACK.with(|s| f(unsafe { &mut *s.get() }))
}

/// Most recent frame of `h` on this thread.
#[inline(always)]
fn find(s: &Stack, h: *const Handle) -> Option<usize> {
    s.frames[..s.len].iter().rposition(|f| std::ptr::eq(f.handle, h))
}

/// `begin`: pushes an execution of `h`.
pub fn begin(h: &'static Handle) {
    with(|s| {
        if s.len == DEPTH {
            s.overflow += 1;
            diag::warn_once(
                "apollo:depth",
                &format!("more than {DEPTH} Apollo region executions begun and not ended on one thread; the deeper ones run policy 0 unrecorded"),
            );
            return;
        }
        let f = &mut s.frames[s.len];
        f.handle = h;
        f.set = 0;
        f.decided = false;
        s.len += 1;
    })
}

/// `set_feature`: appends `v` to the most recent execution of `h` (or, if `h` has none on this
/// thread or is not a handle, to the most recent execution).
#[inline]
pub fn set_feature(h: Option<&'static Handle>, v: f64) {
    with(|s| {
        let top = s.len.checked_sub(1);
        let i = match (h, top) {
            (Some(h), Some(t)) if std::ptr::eq(s.frames[t].handle, h) => Some(t),
            (Some(h), _) => find(s, h).or(top),
            (None, _) => top,
        };
        let Some(i) = i else {
            if s.overflow == 0 {
                diag::warn_once("apollo:feature-without-begin", "__apollo_region_set_feature called outside any region execution; ignored");
            }
            return;
        };
        let f = &mut s.frames[i];
        if f.decided {
            // SAFETY: frames in the stack hold handles `begin` received (never freed).
            let id = unsafe { &(*f.handle).id };
            diag::warn_once(&format!("apollo:late-feature:{id}"), &format!("Apollo region '{id}': a feature set after get_policy is ignored"));
            return;
        }
        if f.set < MAX_FEATURES {
            f.ctx.features[f.set] = v;
        } else if f.set == MAX_FEATURES {
            // SAFETY: as above.
            let id = unsafe { &(*f.handle).id };
            diag::warn_once(
                &format!("apollo:features:{id}"),
                &format!("Apollo region '{id}': more than {MAX_FEATURES} features set; the rest are ignored"),
            );
        }
        f.set += 1;
    })
}

/// `get_policy`: decides the most recent execution of `h` (once). `None` if `h` has no
/// execution on this thread (Some(0) for one begun too deep).
pub fn get_policy(h: &'static Handle) -> Option<usize> {
    with(|s| {
        let Some(i) = find(s, h) else {
            return (s.overflow > 0).then_some(0);
        };
        let f = &mut s.frames[i];
        if !f.decided {
            let n = f.set.min(MAX_FEATURES);
            let features = f.ctx.features;
            h.decide(&features[..n], &mut f.ctx);
            f.decided = true;
        }
        Some(f.ctx.variant.max(0) as usize)
    })
}

/// `end`: records the most recent execution of `h` if it was decided, and removes it. Returns
/// whether there was one.
pub fn end(h: &'static Handle) -> bool {
    with(|s| {
        let Some(i) = find(s, h) else {
            if s.overflow > 0 {
                s.overflow -= 1;
                return true;
            }
            return false;
        };
        if s.frames[i].decided {
            // Recording may train the model; it never calls back into this module.
            h.record(&s.frames[i].ctx);
        }
        s.frames.copy_within(i + 1..s.len, i);
        s.len -= 1;
        true
    })
}

/// Executions begun and not ended on this thread (tests).
pub fn depth() -> usize {
    with(|s| s.len + s.overflow)
}
