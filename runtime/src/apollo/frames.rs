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

use std::cell::RefCell;

use super::handle::Handle;
use crate::ctx::{Ctx, MAX_FEATURES};
use crate::diag;

/// One execution between `begin` and `end`.
struct Frame {
    handle: &'static Handle,
    /// Features set so far (may exceed `MAX_FEATURES`; the extra ones are dropped).
    set: usize,
    decided: bool,
    /// Before the decision: the features set so far in `ctx.features`; after: the context the
    /// region filled (its contents past `nfeatures` belong to the runtime).
    ctx: Ctx,
}

thread_local! {
    static STACK: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
}

/// Most recent frame of `h` on this thread.
fn find(stack: &[Frame], h: &Handle) -> Option<usize> {
    stack.iter().rposition(|f| std::ptr::eq(f.handle, h))
}

/// `begin`: pushes an execution of `h`.
pub fn begin(h: &'static Handle) {
    let _ = STACK.try_with(|s| {
        s.borrow_mut().push(Frame { handle: h, set: 0, decided: false, ctx: Ctx::zeroed() })
    });
}

/// `set_feature`: appends `v` to the most recent execution of `h` (or, if `h` has none on this
/// thread or is not a handle, to the most recent execution).
pub fn set_feature(h: Option<&'static Handle>, v: f64) {
    let _ = STACK.try_with(|s| {
        let mut s = s.borrow_mut();
        let i = h.and_then(|h| find(&s, h)).or(s.len().checked_sub(1));
        let Some(i) = i else {
            diag::warn_once("apollo:feature-without-begin", "__apollo_region_set_feature called outside any region execution; ignored");
            return;
        };
        let f = &mut s[i];
        if f.decided {
            diag::warn_once(
                &format!("apollo:late-feature:{}", f.handle.id),
                &format!("Apollo region '{}': a feature set after get_policy is ignored", f.handle.id),
            );
            return;
        }
        if f.set < MAX_FEATURES {
            f.ctx.features[f.set] = v;
        } else if f.set == MAX_FEATURES {
            diag::warn_once(
                &format!("apollo:features:{}", f.handle.id),
                &format!("Apollo region '{}': more than {MAX_FEATURES} features set; the rest are ignored", f.handle.id),
            );
        }
        f.set += 1;
    });
}

/// `get_policy`: decides the most recent execution of `h` (once). `None` if `h` has no
/// execution on this thread.
pub fn get_policy(h: &'static Handle) -> Option<usize> {
    STACK
        .try_with(|s| {
            let mut s = s.borrow_mut();
            let i = find(&s, h)?;
            let f = &mut s[i];
            if !f.decided {
                let n = f.set.min(MAX_FEATURES);
                let features = f.ctx.features;
                h.decide(&features[..n], &mut f.ctx);
                f.decided = true;
            }
            Some(f.ctx.variant.max(0) as usize)
        })
        .ok()
        .flatten()
}

/// `end`: records the most recent execution of `h` if it was decided, and removes it. Returns
/// whether there was one.
pub fn end(h: &'static Handle) -> bool {
    STACK
        .try_with(|s| {
            let mut s = s.borrow_mut();
            let Some(i) = find(&s, h) else { return false };
            if s[i].decided {
                // Recording may train the model; it never calls back into this module, so the
                // stack may stay borrowed (and the frame is recorded in place, not copied).
                h.record(&s[i].ctx);
            }
            if i + 1 == s.len() {
                s.truncate(i);
            } else {
                s.remove(i);
            }
            true
        })
        .unwrap_or(false)
}

/// Executions begun and not ended on this thread (tests).
pub fn depth() -> usize {
    STACK.try_with(|s| s.borrow().len()).unwrap_or(0)
}
