//! Memory accounting and bounded tables.
//!
//! The library counts every byte its own Rust code holds on the heap (a counting wrapper around
//! the system allocator: it sees the tool's allocations only, never the program's), so the
//! report can state the tool's peak against the cap and tests can assert it.
//!
//! [`GenMap`] is the bounded table the detectors keep their state in: two generations of at
//! most `cap / 2` entries each. A hit in the old generation moves the entry to the new one;
//! when the new generation is full, the old one is dropped whole (its entries are counted as
//! forgotten) and the new one becomes old. Recently used entries therefore survive, memory never
//! grows past two fixed-size tables, and every operation is O(1).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hash::Hash;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use rustc_hash::FxHashMap;

/// The global allocator: the system's, counting the bytes held and their peak.
pub struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        HELD.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            HELD.fetch_sub(layout.size(), Relaxed);
            grew(new_size);
        }
        p
    }
}

fn grew(n: usize) {
    let now = HELD.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
    #[cfg(test)]
    let _ = tests::ALLOCATED_BY_THIS_THREAD.try_with(|c| c.set(c.get() + n));
}

/// The most heap bytes the library's code has held at once.
pub fn peak() -> usize {
    PEAK.load(Relaxed)
}

/// Bytes a hashbrown table with room for `entries` entries of `entry` bytes allocates.
pub fn table_bytes(entries: usize, entry: usize) -> usize {
    if entries == 0 {
        return 0;
    }
    let buckets = (entries.saturating_mul(8) / 7 + 1).next_power_of_two().max(4);
    buckets * (entry + 1) + 16
}

/// The largest number of entries whose two generations fit in `budget` bytes.
pub fn entries_within(budget: usize, entry: usize) -> usize {
    // Tables grow by powers of two: find the largest power-of-two bucket count that fits, then
    // the entries it holds at the 7/8 load factor.
    let mut buckets = 4usize;
    while 2 * ((buckets * 2) * (entry + 1) + 16) <= budget {
        buckets *= 2;
    }
    if 2 * (buckets * (entry + 1) + 16) > budget {
        return 0;
    }
    // Two generations of `half` entries each; half must stay strictly under the load limit so
    // the table never resizes.
    let half = buckets * 7 / 8 - 1;
    half * 2
}

/// A bounded map of two generations (see the module's documentation).
pub struct GenMap<K, V> {
    cur: FxHashMap<K, V>,
    old: FxHashMap<K, V>,
    half: usize,
    /// Entries dropped with an old generation.
    pub forgotten: u64,
}

impl<K: Hash + Eq, V> GenMap<K, V> {
    /// A map of at most `cap` entries (at least 2). Both generations are allocated up front so
    /// the memory it uses is fixed from the start.
    pub fn new(cap: usize) -> Self {
        let half = (cap / 2).max(1);
        GenMap {
            cur: FxHashMap::with_capacity_and_hasher(half, Default::default()),
            old: FxHashMap::with_capacity_and_hasher(half, Default::default()),
            half,
            forgotten: 0,
        }
    }

    /// Entries held in both generations.
    pub fn len(&self) -> usize {
        self.cur.len() + self.old.len()
    }

    /// Whether it holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn make_room(&mut self) {
        if self.cur.len() >= self.half {
            self.forgotten += self.old.len() as u64;
            // Reuse the old table's allocation for the new generation: no allocation here.
            self.old.clear();
            std::mem::swap(&mut self.cur, &mut self.old);
        }
    }

    /// The entry for `k`, moved to the new generation if it was in the old one.
    pub fn get_mut(&mut self, k: &K) -> Option<&mut V>
    where
        K: Clone,
    {
        if self.cur.contains_key(k) {
            return self.cur.get_mut(k);
        }
        let v = self.old.remove(k)?;
        self.make_room();
        self.cur.insert(k.clone(), v);
        self.cur.get_mut(k)
    }

    /// The entry for `k`, inserting `f()` if absent.
    pub fn get_or_insert_with(&mut self, k: K, f: impl FnOnce() -> V) -> &mut V
    where
        K: Clone,
    {
        if self.cur.contains_key(&k) {
            return self.cur.get_mut(&k).unwrap();
        }
        let v = self.old.remove(&k).unwrap_or_else(f);
        self.make_room();
        self.cur.entry(k).or_insert(v)
    }

    /// The key held equal to `k` (its fields outside equality as first inserted), inserting
    /// `k` with `f()` if absent (moved to the new generation if it was in the old one); and
    /// whether it was inserted now.
    pub fn get_or_insert_key(&mut self, k: K, f: impl FnOnce() -> V) -> (&K, bool)
    where
        K: Clone,
    {
        let mut inserted = false;
        if !self.cur.contains_key(&k) {
            let (held, v) = self.old.remove_entry(&k).unwrap_or_else(|| {
                inserted = true;
                (k.clone(), f())
            });
            self.make_room();
            self.cur.insert(held, v);
        }
        (self.cur.get_key_value(&k).expect("just inserted").0, inserted)
    }

    /// Removes `k`'s entry and returns it.
    pub fn remove(&mut self, k: &K) -> Option<V> {
        self.cur.remove(k).or_else(|| self.old.remove(k))
    }

    /// Whether `k` has an entry.
    pub fn contains_key(&self, k: &K) -> bool {
        self.cur.contains_key(k) || self.old.contains_key(k)
    }

    /// Takes every entry out, emptying both generations.
    pub fn drain(&mut self) -> impl Iterator<Item = (K, V)> + '_ {
        self.cur.drain().chain(self.old.drain())
    }

    /// Every entry, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.cur.iter().chain(self.old.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// Bytes this thread has ever allocated. Tests run concurrently in one process, so the
        /// process-wide count moves under a test's feet; this one moves only with its own code.
        /// A `const` `Cell` has no destructor, so the allocator may touch it at any time.
        pub(super) static ALLOCATED_BY_THIS_THREAD: Cell<usize> = const { Cell::new(0) };
    }

    fn allocated_by_this_thread() -> usize {
        ALLOCATED_BY_THIS_THREAD.with(Cell::get)
    }

    #[test]
    fn keeps_recent_entries_and_counts_forgotten() {
        let mut m: GenMap<u64, u64> = GenMap::new(8);
        for i in 0..100u64 {
            *m.get_or_insert_with(i, || 0) += 1;
            // Entry 0 is touched every time: it must survive every rotation.
            *m.get_or_insert_with(0, || 0) += 1;
            assert!(m.len() <= 8);
        }
        assert_eq!(*m.get_mut(&0).unwrap(), 101);
        assert!(m.contains_key(&99) && m.contains_key(&98));
        assert!(!m.contains_key(&50));
        assert_eq!(m.forgotten + m.len() as u64, 100, "every key is either held or counted as forgotten");
    }

    /// A key whose second field is no part of its identity.
    #[derive(Clone, Copy, Debug)]
    struct Tagged(u64, u32);
    impl PartialEq for Tagged {
        fn eq(&self, o: &Self) -> bool {
            self.0 == o.0
        }
    }
    impl Eq for Tagged {}
    impl Hash for Tagged {
        fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
            self.0.hash(h)
        }
    }

    #[test]
    fn the_first_inserted_key_is_kept() {
        let mut m: GenMap<Tagged, ()> = GenMap::new(4);
        assert_eq!(m.get_or_insert_key(Tagged(1, 10), || ()), (&Tagged(1, 10), true));
        assert_eq!(m.get_or_insert_key(Tagged(1, 20), || ()).0 .1, 10);
        // Through a rotation into the old generation and back.
        m.get_or_insert_key(Tagged(2, 0), || ());
        m.get_or_insert_key(Tagged(3, 0), || ());
        let (k, inserted) = m.get_or_insert_key(Tagged(1, 30), || ());
        assert_eq!((k.1, inserted), (10, false));
    }

    #[test]
    fn fixed_memory() {
        let mut m: GenMap<u64, [u64; 2]> = GenMap::new(entries_within(64 << 10, 24));
        let cap = m.half * 2;
        assert!(cap > 1000, "{cap}");
        let before = allocated_by_this_thread();
        for i in 0..100_000u64 {
            m.get_or_insert_with(i, || [i, i]);
        }
        // No allocation after construction: a rotation reuses the cleared table.
        assert_eq!(allocated_by_this_thread() - before, 0, "bytes allocated while inserting");
        assert!(table_bytes(m.half, 24) * 2 <= 64 << 10);
    }

    #[test]
    fn budget_math() {
        for budget in [1 << 12, 1 << 16, 1 << 20, 3 << 20, 100 << 20] {
            for entry in [8, 24, 56, 100] {
                let n = entries_within(budget, entry);
                if n > 0 {
                    assert!(2 * table_bytes(n / 2, entry) <= budget, "budget {budget} entry {entry} n {n}");
                }
            }
        }
    }
}
