//! Feature-vector keys and their hashes, medians, and a small deterministic generator.

use std::hash::{Hash, Hasher};

use crate::ctx::MAX_FEATURES;

/// A feature vector used as a hash key, without allocation (fixed array + length).
///
/// `-0.0` is folded into `0.0` and every NaN into one NaN, so equal-looking vectors are one key.
#[derive(Clone, Copy, Debug)]
pub struct FeatureKey {
    len: u8,
    bits: [u64; MAX_FEATURES],
}

impl FeatureKey {
    /// Builds a key from the first [`MAX_FEATURES`] values of `f`.
    pub fn new(f: &[f64]) -> FeatureKey {
        let n = f.len().min(MAX_FEATURES);
        let mut bits = [0u64; MAX_FEATURES];
        for (b, &x) in bits.iter_mut().zip(&f[..n]) {
            *b = if x == 0.0 {
                0
            } else if x.is_nan() {
                f64::NAN.to_bits()
            } else {
                x.to_bits()
            };
        }
        FeatureKey { len: n as u8, bits }
    }

    /// Number of features.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the vector has no features.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Feature `i` (0.0 past the end).
    pub fn get(&self, i: usize) -> f64 {
        if i < self.len() {
            f64::from_bits(self.bits[i])
        } else {
            0.0
        }
    }

    /// The features.
    pub fn values(&self) -> Vec<f64> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }

    /// The features, zero-padded to [`MAX_FEATURES`] (the model input).
    pub fn padded(&self) -> [f64; MAX_FEATURES] {
        let mut out = [0.0; MAX_FEATURES];
        for (i, o) in out.iter_mut().enumerate().take(self.len()) {
            *o = self.get(i);
        }
        out
    }
}

impl PartialEq for FeatureKey {
    fn eq(&self, o: &Self) -> bool {
        self.len == o.len && self.bits[..self.len()] == o.bits[..o.len()]
    }
}
impl Eq for FeatureKey {}
impl Hash for FeatureKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u8(self.len);
        for &b in &self.bits[..self.len()] {
            h.write_u64(b);
        }
    }
}

/// A small, fast, non-cryptographic hasher for [`FeatureKey`] maps (the Firefox/rustc "Fx" mix).
/// Keys are feature vectors chosen by the program, not by an adversary, so SipHash's DoS
/// resistance buys nothing on the recording path.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// `BuildHasher` of [`FxHasher`].
pub type FxBuild = std::hash::BuildHasherDefault<FxHasher>;

/// FNV-1a of a string (seeds derived from region names: the same on every rank and run).
pub fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

impl FeatureKey {
    /// A 64-bit hash of the key (never 0, so 0 can mark an empty hash-table slot); equal to
    /// [`hash_features`] of the values the key was built from.
    #[inline]
    pub fn hash64(&self) -> u64 {
        let n = self.len();
        let mut acc = HASH_SEED ^ n as u64;
        for &b in &self.bits[..n] {
            acc = fold(acc, b);
        }
        acc | 1
    }

    /// Whether the key holds exactly the bits of `f` (no normalisation: a vector with -0.0 or
    /// a NaN whose bits differ from the key's never matches; [`FeatureKey::matches`] does).
    #[inline(always)]
    pub fn same_bits(&self, f: &[f64]) -> bool {
        f.len() == self.len() && f.len() <= MAX_FEATURES && f.iter().zip(&self.bits).all(|(&x, &b)| x.to_bits() == b)
    }

    /// Whether the key equals the feature slice `f` (as [`FeatureKey::new`] would build it).
    #[inline]
    pub fn matches(&self, f: &[f64]) -> bool {
        let n = f.len().min(MAX_FEATURES);
        // equal bits first: a stored value is normalised, so equal raw bits are a match
        n == self.len() && f[..n].iter().zip(&self.bits).all(|(&x, &b)| x.to_bits() == b || norm_bits(x) == b)
    }
}

/// [`FeatureKey::hash64`] of `FeatureKey::new(f)`, without building the key.
// on every execution's path (the thread's decision cache): one multiplication per feature
// and one compare for ordinary values, no call
#[inline(always)]
pub fn hash_features(f: &[f64]) -> u64 {
    let n = f.len().min(MAX_FEATURES);
    let mut acc = HASH_SEED ^ n as u64;
    for &x in &f[..n] {
        acc = fold(acc, norm_bits_fast(x));
    }
    acc | 1
}

/// The hash's seed (the SplitMix64 increment).
const HASH_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// One feature into the hash: a 64×64→128-bit multiplication whose halves are folded together
/// (wyhash's step), so that every bit of the input reaches the low bits as well as the high
/// ones (features such as 1.0, 2.0, 3.0 differ only in their high bits). Chained, so positions
/// count.
#[inline(always)]
fn fold(acc: u64, b: u64) -> u64 {
    let m = ((acc ^ b) as u128).wrapping_mul(0xA076_1D64_78BD_642F);
    (m as u64) ^ ((m >> 64) as u64)
}

/// [`norm_bits`] with one compare for ordinary values (`b << 1` is 0 for ±0.0, above infinity's
/// for NaN).
#[inline(always)]
fn norm_bits_fast(x: f64) -> u64 {
    let b = x.to_bits();
    if (b << 1).wrapping_sub(1) >= f64::INFINITY.to_bits() << 1 {
        return if b << 1 == 0 { 0 } else { f64::NAN.to_bits() };
    }
    b
}

#[inline]
fn norm_bits(x: f64) -> u64 {
    if x == 0.0 {
        0
    } else if x.is_nan() {
        f64::NAN.to_bits()
    } else {
        x.to_bits()
    }
}

/// Median of `xs` (mean of the two middle values for an even length); `None` when empty.
pub fn median(xs: &[u64]) -> Option<f64> {
    let v: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
    median_f64(&v)
}

/// Median of `xs` (mean of the two middle values for an even length); `None` when empty.
pub fn median_f64(xs: &[f64]) -> Option<f64> {
    median_in_place(&mut xs.to_vec())
}

/// [`median_f64`] of `v`, reordering `v` instead of copying it.
pub fn median_in_place(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let mid = v.len() / 2;
    let (_, &mut hi, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
    if v.len() % 2 == 1 {
        Some(hi)
    } else {
        let lo = v[..mid].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some((lo + hi) / 2.0)
    }
}

/// xorshift64*: a tiny deterministic generator (random exploration; no `rand` dependency).
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator seeded with `seed` (any value).
    pub fn new(seed: u64) -> Self {
        XorShift((seed ^ 0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A generator continuing from `state` (a value of [`XorShift::state`]).
    pub fn from_state(state: u64) -> Self {
        XorShift(state | 1)
    }

    /// The current state.
    pub fn state(&self) -> u64 {
        self.0
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (((self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) * n as u64) >> 32) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn keys() {
        let a = FeatureKey::new(&[1.0, -0.0]);
        let b = FeatureKey::new(&[1.0, 0.0]);
        assert_eq!(a, b);
        assert_ne!(FeatureKey::new(&[1.0]), FeatureKey::new(&[1.0, 0.0]));
        assert_eq!(FeatureKey::new(&[f64::NAN]), FeatureKey::new(&[-f64::NAN]));
        let s: HashSet<FeatureKey> = [a, b, FeatureKey::new(&[2.0])].into_iter().collect();
        assert_eq!(s.len(), 2);
        let long: Vec<f64> = (0..20).map(|i| i as f64).collect();
        assert_eq!(FeatureKey::new(&long).len(), MAX_FEATURES);
        assert_eq!(FeatureKey::new(&[3.0, 4.0]).values(), vec![3.0, 4.0]);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[5]), Some(5.0));
        assert_eq!(median(&[9, 1, 5]), Some(5.0));
        assert_eq!(median(&[9, 1, 5, 3]), Some(4.0));
        assert_eq!(median_f64(&[2.0, 1000.0, 1.0]), Some(2.0));
    }

    #[test]
    fn hashes_and_matching() {
        let a = FeatureKey::new(&[1.0, -0.0]);
        assert_eq!(a.hash64(), FeatureKey::new(&[1.0, 0.0]).hash64());
        assert_ne!(a.hash64(), FeatureKey::new(&[1.0]).hash64());
        assert_eq!(a.hash64(), hash_features(&[1.0, -0.0]));
        assert_ne!(FeatureKey::new(&[1.0, 2.0]).hash64(), FeatureKey::new(&[2.0, 1.0]).hash64(), "positions count");
        assert!(a.matches(&[1.0, 0.0]) && a.matches(&[1.0, -0.0]));
        assert!(!a.matches(&[1.0]) && !a.matches(&[1.0, 0.0, 0.0]) && !a.matches(&[2.0, 0.0]));
        assert!(FeatureKey::new(&[f64::NAN]).matches(&[-f64::NAN]));
        let nan = FeatureKey::new(&[f64::NAN, 2.0]).hash64();
        assert_eq!(nan, hash_features(&[-f64::NAN, 2.0]));
        assert_eq!(nan, hash_features(&[f64::from_bits(0x7ff0_0000_0000_0001), 2.0]));
        assert_eq!(hash_features(&[-0.0, 5e-324]), FeatureKey::new(&[0.0, 5e-324]).hash64());
        assert_ne!(hash_features(&[f64::INFINITY]), nan);
        let mut r = XorShift::new(7);
        let mut seen = [0; 3];
        for _ in 0..300 {
            seen[r.below(3)] += 1;
        }
        assert!(seen.iter().all(|&c| c > 60), "{seen:?}");
    }

    /// Feature vectors as programs give them (small integers, sizes, powers of two, fractions):
    /// the low bits (shard index buckets) and the top 32 bits (the measurement table's index) spread.
    #[test]
    fn hashes_spread_typical_vectors() {
        let mut keys = Vec::new();
        for a in 0..16 {
            for b in 0..16 {
                for c in [1.0, 2.0, 4.0, 1024.0, 1e6, 0.5] {
                    keys.push(FeatureKey::new(&[a as f64, (1u64 << b) as f64, c]));
                }
                keys.push(FeatureKey::new(&[a as f64 * 0.25, b as f64]));
            }
        }
        let n = keys.len();
        // bit 0 is always set (0 marks an empty entry): buckets by bits 1..12
        let low: std::collections::HashSet<u64> = keys.iter().map(|k| k.hash64() & 0xffe).collect();
        let top: std::collections::HashSet<u64> = keys.iter().map(|k| k.hash64() >> 32).collect();
        assert_eq!(top.len(), n, "no collisions in the top 32 bits");
        // a uniform hash puts n = 1792 keys into about 1194 of 2048 buckets
        assert!(low.len() > 1100, "{} of {n} keys in distinct low-bit buckets", low.len());
    }
}
