//! xorshift64*: a tiny deterministic generator (bootstrap resampling, feature subsets), so the
//! runtime needs no `rand` dependency and the same seed always builds the same forest.

/// xorshift64* state.
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator seeded with `seed` (any value; 0 is remapped).
    pub fn new(seed: u64) -> Self {
        XorShift((seed ^ 0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift (no modulo bias worth speaking of for the
    /// small `n` used here).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// FNV-1a of a string (forest seeds from model names).
pub fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_in_range_and_covers() {
        let mut r = XorShift::new(0);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[r.below(7)] += 1;
        }
        assert!(seen.iter().all(|&c| (800..1200).contains(&c)), "{seen:?}");
        assert_ne!(fnv1a("a"), fnv1a("b"));
    }
}
