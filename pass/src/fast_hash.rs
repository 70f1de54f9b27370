//! Hash maps and sets for the pass's own bookkeeping, keyed mostly by LLVM pointers (values,
//! blocks, functions): the standard library's SipHash costs ~100 instructions a key where these
//! keys need a few, and the pass inserts hundreds of thousands of them into sets of a function's
//! instructions and blocks (LULESH's `lulesh.cc`: ~40 M instructions of hashing). The pass's
//! output cannot depend on the order of these maps: the standard maps it replaces were seeded
//! at random in each process, and the output is the same from one run to the next.
//!
//! The function is rustc's (`rustc-hash` 2: add, multiply by an odd constant, rotate the
//! well-mixed high bits down at the end, where the table takes its bucket index from).

use std::hash::{BuildHasherDefault, Hasher};

pub type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FastHasher>>;
pub type HashSet<T> = std::collections::HashSet<T, BuildHasherDefault<FastHasher>>;

/// See the module's documentation.
#[derive(Clone, Copy, Default)]
pub struct FastHasher(u64);

const K: u64 = 0xf135_7aea_2e62_a9c5;

impl FastHasher {
    #[inline]
    fn add(&mut self, x: u64) {
        self.0 = self.0.wrapping_add(x).wrapping_mul(K);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
        self.add(bytes.len() as u64);
    }

    #[inline]
    fn write_u8(&mut self, x: u8) {
        self.add(x as u64);
    }

    #[inline]
    fn write_u16(&mut self, x: u16) {
        self.add(x as u64);
    }

    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.add(x as u64);
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }

    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.add(x as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pointers 16 bytes apart (LLVM's values) spread over the low bits the table indexes by.
    #[test]
    fn aligned_pointers_spread() {
        let mut low = std::collections::BTreeSet::new();
        for k in 0..64u64 {
            let mut h = FastHasher::default();
            h.write_usize((0x5555_0000 + 16 * k) as usize);
            low.insert(h.finish() & 63);
        }
        assert!(low.len() > 32, "{} buckets of 64", low.len());
    }

    #[test]
    fn sets_work() {
        let s: HashSet<u64> = (0..1000).collect();
        assert!((0..1000).all(|k| s.contains(&k)) && !s.contains(&1000));
    }
}
