//! Training data in the learners' layout: `n` rows × `p` columns, row-major, with labels.

use crate::ctx::MAX_FEATURES;
use crate::spec::MAX_VARIANTS;

/// Feature rows and their labels (the best variant of each row).
#[derive(Clone, Debug)]
pub struct Table {
    /// Columns: the longest row's length, at least 1, at most [`MAX_FEATURES`]. Shorter rows are
    /// zero-padded, exactly as the runtime pads the features it predicts on.
    pub p: usize,
    /// `n × p` values, row-major.
    pub x: Vec<f64>,
    /// Label of each row.
    pub y: Vec<u16>,
    /// Number of classes: the largest label + 1.
    pub k: usize,
}

impl Table {
    /// Builds the table; fails on no rows, a length mismatch, or a label ≥ [`MAX_VARIANTS`].
    pub fn new(rows: &[Vec<f64>], labels: &[usize]) -> Result<Table, String> {
        if rows.is_empty() || rows.len() != labels.len() {
            return Err(format!("{} rows for {} labels", rows.len(), labels.len()));
        }
        if let Some(&bad) = labels.iter().find(|&&l| l >= MAX_VARIANTS) {
            return Err(format!("label {bad} is not a variant index (at most {MAX_VARIANTS} variants)"));
        }
        let p = rows.iter().map(Vec::len).max().unwrap_or(0).clamp(1, MAX_FEATURES);
        let mut x = Vec::with_capacity(rows.len() * p);
        for r in rows {
            x.extend((0..p).map(|c| r.get(c).copied().unwrap_or(0.0)));
        }
        let k = labels.iter().max().map_or(1, |&m| m + 1);
        Ok(Table { p, x, y: labels.iter().map(|&l| l as u16).collect(), k })
    }

    /// The most frequent label (ties: the lower one).
    pub fn majority(&self) -> usize {
        let mut counts = vec![0usize; self.k];
        for &y in &self.y {
            counts[y as usize] += 1;
        }
        (0..self.k).fold(0, |b, c| if counts[c] > counts[b] { c } else { b })
    }

    /// Number of rows.
    pub fn n(&self) -> usize {
        self.y.len()
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.x[i * self.p..(i + 1) * self.p]
    }

    /// Value of row `i`, column `c`.
    #[inline]
    pub fn at(&self, i: usize, c: usize) -> f64 {
        self.x[i * self.p + c]
    }

    /// Row `i` zero-padded to [`MAX_FEATURES`] (the inference input).
    pub fn padded(&self, i: usize) -> [f64; MAX_FEATURES] {
        let mut out = [0.0; MAX_FEATURES];
        out[..self.p].copy_from_slice(self.row(i));
        out
    }

    /// The distinct feature vectors, each with its majority label (ties: the lower label) and
    /// the index of its first row, in first-seen order. Values compare as numbers (`-0.0` is
    /// `0.0`); NaN rows are never merged.
    pub fn distinct(&self) -> Vec<(usize, u16)> {
        let mut order: Vec<usize> = (0..self.n()).collect();
        let cmp = |a: &usize, b: &usize| {
            for c in 0..self.p {
                match self.at(*a, c).partial_cmp(&self.at(*b, c)) {
                    Some(std::cmp::Ordering::Equal) => continue,
                    Some(o) => return o,
                    None => return a.cmp(b), // NaN: keep apart, stable
                }
            }
            std::cmp::Ordering::Equal
        };
        order.sort_by(|a, b| cmp(a, b).then(a.cmp(b)));
        let mut out = Vec::new();
        let mut i = 0;
        let mut counts = vec![0u32; self.k];
        while i < order.len() {
            let mut j = i + 1;
            while j < order.len() && cmp(&order[i], &order[j]) == std::cmp::Ordering::Equal {
                j += 1;
            }
            counts.iter_mut().for_each(|c| *c = 0);
            for &r in &order[i..j] {
                counts[self.y[r] as usize] += 1;
            }
            let label = (0..self.k).fold(0, |b, c| if counts[c] > counts[b] { c } else { b });
            out.push((order[i], label as u16));
            i = j;
        }
        out.sort_unstable_by_key(|&(first, _)| first);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_and_distinct() {
        let rows = vec![vec![1.0, 2.0], vec![3.0], vec![1.0, 2.0], vec![-0.0, 0.0], vec![0.0], vec![1.0, 2.0]];
        let t = Table::new(&rows, &[2, 0, 1, 1, 0, 1]).unwrap();
        assert_eq!((t.p, t.n(), t.k), (2, 6, 3));
        assert_eq!(t.row(1), &[3.0, 0.0]);
        assert_eq!(t.padded(0)[..3], [1.0, 2.0, 0.0]);
        // (1,2) has labels 2,1,1 -> 1; (-0,0) and (0) are one vector with labels 1,0 -> tie -> 0
        assert_eq!(t.distinct(), vec![(0, 1), (1, 0), (3, 0)]);
        assert!(Table::new(&rows, &[0]).is_err());
        assert!(Table::new(&[], &[]).is_err());
        assert!(Table::new(&[vec![1.0]], &[MAX_VARIANTS]).is_err());
        let wide = Table::new(&[vec![1.0; 20]], &[0]).unwrap();
        assert_eq!(wide.p, MAX_FEATURES);
    }
}
