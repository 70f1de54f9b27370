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
//! The stack is a fixed array of [`DEPTH`] frames. A thread finds its own through a table
//! indexed by its thread id (the thread pointer, one instruction), not through a thread-local:
//! in a `dlopen`ed library every thread-local access is a call to `__tls_get_addr`, and an
//! Apollo execution makes one per call (4 features: 7 calls). The table's entry is claimed
//! once per thread (a thread whose entry is taken by another falls back to its thread-local
//! pointer) and released, with the stack, when the thread exits. No lock, no allocation on
//! any call but a thread's first. Executions begun deeper than [`DEPTH`] on one thread run
//! policy 0 unrecorded (one warning).

use std::cell::Cell;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering::*};
use std::sync::Mutex;

use super::handle::Handle;
use crate::ctx::{Ctx, MAX_FEATURES};
use crate::diag;
use crate::shard::{thread_id, Shard};

/// Executions one thread may have begun and not ended (nesting and interleaving).
pub const DEPTH: usize = 32;

/// [`Frame::state`]'s flag of a decided execution.
const DECIDED: usize = 1 << (usize::BITS - 1);

/// One execution between `begin` and `end`.
#[derive(Clone, Copy)]
struct Frame {
    /// The pointer the program passes for the region (what `create` returned).
    key: *const c_void,
    handle: *const Handle,
    /// Features set so far (may exceed `MAX_FEATURES`; the extra ones are dropped), with
    /// [`DECIDED`] once decided: one compare tells `set_feature`'s usual case (undecided,
    /// room left) from the rest.
    state: usize,
    /// The calling thread's shard of `shard_of`'s region, kept from an earlier execution in
    /// this frame (a loop begins the same region at the same depth): the memo's lookup
    /// without finding the shard again. Cleared when the thread exits (the stack is reused).
    shard_of: *const Handle,
    shard: *const Shard,
    /// Before the decision: the features set so far in `ctx.features`; after: the context the
    /// region filled (its `kept` belongs to the runtime).
    ctx: Ctx,
}

struct Stack {
    len: usize,
    /// Begins past [`DEPTH`] not yet ended.
    overflow: usize,
    frames: [Frame; DEPTH],
    /// The innermost frame of an empty stack, as [`Owner::top`] holds it, so that the fast
    /// paths never test for null: its key is its own address (no handle has it), and it is
    /// decided and full, so `set_feature` never writes it, `get_policy` returns its policy 0
    /// and `end` finds no plain trained execution (its context is zeroed), all without
    /// touching its null handle.
    sentinel: Frame,
}

impl Stack {
    /// An empty stack at a stable address (the sentinel's key is that address).
    fn new() -> *mut Stack {
        let p = Box::into_raw(Box::new(Stack { len: 0, overflow: 0, frames: [EMPTY; DEPTH], sentinel: EMPTY }));
        // SAFETY: just allocated, not yet shared.
        let s = unsafe { &mut *p };
        s.sentinel.key = (&s.sentinel as *const Frame).cast();
        s.sentinel.state = DECIDED | MAX_FEATURES;
        p
    }
}

const EMPTY: Frame = Frame {
    key: std::ptr::null(),
    handle: std::ptr::null(),
    state: 0,
    shard_of: std::ptr::null(),
    shard: std::ptr::null(),
    ctx: Ctx::zeroed(),
};

impl Frame {
    /// Features set so far (beyond [`MAX_FEATURES`]: counted, dropped).
    #[inline(always)]
    fn set(&self) -> usize {
        self.state & !DECIDED
    }

    #[inline(always)]
    fn decided(&self) -> bool {
        self.state & DECIDED != 0
    }

    /// Begins an execution of `h`, which the program calls `key`, in this frame.
    #[inline(always)]
    fn start(&mut self, key: *const c_void, h: *const Handle) {
        self.key = key;
        self.handle = h;
        self.state = 0;
    }

    /// Decides the execution from its region's memo if it can (false: nothing changed), with
    /// the shard kept in the frame.
    #[inline(always)]
    fn decide_from_memo(&mut self) -> bool {
        // SAFETY: frames in the stack hold handles `begin` received (never freed).
        let h = unsafe { &*self.handle };
        if !std::ptr::eq(self.shard_of, h) {
            let Some(shard) = h.region.cached_shard() else { return false };
            self.shard = shard;
            self.shard_of = h;
        }
        // SAFETY: the calling thread's shard of the region (kept above, or by an earlier
        // execution in this frame on this thread: a thread's frames are cleared when it exits);
        // shards live as long as their region.
        let shard = unsafe { &*self.shard };
        // undecided (the callers' test): the state is the count of features set
        if !h.region.begin_memo_filled(shard, self.state.min(MAX_FEATURES), &mut self.ctx) {
            return false;
        }
        self.state |= DECIDED;
        true
    }
}

/// Entries of the thread table.
const THREADS: usize = 256;
/// Marks a table entry being filled.
const FILLING: usize = 1;
/// An entry of the thread table: the thread id that owns it (0: free; published with release
/// after the stack), that thread's stack, and its innermost frame (null: none), side by side
/// (one address for all three): `set_feature` and `get_policy` read the frame without the
/// stack's length. A cache line each, since the owner writes `top` on every `begin` and `end`.
#[repr(C, align(64))]
struct Owner {
    tid: AtomicUsize,
    stack: AtomicPtr<Stack>,
    /// Written by the owner thread only: after every change of its stack's length.
    top: AtomicPtr<Frame>,
}

static THREAD_TABLE: [Owner; THREADS] =
    [const { Owner { tid: AtomicUsize::new(0), stack: AtomicPtr::new(null_mut()), top: AtomicPtr::new(null_mut()) } }; THREADS];

/// The innermost frame of `s` as [`Owner::top`] holds it: the sentinel when `s` is empty.
#[inline(always)]
fn top_of(s: &mut Stack) -> *mut Frame {
    match s.len.checked_sub(1) {
        // SAFETY: `len <= DEPTH` always (`begin` pushes only below it).
        Some(top) => unsafe { s.frames.get_unchecked_mut(top) },
        None => &mut s.sentinel,
    }
}
/// Stacks of exited threads, reused by new ones (emptied).
static SPARE: Mutex<Vec<usize>> = Mutex::new(Vec::new());

thread_local! {
    /// This thread's stack (null before its first call).
    static OWN: Cell<*mut Stack> = const { Cell::new(null_mut()) };
    static EXIT: ThreadExit = const { ThreadExit };
}

/// Releases the thread's table entry and keeps its stack for another thread.
struct ThreadExit;

impl Drop for ThreadExit {
    fn drop(&mut self) {
        let tid = thread_id();
        let i = slot_of(tid);
        if THREAD_TABLE[i].tid.load(Relaxed) == tid {
            THREAD_TABLE[i].top.store(null_mut(), Relaxed);
            THREAD_TABLE[i].tid.store(0, Release);
        }
        let p = OWN.with(|o| o.replace(null_mut()));
        if !p.is_null() {
            // SAFETY: only this thread uses its stack, and it runs no more executions here.
            let s = unsafe { &mut *p };
            s.len = 0;
            s.overflow = 0;
            for f in s.frames.iter_mut() {
                f.shard_of = std::ptr::null(); // the shards kept are this thread's
            }
            SPARE.lock().unwrap_or_else(|e| e.into_inner()).push(p as usize);
        }
    }
}

#[inline(always)]
fn slot_of(tid: usize) -> usize {
    // thread pointers are far apart and aligned: mix the bits of the low half (where the
    // threads of one process differ; a 32-bit multiply needs no 64-bit constant)
    ((tid as u32).wrapping_mul(0x9E37_79B9) >> 24) as usize % THREADS
}

/// This thread's stack: its first call allocates one (or reuses an exited thread's).
#[cold]
#[inline(never)]
fn stack_slow(tid: usize, i: usize) -> *mut Stack {
    let (p, exits) = OWN.with(|o| {
        if o.get().is_null() {
            let spare = SPARE.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let p = match spare {
                Some(p) => p as *mut Stack,
                None => Stack::new(),
            };
            o.set(p);
        }
        // false once the thread's destructors run (a call from a later one): then the stack
        // is never released and the table entry not claimed
        (o.get(), EXIT.try_with(|_| ()).is_ok())
    });
    let e = &THREAD_TABLE[i];
    if exits && tid > FILLING && e.tid.compare_exchange(0, FILLING, Acquire, Relaxed).is_ok() {
        e.stack.store(p, Relaxed);
        e.tid.store(tid, Release);
    }
    p
}

/// Runs `f` on this thread's stack. Nothing called while it runs re-enters this module (the
/// region's decision and recording never call Apollo's ABI), so the access is exclusive.
#[inline(always)]
fn with<R>(f: impl FnOnce(&mut Stack) -> R) -> R {
    let tid = thread_id();
    let i = slot_of(tid);
    let e = &THREAD_TABLE[i];
    let p = if e.tid.load(Acquire) == tid { e.stack.load(Relaxed) } else { stack_slow(tid, i) };
    // SAFETY: the stack is this thread's own (entry `i` names this thread, or it is the
    // thread's own pointer), and `f` never reaches another `with` (above).
    let s = unsafe { &mut *p };
    let r = f(s);
    if e.tid.load(Relaxed) == tid {
        e.top.store(top_of(s), Relaxed); // the fast paths' view of the stack
    }
    r
}

/// This thread's table entry if it has one (no call, nothing to save: the fast paths' first
/// step, once per call).
#[inline(always)]
fn entry() -> Option<&'static Owner> {
    let tid = thread_id();
    let e = &THREAD_TABLE[slot_of(tid)];
    (e.tid.load(Acquire) == tid).then_some(e)
}

/// This thread's innermost frame (its stack's sentinel when empty) if the thread table has it.
#[inline(always)]
fn cached_top() -> Option<&'static mut Frame> {
    top_in(entry()?)
}

/// The innermost frame `e` holds (an entry of this thread).
#[inline(always)]
fn top_in(e: &Owner) -> Option<&'static mut Frame> {
    let p = e.top.load(Relaxed);
    // SAFETY: an entry naming this thread holds a frame of its stack, never null (only the
    // owner writes it, after every change of its stack's length; a new owner's first call,
    // through `with`, sets it before any fast path reads it), and the access is exclusive as
    // in `with`.
    unsafe {
        std::hint::assert_unchecked(!p.is_null());
        Some(&mut *p)
    }
}

/// `e`'s stack (an entry of this thread).
#[inline(always)]
fn stack_of(e: &Owner) -> &'static mut Stack {
    let p = e.stack.load(Relaxed);
    // SAFETY: an entry naming a thread holds its stack (stored before the id was published),
    // never null; as in `with`, the stack is this thread's own.
    unsafe {
        std::hint::assert_unchecked(!p.is_null());
        &mut *p
    }
}

/// `set_feature`'s usual case, without a call: the innermost execution is `key`'s, undecided,
/// with room for the feature. False: nothing done, [`set_feature`] handles it.
#[inline(always)]
pub fn set_feature_fast(key: *const c_void, v: f64) -> bool {
    let Some(f) = cached_top() else { return false };
    // one compare: undecided (no `DECIDED` bit) and room left
    let set = f.state;
    if !std::ptr::eq(f.key, key) || set >= MAX_FEATURES {
        return false;
    }
    f.ctx.features[set] = v;
    f.state = set + 1;
    true
}

/// `begin`'s usual case, without a call: room on a stack the thread table has. False: nothing
/// done, [`begin`] handles it.
#[inline(always)]
pub fn begin_fast(key: *const c_void, h: &'static Handle) -> bool {
    let Some(e) = entry() else { return false };
    let s = stack_of(e);
    let Some(f) = s.frames.get_mut(s.len) else { return false };
    f.start(key, h);
    s.len += 1;
    e.top.store(f, Relaxed);
    true
}

/// `get_policy`'s usual case, without a call: the innermost execution is `key`'s, and it is
/// decided already or the region's memo decides it. None: nothing done, [`get_policy`]
/// handles it.
#[inline(always)]
pub fn get_policy_fast(key: *const c_void) -> Option<usize> {
    let f = cached_top()?;
    if !std::ptr::eq(f.key, key) {
        return None;
    }
    if !f.decided() && !f.decide_from_memo() {
        return None;
    }
    Some(f.ctx.variant.max(0) as usize)
}

/// `end`'s usual case, without a call: the innermost execution is `key`'s, a plain trained
/// one, which its region only counts. False: nothing done, [`end`] handles it.
#[inline(always)]
pub fn end_fast(key: *const c_void) -> bool {
    let Some(e) = entry() else { return false };
    let Some(f) = top_in(e) else { return false };
    // the context before the handle: the sentinel's is not a plain trained one
    if !std::ptr::eq(f.key, key) || !f.decided() || !f.ctx.t0.is_plain_trained() {
        return false;
    }
    // SAFETY: as in `get_policy_fast`.
    // (the frame's context was started on this thread: its slot is the thread's own)
    if !unsafe { &*f.handle }.region.end_memo_on_own_thread(&f.ctx) {
        return false;
    }
    let s = stack_of(e);
    s.len -= 1;
    e.top.store(top_of(s), Relaxed);
    true
}

/// Most recent frame on this thread of the region the program calls `key`. Only handles are
/// ever stored, so a `key` that is not one matches nothing.
#[inline(always)]
fn find(s: &Stack, key: *const c_void) -> Option<usize> {
    let top = s.len.checked_sub(1)?;
    if std::ptr::eq(s.frames[top].key, key) {
        return Some(top); // the usual case: the innermost execution
    }
    s.frames[..top].iter().rposition(|f| std::ptr::eq(f.key, key))
}

/// `begin`: pushes an execution of `h`, which the program calls `key`.
#[inline]
pub fn begin(key: *const c_void, h: &'static Handle) {
    with(|s| {
        if s.len == DEPTH {
            s.overflow += 1;
            diag::warn_once(
                "apollo:depth",
                &format!(
                    "more than {DEPTH} Apollo region executions begun and not ended on one thread; the deeper ones run policy 0 unrecorded"
                ),
            );
            return;
        }
        s.frames[s.len].start(key, h);
        s.len += 1;
    })
}

/// `set_feature`: appends `v` to the most recent execution of the region `key` (or, if it has
/// none on this thread or `key` is not a handle, to the most recent execution).
#[inline]
pub fn set_feature(key: *const c_void, v: f64) {
    with(|s| {
        let Some(i) = find(s, key).or(s.len.checked_sub(1)) else {
            if s.overflow == 0 {
                diag::warn_once("apollo:feature-without-begin", "__apollo_region_set_feature called outside any region execution; ignored");
            }
            return;
        };
        let f = &mut s.frames[i];
        if f.state < MAX_FEATURES {
            f.ctx.features[f.state] = v;
            f.state += 1;
            return;
        }
        set_feature_late(f, v);
    })
}

/// A feature after the decision, or past [`MAX_FEATURES`]: ignored, with a warning.
#[cold]
#[inline(never)]
fn set_feature_late(f: &mut Frame, _v: f64) {
    // SAFETY: frames in the stack hold handles `begin` received (never freed).
    let id = unsafe { &(*f.handle).id };
    if f.decided() {
        diag::warn_once(&format!("apollo:late-feature:{id}"), &format!("Apollo region '{id}': a feature set after get_policy is ignored"));
        return;
    }
    if f.set() == MAX_FEATURES {
        diag::warn_once(
            &format!("apollo:features:{id}"),
            &format!("Apollo region '{id}': more than {MAX_FEATURES} features set; the rest are ignored"),
        );
    }
    f.state += 1;
}

/// What `get_policy` and `end` found on this thread for a region.
pub enum Found<T> {
    /// An execution of it: the policy, or that it was recorded and removed.
    Frame(T),
    /// None, but executions begun too deep are open (they run policy 0).
    Overflow,
    /// None.
    Nothing,
}

/// `get_policy`: decides the most recent execution of the region `key` (once).
#[inline]
pub fn get_policy(key: *const c_void) -> Found<usize> {
    with(|s| {
        let Some(i) = find(s, key) else {
            return if s.overflow > 0 { Found::Overflow } else { Found::Nothing };
        };
        let f = &mut s.frames[i];
        // the trained path's memo first, on the features where they are (as the generated
        // code's begin does)
        if !f.decided() && !f.decide_from_memo() {
            let n = f.set().min(MAX_FEATURES);
            // SAFETY: frames in the stack hold handles `begin` received (never freed).
            unsafe { &*f.handle }.decide_filled(n, &mut f.ctx);
            f.state |= DECIDED;
        }
        Found::Frame(f.ctx.variant.max(0) as usize)
    })
}

/// `end`: records the most recent execution of the region `key` if it was decided, and removes
/// it. ([`end_deep`] ends an execution begun too deep.)
#[inline]
pub fn end(key: *const c_void) -> Found<()> {
    with(|s| {
        let Some(i) = find(s, key) else {
            return if s.overflow > 0 { Found::Overflow } else { Found::Nothing };
        };
        let f = &s.frames[i];
        if f.decided() {
            // SAFETY: as in `get_policy`. Recording may train the model; it never calls back
            // into this module.
            unsafe { &*f.handle }.record(&f.ctx);
        }
        if i + 1 < s.len {
            s.frames.copy_within(i + 1..s.len, i);
        }
        s.len -= 1;
        Found::Frame(())
    })
}

/// Ends one of the executions begun too deep on this thread.
pub fn end_deep() {
    with(|s| s.overflow = s.overflow.saturating_sub(1))
}

/// Executions begun and not ended on this thread (tests).
pub fn depth() -> usize {
    with(|s| s.len + s.overflow)
}
