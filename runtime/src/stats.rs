//! Feature-vector keys and per-(feature vector, variant) timing statistics.

use std::hash::{Hash, Hasher};

use crate::ctx::MAX_FEATURES;

/// A feature vector used as a hash key, without allocation (fixed array + length).
///
/// `-0.0` is folded into `0.0` and every NaN into one NaN, so equal-looking vectors are one key.
#[derive(Clone, Copy, Debug)]
pub struct FKey {
    len: u8,
    bits: [u64; MAX_FEATURES],
}

impl FKey {
    /// Builds a key from the first [`MAX_FEATURES`] values of `f`.
    pub fn new(f: &[f64]) -> FKey {
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
        FKey { len: n as u8, bits }
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

impl PartialEq for FKey {
    fn eq(&self, o: &Self) -> bool {
        self.len == o.len && self.bits[..self.len()] == o.bits[..o.len()]
    }
}
impl Eq for FKey {}
impl Hash for FKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u8(self.len);
        for &b in &self.bits[..self.len()] {
            h.write_u64(b);
        }
    }
}

/// A small, fast, non-cryptographic hasher for [`FKey`] maps (the Firefox/rustc "Fx" mix).
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

/// How many recent timings are kept per (feature vector, variant) for the median. Count, sum,
/// min and max cover every measurement; the median covers the most recent `KEEP` (a bounded
/// ring, so memory does not grow with the run length).
pub const KEEP: usize = 255;

/// Timings of one variant on one feature vector.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VariantStats {
    /// Recorded executions.
    pub count: u64,
    /// Sum of their times, ns.
    pub sum_ns: u64,
    /// Shortest time, ns (0 when `count == 0`).
    pub min_ns: u64,
    /// Longest time, ns.
    pub max_ns: u64,
    /// Ring of the most recent times (at most [`KEEP`]).
    pub recent: Vec<u64>,
    /// Next slot of `recent` to overwrite once it is full.
    pub next: usize,
}

impl VariantStats {
    /// Records one execution time.
    pub fn record(&mut self, ns: u64) {
        if self.count == 0 || ns < self.min_ns {
            self.min_ns = ns;
        }
        self.max_ns = self.max_ns.max(ns);
        self.count += 1;
        self.sum_ns = self.sum_ns.saturating_add(ns);
        if self.recent.len() < KEEP {
            self.recent.push(ns);
        } else {
            self.recent[self.next] = ns;
            self.next = (self.next + 1) % KEEP;
        }
    }

    /// Mean time over every recorded execution, ns.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum_ns as f64 / self.count as f64)
    }

    /// Median of the retained recent times, ns (mean of the two middle ones for an even count).
    pub fn median(&self) -> Option<f64> {
        median(&self.recent)
    }

    /// Rebuilds statistics from persisted fields, trusting count/sum/min/max and keeping at most
    /// [`KEEP`] recent values.
    pub fn from_parts(count: u64, sum_ns: u64, min_ns: u64, max_ns: u64, mut recent: Vec<u64>) -> Self {
        if recent.len() > KEEP {
            recent.drain(..recent.len() - KEEP);
        }
        let count = count.max(recent.len() as u64);
        VariantStats { count, sum_ns, min_ns, max_ns, next: 0, recent }
    }

    /// The retained times, oldest first.
    pub fn recent_in_order(&self) -> Vec<u64> {
        let mut v = Vec::with_capacity(self.recent.len());
        v.extend_from_slice(&self.recent[self.next..]);
        v.extend_from_slice(&self.recent[..self.next]);
        v
    }
}

/// Median of `xs` (mean of the two middle values for an even length); `None` when empty.
pub fn median(xs: &[u64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    let mid = v.len() / 2;
    let (_, &mut hi, _) = v.select_nth_unstable(mid);
    if v.len() % 2 == 1 {
        Some(hi as f64)
    } else {
        let lo = *v[..mid].iter().max().expect("mid > 0");
        Some((lo as f64 + hi as f64) / 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn keys() {
        let a = FKey::new(&[1.0, -0.0]);
        let b = FKey::new(&[1.0, 0.0]);
        assert_eq!(a, b);
        assert_ne!(FKey::new(&[1.0]), FKey::new(&[1.0, 0.0]));
        assert_eq!(FKey::new(&[f64::NAN]), FKey::new(&[-f64::NAN]));
        let s: HashSet<FKey> = [a, b, FKey::new(&[2.0])].into_iter().collect();
        assert_eq!(s.len(), 2);
        let long: Vec<f64> = (0..20).map(|i| i as f64).collect();
        assert_eq!(FKey::new(&long).len(), MAX_FEATURES);
        assert_eq!(FKey::new(&[3.0, 4.0]).values(), vec![3.0, 4.0]);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[5]), Some(5.0));
        assert_eq!(median(&[9, 1, 5]), Some(5.0));
        assert_eq!(median(&[9, 1, 5, 3]), Some(4.0));
        let mut s = VariantStats::default();
        for x in [10, 1000, 20, 30, 25] {
            s.record(x);
        }
        assert_eq!(s.count, 5);
        assert_eq!(s.median(), Some(25.0));
        assert_eq!(s.mean(), Some(217.0));
        assert_eq!((s.min_ns, s.max_ns), (10, 1000));
    }

    #[test]
    fn ring_is_bounded() {
        let mut s = VariantStats::default();
        for x in 0..(KEEP as u64 + 10) {
            s.record(x);
        }
        assert_eq!(s.recent.len(), KEEP);
        assert_eq!(s.count, KEEP as u64 + 10);
        let r = s.recent_in_order();
        assert_eq!(r[0], 10);
        assert_eq!(*r.last().unwrap(), KEEP as u64 + 9);
    }
}
