//! Per-thread recording and decision cache for trained executions: no lock, no atomic
//! read-modify-write, no allocation once a thread has seen a feature vector.
//!
//! Each region owns one [`Shard`] per thread that executed it. A shard maps a feature vector
//! to a [`Slot`]: the decision for the current model epoch (so a forest is evaluated once per
//! vector and thread, not per execution), the drift bar of that decision and its window, per
//! variant a count, the number of timed executions and their time (in clock ticks), and the
//! thread's view of the vector's exploration state.
//! Slots never move (executions keep pointers to them between `begin` and `end`); an
//! open-addressing index (linear probing, at most half full, rebuilt larger when a chunk of
//! slots is added) finds them in about one probe however many vectors the thread has seen.
//!
//! **Single writer.** Only the owning thread writes a shard, so counters are updated with a
//! relaxed load and a relaxed store (plain `mov`s on x86-64) instead of `lock xadd`: exact
//! without contention. Other threads (report, persistence, tests) only read, with relaxed
//! loads; a slot becomes visible to them through a release store of its tag after its key is
//! written. Shards live as long as their region (they are never freed while it is alive), so a
//! reader can walk them at any time.
//!
//! Finding a thread's shard: a thread-local table indexed by the region's process-unique id.
//! The table is freed by a thread-local destructor when the thread ends; the shards stay with
//! the region, so an exited thread's counts are still reported and saved.
//!
//! Capacity: chunks of 16, 64, 256 and 1024 slots, allocated as needed (1360 feature vectors
//! per thread and region), filled in order. Past that, [`Shard::insert`] returns `None` and
//! the caller records through the region's lock instead: still exact, only slower.

use std::cell::{Cell, UnsafeCell};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::Mutex;

use crate::stats::FeatureKey;

const CHUNK_SIZES: [usize; 4] = [16, 64, 256, 1024];

/// One feature vector's cached decision and counters on one thread.
pub struct Slot {
    /// 0: empty; else the key's hash (never 0). Written last, with release.
    tag: AtomicU64,
    key: UnsafeCell<FeatureKey>,
    /// `[count, timed, sum of ticks, wanted, seen count]` per variant, in the chunk's array
    /// (set before publication).
    counts: Cell<*const AtomicU64>,
    /// [`thread_id`] of the owning thread (set before publication).
    owner: Cell<usize>,
    /// The shard it belongs to (set before publication).
    shard: Cell<*const Shard>,
    /// Model epoch the cached decision belongs to.
    pub epoch: AtomicU64,
    /// Cached decision ([`EXPLORE`]: this vector explores under the current epoch).
    pub variant: AtomicU32,
    /// Drift bar of the decision, clock ticks (`u64::MAX`: not checked).
    pub bar_ticks: AtomicU64,
    /// Recheck gate of the decision, clock ticks (0: none): a timed execution at or below it
    /// re-measures the vector (see `recheck`).
    pub recheck_ticks: AtomicU64,
    /// The decision is the own variant's trial (see `control`): every execution is timed, and
    /// none starts from the memo.
    pub trial: AtomicBool,
    /// Drift window of the decision: timed executions judged.
    pub window_judged: AtomicU32,
    /// Drift window of the decision: judged executions over the bar, and in the top bit
    /// ([`crate::drift::PREVIOUS_WINDOW_DRIFTED`]) whether the window before drifted.
    pub window_slow: AtomicU32,
    /// This thread's copy of the vector's exploration state.
    pub view: ExplorationView,
}

/// A copy of a vector's exploration state in the region's measurement table, kept in a
/// thread's slot so that exploring executions choose without the region's lock; refreshed
/// under the lock when the region's exploration version changes.
pub struct ExplorationView {
    /// The region's exploration version it was copied at.
    pub version: AtomicU64,
    /// Where the vector's data is in the measurement table (`generation << 32 | index + 1`).
    pub at: AtomicU64,
    /// The vector's candidate variants (successive elimination).
    pub alive: AtomicU64,
    /// Its label once decided (`u32::MAX`: not yet).
    pub decided: AtomicU32,
    /// The measurements still wanted in this view (sum of [`Slot::wanted_of`]).
    pub wanted: AtomicU32,
    /// The measurements after which a pair counts as a training sample.
    pub threshold: AtomicU32,
    /// This thread's round-robin position.
    pub round_robin: AtomicU32,
}

impl ExplorationView {
    fn empty() -> ExplorationView {
        ExplorationView {
            version: AtomicU64::new(u64::MAX),
            at: AtomicU64::new(0),
            alive: AtomicU64::new(0),
            decided: AtomicU32::new(u32::MAX),
            wanted: AtomicU32::new(0),
            threshold: AtomicU32::new(1),
            round_robin: AtomicU32::new(0),
        }
    }
}

/// [`Slot::variant`] of a vector that explores although a model decides the region (a vector
/// the model was not trained on, or one re-measured after a drift).
pub const EXPLORE: u32 = u32::MAX;

// SAFETY: `key`, `counts` and `owner` are written only by the owning thread before `tag` is
// published (release) and never again; readers read them only after an acquire load of a
// non-zero `tag`.
unsafe impl Sync for Slot {}

impl Slot {
    fn empty() -> Slot {
        Slot {
            tag: AtomicU64::new(0),
            key: UnsafeCell::new(FeatureKey::new(&[])),
            counts: Cell::new(std::ptr::null()),
            owner: Cell::new(0),
            shard: Cell::new(std::ptr::null()),
            epoch: AtomicU64::new(0),
            variant: AtomicU32::new(0),
            bar_ticks: AtomicU64::new(u64::MAX),
            recheck_ticks: AtomicU64::new(0),
            trial: AtomicBool::new(false),
            window_judged: AtomicU32::new(0),
            window_slow: AtomicU32::new(0),
            view: ExplorationView::empty(),
        }
    }

    /// The feature vector (valid once the slot is published).
    pub fn key(&self) -> &FeatureKey {
        // SAFETY: see `unsafe impl Sync`; callers obtained the slot through a published tag.
        unsafe { &*self.key.get() }
    }

    /// Executions of variant `v` counted here (`v` < the region's variant count).
    #[inline(always)]
    pub fn count(&self, v: usize) -> &AtomicU64 {
        // SAFETY: `counts` points to STRIDE·nv counters that live as long as the slot; v < nv.
        unsafe { &*self.counts.get().add(STRIDE * v) }
    }

    /// Executions of variant `v` counted here that were timed.
    #[inline(always)]
    pub fn timed(&self, v: usize) -> &AtomicU64 {
        // SAFETY: as in `count`.
        unsafe { &*self.counts.get().add(STRIDE * v + 1) }
    }

    /// Sum of the ticks of variant `v`'s timed executions counted here.
    #[inline(always)]
    pub fn ticks(&self, v: usize) -> &AtomicU64 {
        // SAFETY: as in `count`.
        unsafe { &*self.counts.get().add(STRIDE * v + 2) }
    }

    /// Part of the exploration view: measurements of variant `v` still wanted (see
    /// `region::fill_view`).
    #[inline(always)]
    pub fn wanted_of(&self, v: usize) -> &AtomicU64 {
        // SAFETY: as in `count`.
        unsafe { &*self.counts.get().add(STRIDE * v + 3) }
    }

    /// Part of the exploration view: the pair's measurements as this thread knows them.
    #[inline(always)]
    pub fn xcnt(&self, v: usize) -> &AtomicU64 {
        // SAFETY: as in `count`.
        unsafe { &*self.counts.get().add(STRIDE * v + 4) }
    }

    /// The shard the slot belongs to.
    #[inline(always)]
    pub fn shard(&self) -> &Shard {
        // SAFETY: set before publication to the shard that owns the slot's chunk.
        unsafe { &*self.shard.get() }
    }

    /// Whether the calling thread owns (may write) this slot.
    #[inline(always)]
    pub fn owned_here(&self) -> bool {
        self.owner.get() == thread_id()
    }
}

/// An id of the calling thread that costs one instruction: the thread pointer (x86-64 Linux:
/// the TCB self-pointer at `%fs:0`), else the address of a thread-local. Unique among live
/// threads.
#[inline(always)]
pub fn thread_id() -> usize {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        let x: usize;
        // SAFETY: on x86-64 Linux (glibc and musl) %fs:0 holds the thread control block's
        // address; reading it has no side effect.
        unsafe {
            std::arch::asm!("mov {}, qword ptr fs:[0]", out(reg) x, options(nostack, readonly, preserves_flags, pure));
        }
        x
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    {
        thread_local!(static ID: u8 = const { 0 });
        ID.with(|x| x as *const u8 as usize)
    }
}

struct Chunk {
    slots: Box<[Slot]>,
    /// `[count, timed, sum of ticks, wanted, seen count]` per (slot, variant).
    counts: Box<[AtomicU64]>,
}

/// Counters per (slot, variant) in a chunk's `counts`.
const STRIDE: usize = 5;

/// Adds `x` to an owner-only counter (no read-modify-write instruction needed).
#[inline(always)]
pub fn bump(c: &AtomicU64, x: u64) {
    c.store(c.load(Relaxed).wrapping_add(x), Relaxed);
}

/// Exploring measurements a shard keeps before handing them to the region's measurement table.
pub const BUF: usize = 64;

/// One buffered exploring measurement.
#[derive(Default)]
pub struct Pending {
    /// `generation << 32 | index + 1` of the feature vector in the measurement table.
    pub at: AtomicU64,
    /// `variant << 48 | flags | ns` (flags [`DONE`], [`COLD`]; `ns` within [`NS_MASK`]).
    pub vns: AtomicU64,
}

/// Flag of [`Pending::vns`]: the measurement makes its (vector, variant) pair a training
/// sample as far as the buffering thread can tell (see `region::fill_view`).
pub const DONE: u64 = 1 << 47;
/// Flag of [`Pending::vns`]: the variant's first execution in this process.
pub const COLD: u64 = 1 << 46;
/// The bits of [`Pending::vns`] that hold the time, ns (19 hours; longer times are clamped).
pub const NS_MASK: u64 = COLD - 1;
/// Shift of the variant in [`Pending::vns`].
pub const V_SHIFT: u32 = 48;

/// An entry of a shard's index: a slot's tag (0: empty) and the slot.
#[repr(align(16))]
struct Entry {
    tag: AtomicU64,
    slot: AtomicPtr<Slot>,
}

/// Low bits of [`Shard::index`] that hold log2 of the index's size (entries are 16-aligned).
const INDEX_BITS: usize = 15;

/// A thread's part of a region's data. Written by its thread only, except `buf_taken`.
pub struct Shard {
    chunks: [AtomicPtr<Chunk>; CHUNK_SIZES.len()],
    /// Slots in use (filled in order across the chunks).
    len: AtomicUsize,
    /// The current index: the address of its entries or-ed with log2 of their number (one
    /// word, so a reader never pairs an array with another's size); 0 before the first slot.
    /// Index `k` (published with chunk `k`, kept until the shard is dropped: another thread
    /// may still be reading an older one) has room for twice the slots of chunks `0..=k`.
    index: AtomicUsize,
    indexes: [AtomicUsize; CHUNK_SIZES.len()],
    nv: usize,
    /// Trained executions to let pass untimed before the next timed one.
    pub sample_left: AtomicU32,
    /// Times `sample_left` ran out: the thread's trained executions are about this × the
    /// sampling interval (a count that costs nothing on the untimed path).
    pub turns: AtomicU64,
    /// Exploring measurements that cannot change the measurement table's training counters (see
    /// `region::fill_view`), buffered so that such executions take no lock. Entry `i` is at
    /// `buf[i % BUF]`; the owner appends at `buf_len`; `buf_taken` (written only under the
    /// region's lock, by whoever moves entries into the measurement table) marks what the measurement table has.
    pub buf: [Pending; BUF],
    /// Entries ever appended to `buf` (by its owner).
    pub buf_len: AtomicU64,
    /// Entries ever moved from `buf` into the measurement table.
    pub buf_taken: AtomicU64,
    /// State of the `random` strategy (xorshift).
    pub rng: AtomicU64,
    /// The memo: slots of vectors whose trained decision this thread used lately, found without
    /// the feature hash and the index probe (see [`Shard::memo_find`]). Owner thread only.
    memo: [AtomicPtr<Slot>; MEMO_SETS * 2],
}

/// Sets of the memo (two slots each: the most recent first).
const MEMO_SETS: usize = 8;

impl Shard {
    fn new(nv: usize) -> Shard {
        Shard {
            chunks: Default::default(),
            len: AtomicUsize::new(0),
            index: AtomicUsize::new(0),
            indexes: Default::default(),
            nv,
            sample_left: AtomicU32::new(0),
            turns: AtomicU64::new(0),
            buf: std::array::from_fn(|_| Pending::default()),
            buf_len: AtomicU64::new(0),
            buf_taken: AtomicU64::new(0),
            rng: AtomicU64::new(0x9E37_79B9_7F4A_7C15 ^ thread_id() as u64),
            memo: Default::default(),
        }
    }

    /// The memo's set for the raw feature bits of `f`: its count, first and last feature,
    /// one multiplication (constant cost; the index's hash normalises and multiplies per
    /// feature). Vectors that differ only in the middle share a set: the memo only spares
    /// work, the slot's key decides the match.
    #[inline(always)]
    fn memo_set(f: &[f64]) -> usize {
        let acc = match f {
            [] => 0,
            [first, .., last] => first.to_bits() ^ last.to_bits().rotate_left(23) ^ f.len() as u64,
            [only] => only.to_bits() ^ 1,
        };
        2 * (acc.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - MEMO_SETS.trailing_zeros())) as usize
    }

    /// The slot of `f` if the memo holds it: a slot whose key has exactly `f`'s bits (a vector
    /// whose bits a key normalises, -0.0 or a NaN's payload, is never found here, only through
    /// [`Shard::find`]). One set, two slots, one compare per feature. Owner thread only.
    #[inline(always)]
    pub fn memo_find(&self, f: &[f64]) -> Option<&Slot> {
        let i = Self::memo_set(f);
        for e in &self.memo[i..i + 2] {
            // SAFETY: the memo holds only published slots of this shard, which never move and
            // live as long as it.
            let s = unsafe { e.load(Relaxed).as_ref() }?;
            if s.key().same_bits(f) {
                return Some(s);
            }
        }
        None
    }

    /// Puts `slot` (this shard's slot of `f`) first in its memo set; the set's other slot is
    /// the one that was first. Owner thread only.
    #[inline]
    pub fn memo_put(&self, f: &[f64], slot: &Slot) {
        let i = Self::memo_set(f);
        let p = slot as *const Slot as *mut Slot;
        let first = self.memo[i].load(Relaxed);
        if first != p {
            self.memo[i + 1].store(first, Relaxed);
            self.memo[i].store(p, Relaxed);
        }
    }

    /// The slot of the feature vector `f` (hash `h`), if this thread has one.
    #[inline(always)]
    pub fn find(&self, h: u64, f: &[f64]) -> Option<&Slot> {
        let ix = self.index.load(Acquire);
        if ix == 0 {
            return None;
        }
        let entries = (ix & !INDEX_BITS) as *const Entry;
        let mask = (1usize << (ix & INDEX_BITS)) - 1;
        let mut i = h as usize & mask;
        loop {
            // SAFETY: `i <= mask` and the index has `mask + 1` entries; indexes are freed
            // only with the shard.
            let e = unsafe { &*entries.add(i) };
            let t = e.tag.load(Acquire);
            if t == 0 {
                return None; // never full: the probe always ends
            }
            if t == h {
                // SAFETY: published after the slot pointer; slots live as long as the shard.
                let s = unsafe { &*e.slot.load(Relaxed) };
                if s.key().matches(f) {
                    return Some(s);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds a slot for `key` (hash `h`; the caller checked it is absent). Owner thread only.
    /// `None` when every chunk is full.
    #[cold]
    pub fn insert(&self, h: u64, key: &FeatureKey) -> Option<&Slot> {
        let n = self.len.load(Relaxed);
        let (mut ci, mut off) = (0, n);
        while ci < CHUNK_SIZES.len() && off >= CHUNK_SIZES[ci] {
            off -= CHUNK_SIZES[ci];
            ci += 1;
        }
        if ci == CHUNK_SIZES.len() {
            return None;
        }
        if off == 0 {
            let size = CHUNK_SIZES[ci];
            let chunk = Box::new(Chunk {
                slots: (0..size).map(|_| Slot::empty()).collect(),
                counts: (0..size * STRIDE * self.nv).map(|_| AtomicU64::new(0)).collect(),
            });
            self.chunks[ci].store(Box::into_raw(chunk), Release);
            self.grow_index(ci, n + size);
        }
        // SAFETY: chunk `ci` was published above or by an earlier insert; freed with the shard.
        let chunk = unsafe { &*self.chunks[ci].load(Relaxed) };
        let s = &chunk.slots[off];
        // SAFETY: the slot is unpublished and only this thread writes the shard.
        unsafe { *s.key.get() = *key };
        s.counts.set(chunk.counts[off * STRIDE * self.nv..].as_ptr());
        s.owner.set(thread_id());
        s.shard.set(self);
        s.tag.store(h, Release);
        self.len.store(n + 1, Relaxed);
        self.index_add(self.index.load(Relaxed), h, s);
        Some(s)
    }

    /// Publishes index `k`, with room for `slots` slots, holding every slot so far.
    #[cold]
    fn grow_index(&self, k: usize, slots: usize) {
        let log2 = (2 * slots).next_power_of_two().trailing_zeros() as usize;
        let entries: Box<[Entry]> =
            (0..1usize << log2).map(|_| Entry { tag: AtomicU64::new(0), slot: AtomicPtr::new(null_mut()) }).collect();
        debug_assert!(log2 <= INDEX_BITS);
        let ix = Box::into_raw(entries) as *mut Entry as usize | log2;
        self.for_each(|s| self.index_add(ix, s.tag.load(Relaxed), s));
        self.indexes[k].store(ix, Relaxed);
        self.index.store(ix, Release);
    }

    /// Adds `s` (hash `h`) to index `ix` (owner thread only).
    fn index_add(&self, ix: usize, h: u64, s: &Slot) {
        let entries = (ix & !INDEX_BITS) as *const Entry;
        let mask = (1usize << (ix & INDEX_BITS)) - 1;
        let mut i = h as usize & mask;
        loop {
            // SAFETY: as in `find`.
            let e = unsafe { &*entries.add(i) };
            if e.tag.load(Relaxed) == 0 {
                e.slot.store(s as *const Slot as *mut Slot, Relaxed);
                e.tag.store(h, Release);
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// Every published slot (any thread).
    pub fn for_each(&self, mut f: impl FnMut(&Slot)) {
        for c in &self.chunks {
            let p = c.load(Acquire);
            if p.is_null() {
                break;
            }
            // SAFETY: as in `find`.
            let chunk = unsafe { &*p };
            for s in chunk.slots.iter() {
                if s.tag.load(Acquire) != 0 {
                    f(s);
                }
            }
        }
    }
}

impl Drop for Shard {
    fn drop(&mut self) {
        for c in &self.chunks {
            let p = c.swap(null_mut(), Relaxed);
            if !p.is_null() {
                // SAFETY: allocated by `insert` with Box::into_raw, freed once here.
                drop(unsafe { Box::from_raw(p) });
            }
        }
        for ix in &self.indexes {
            let ix = ix.swap(0, Relaxed);
            if ix != 0 {
                let entries = std::ptr::slice_from_raw_parts_mut((ix & !INDEX_BITS) as *mut Entry, 1 << (ix & INDEX_BITS));
                // SAFETY: allocated by `grow_index` with Box::into_raw, freed once here.
                drop(unsafe { Box::from_raw(entries) });
            }
        }
    }
}

/// Entries of a region's thread cache (see [`Shards::local`]).
const CACHE: usize = 64;
/// Marks a cache entry being filled.
const FILLING: usize = 1;

/// A region's shards, one per thread.
pub struct Shards {
    id: u32,
    nv: usize,
    /// Boxed: a shard must not move when the vector grows (threads hold pointers to it).
    #[allow(clippy::vec_box)]
    all: Mutex<Vec<Box<Shard>>>,
    /// Thread cache: entry `i` maps a [`thread_id`] to its shard. An entry is claimed once
    /// (CAS from 0), filled, published by a release store of the thread id, and never changed
    /// again, so a reader that sees its own id also sees the right shard. It spares the
    /// thread-local table (a `__tls_get_addr` call in a `dlopen`ed library) on every
    /// execution. A thread id can only be reused after its thread ended, and then the new
    /// thread is the shard's only writer.
    cache_tid: [std::sync::atomic::AtomicUsize; CACHE],
    cache_shard: [AtomicPtr<Shard>; CACHE],
}

impl std::fmt::Debug for Shards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Shards {{ id: {}, threads: {} }}", self.id, self.all.lock().map(|a| a.len()).unwrap_or(0))
    }
}

struct ThreadTable {
    /// Shard of region id `i`, or null.
    shards: Vec<*const Shard>,
}

thread_local! {
    static TABLE: Cell<*mut ThreadTable> = const { Cell::new(null_mut()) };
    static GUARD: TableGuard = const { TableGuard };
}

struct TableGuard;

impl Drop for TableGuard {
    fn drop(&mut self) {
        if let Ok(p) = TABLE.try_with(|t| t.replace(null_mut())) {
            if !p.is_null() {
                // SAFETY: allocated by `register` with Box::into_raw; only this thread uses it.
                drop(unsafe { Box::from_raw(p) });
            }
        }
    }
}

impl Shards {
    /// Shards for a region with `nv` variants, under a new process-unique id.
    pub fn new(nv: usize) -> Shards {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        Shards {
            id: NEXT.fetch_add(1, Relaxed),
            nv,
            all: Mutex::new(Vec::new()),
            cache_tid: std::array::from_fn(|_| std::sync::atomic::AtomicUsize::new(0)),
            cache_shard: std::array::from_fn(|_| AtomicPtr::new(null_mut())),
        }
    }

    #[inline(always)]
    fn cache_index(tid: usize) -> usize {
        // thread pointers are far apart and aligned: mix the bits
        (tid.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) % CACHE
    }

    /// This thread's shard (created on first use).
    #[inline(always)]
    pub fn local(&self) -> &Shard {
        let tid = thread_id();
        let i = Self::cache_index(tid);
        if self.cache_tid[i].load(Acquire) == tid {
            // SAFETY: published after the pointer (see `cache_tid`); shards live as long as
            // `self`.
            return unsafe { &*self.cache_shard[i].load(Relaxed) };
        }
        self.local_slow(tid, i)
    }

    /// This thread's shard if the thread cache has it (no thread-local access, no allocation,
    /// nothing that can panic: what a path outside `catch_unwind` may call).
    #[inline(always)]
    pub fn local_cached(&self) -> Option<&Shard> {
        let tid = thread_id();
        let i = Self::cache_index(tid);
        // SAFETY: as in `local`.
        (self.cache_tid[i].load(Acquire) == tid).then(|| unsafe { &*self.cache_shard[i].load(Relaxed) })
    }

    #[cold]
    #[inline(never)]
    fn local_slow(&self, tid: usize, i: usize) -> &Shard {
        let shard = self.local_tls();
        if tid > FILLING && self.cache_tid[i].compare_exchange(0, FILLING, Acquire, Relaxed).is_ok() {
            self.cache_shard[i].store(shard as *const Shard as *mut Shard, Relaxed);
            self.cache_tid[i].store(tid, Release);
        }
        shard
    }

    /// This thread's shard through the thread-local table.
    fn local_tls(&self) -> &Shard {
        let p = TABLE.with(|t| {
            let tab = t.get();
            if tab.is_null() {
                return std::ptr::null();
            }
            // SAFETY: the table belongs to this thread.
            let tab = unsafe { &*tab };
            tab.shards.get(self.id as usize).copied().unwrap_or(std::ptr::null())
        });
        if p.is_null() {
            self.register()
        } else {
            // SAFETY: a shard is freed only with its `Shards`, which `self` borrows; ids are
            // never reused, so the pointer is this region's.
            unsafe { &*p }
        }
    }

    #[cold]
    fn register(&self) -> &Shard {
        let shard = Box::new(Shard::new(self.nv));
        let p: *const Shard = &*shard;
        self.all.lock().unwrap_or_else(|e| e.into_inner()).push(shard);
        let _ = GUARD.try_with(|_| ()); // arm the destructor that frees the table
        let _ = TABLE.try_with(|t| {
            let mut tab = t.get();
            if tab.is_null() {
                tab = Box::into_raw(Box::new(ThreadTable { shards: Vec::new() }));
                t.set(tab);
            }
            // SAFETY: the table belongs to this thread.
            let tab = unsafe { &mut *tab };
            let i = self.id as usize;
            if tab.shards.len() <= i {
                tab.shards.resize(i + 1, std::ptr::null());
            }
            tab.shards[i] = p;
        });
        // SAFETY: the box was just moved into `all`, which keeps it until `self` drops.
        unsafe { &*p }
    }

    /// Calls `f` on every thread's shard.
    pub fn for_each(&self, mut f: impl FnMut(&Shard)) {
        for s in self.all.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            f(s);
        }
    }

    /// Threads that have a shard.
    pub fn threads(&self) -> usize {
        self.all.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::hash_features;

    #[test]
    fn find_insert_and_overflow() {
        let shards = Shards::new(2);
        let s = shards.local();
        assert!(std::ptr::eq(s, shards.local()), "one shard per thread");
        assert!(std::ptr::eq(s, shards.local_tls()), "the cache and the table agree");
        let mut inserted = 0;
        for i in 0..2000 {
            let f = [i as f64, 1.0];
            let k = FeatureKey::new(&f);
            let h = k.hash64();
            assert!(s.find(h, &f).is_none());
            if let Some(slot) = s.insert(h, &k) {
                bump(slot.count(1), 1);
                bump(slot.ticks(1), 10 + i);
                slot.variant.store(i as u32 % 2, Relaxed);
                inserted += 1;
                assert!(slot.owned_here());
            }
            if i < 100 {
                let slot = s.find(h, &f).expect("just inserted");
                assert_eq!((slot.count(1).load(Relaxed), slot.count(0).load(Relaxed), slot.key().get(0)), (1, 0, i as f64));
            }
        }
        assert_eq!(inserted, 1360, "every chunk filled");
        for i in 0..2000 {
            let f = [i as f64, 1.0];
            let found = s.find(hash_features(&f), &f);
            assert_eq!(found.map(|slot| slot.key().get(0)), (i < 1360).then_some(i as f64), "{i}");
        }
        let mut n = 0;
        s.for_each(|slot| n += slot.count(1).load(Relaxed));
        assert_eq!(n, inserted);
        // another thread gets its own shard
        std::thread::scope(|sc| {
            sc.spawn(|| {
                assert!(!std::ptr::eq(shards.local(), s));
                let k = FeatureKey::new(&[0.0, 1.0]);
                assert!(!s.find(k.hash64(), &[0.0, 1.0]).unwrap().owned_here());
            });
        });
        assert_eq!(shards.threads(), 2);
    }
}
