//! Random forests: bagged trees on random feature subsets, majority vote; compiled into one
//! node array.
//!
//! Each tree is grown by the [`cart`](super::cart) learner on a bootstrap resample of the rows
//! (n draws with replacement, kept as row weights, so nothing is copied) and on a random subset
//! of `ceil(sqrt(p))` of the `p` features, drawn without replacement (Ho's random subspaces
//! combined with Breiman's bagging; per tree rather than per split). The stream of random
//! numbers comes from a seed (the region's model name), so the same data always gives the same
//! forest. The forest predicts the class most trees predict, ties going to the lower variant.
//!
//! Why not linfa-ensemble 0.8.1 (released, alongside linfa-trees): its `RandomForest` draws the
//! feature subset *with* replacement (with 2 features and proportion 1.0, half of the trees
//! see one feature twice and never the other), panics (`unwrap`) when a base tree fails to fit,
//! fits linfa-trees (whose splitter mispredicts the small exact cases, see `cart`), and brings
//! `rand` 0.8 and ndarray's rayon feature for what is 20 lines here.
//!
//! What is guaranteed: each tree is as exact on its own resample as the tree learner is; the
//! vote is not (a tree that never drew a row does not know its class). A forest is therefore
//! not guaranteed to reproduce every training row on its own; [`super::train`] adds the
//! training vectors it gets wrong as exceptions (see [`super::patch`]).

use super::cart::{BNode, Grower};
use super::data::Table;
use super::rng::XorShift;
use super::tree::{append, render_at, walk, Node};
use crate::ctx::MAX_FEATURES;
use crate::spec::MAX_VARIANTS;

/// A compiled forest: all trees' nodes in one array.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FlatForest {
    /// Every tree's nodes, one tree after another.
    pub nodes: Box<[Node]>,
    /// Root node of each tree.
    pub roots: Box<[u32]>,
    /// Steps to walk: the deepest tree's depth (leaves loop on themselves, so shallower trees
    /// are unaffected).
    pub depth: u32,
    /// Classes that can be voted for: the largest label + 1.
    pub nclasses: u32,
}

impl FlatForest {
    /// Predicted variant for `x`: the class with most votes, ties to the lower index.
    #[inline]
    pub fn predict(&self, x: &[f64; MAX_FEATURES]) -> usize {
        if self.nclasses <= 8 && self.roots.len() <= 255 {
            // Votes in 8-bit lanes of one register: the increments form a 1-cycle add chain
            // instead of a store-to-load chain through a votes array.
            let mut votes = 0u64;
            for &root in self.roots.iter() {
                votes += 1 << (8 * (walk(&self.nodes, root, self.depth, x) & 7));
            }
            let mut best = 0;
            for c in 1..self.nclasses as usize {
                if (votes >> (8 * c)) & 0xff > (votes >> (8 * best)) & 0xff {
                    best = c;
                }
            }
            return best;
        }
        let mut votes = [0u16; MAX_VARIANTS];
        for &root in self.roots.iter() {
            let c = walk(&self.nodes, root, self.depth, x) as usize;
            votes[c & (MAX_VARIANTS - 1)] += 1;
        }
        let n = (self.nclasses as usize).min(MAX_VARIANTS);
        let mut best = 0;
        for c in 1..n {
            if votes[c] > votes[best] {
                best = c;
            }
        }
        best
    }

    /// Each tree as indented text.
    pub fn render(&self, feature: &dyn Fn(usize) -> String, class: &dyn Fn(usize) -> String, indent: usize) -> String {
        let mut out = String::new();
        for (i, &root) in self.roots.iter().enumerate() {
            out.push_str(&format!("{}tree {} of {}:\n", "  ".repeat(indent), i + 1, self.roots.len()));
            out.push_str(&render_at(&self.nodes, root, feature, class, indent + 1));
        }
        out
    }
}

const _: () = assert!(MAX_VARIANTS.is_power_of_two());

/// Number of features each tree may use: `ceil(sqrt(p))`.
pub fn subset_size(p: usize) -> usize {
    let mut m = 1;
    while m * m < p {
        m += 1;
    }
    m.min(p)
}

/// Trains a forest of `trees` trees of depth ≤ `max_depth`.
pub fn fit(t: &Table, trees: usize, max_depth: usize, seed: u64) -> FlatForest {
    bag(t.n(), t.p, t.k, trees, seed, &mut |w, features| Grower::new(t, w, features).grow(max_depth))
}

/// [`fit`] with row weights (each bootstrap count multiplied by its row's weight).
pub fn fit_weighted(t: &Table, weights: &[f64], trees: usize, max_depth: usize, seed: u64) -> FlatForest {
    let mut scaled = vec![0.0; t.n()];
    bag(t.n(), t.p, t.k, trees, seed, &mut |w, features| {
        for (s, (b, r)) in scaled.iter_mut().zip(w.iter().zip(weights)) {
            *s = b * r;
        }
        Grower::new(t, &scaled, features).grow(max_depth)
    })
}

/// Grows one tree from row weights and candidate features.
type GrowFn<'a> = dyn FnMut(&[f64], &[u16]) -> Vec<BNode> + 'a;

/// Bagging: `trees` bootstrap resamples (as row weights) and feature subsets, each grown by
/// `grow`.
fn bag(n: usize, p: usize, k: usize, trees: usize, seed: u64, grow: &mut GrowFn) -> FlatForest {
    let m = subset_size(p);
    let mut rng = XorShift::new(seed);
    let mut nodes = Vec::new();
    let mut roots = Vec::with_capacity(trees);
    let mut depth = 0;
    let mut w = vec![0.0; n];
    let mut all: Vec<u16> = (0..p as u16).collect();
    for _ in 0..trees.max(1) {
        w.iter_mut().for_each(|x| *x = 0.0);
        for _ in 0..n {
            w[rng.below(n)] += 1.0;
        }
        // partial Fisher-Yates: the first m entries become a uniform subset
        for i in 0..m {
            let j = i + rng.below(p - i);
            all.swap(i, j);
        }
        let mut features = all[..m].to_vec();
        features.sort_unstable();
        let grown = grow(&w, &features);
        let (root, d) = append(&grown, &mut nodes);
        roots.push(root);
        depth = depth.max(d);
    }
    FlatForest { nodes: nodes.into(), roots: roots.into(), depth, nclasses: k as u32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subset_sizes() {
        assert_eq!((1..=10).map(subset_size).collect::<Vec<_>>(), vec![1, 2, 2, 2, 3, 3, 3, 3, 3, 4]);
        assert_eq!(subset_size(16), 4);
    }

    #[test]
    fn votes_and_determinism() {
        let rows: Vec<Vec<f64>> = (0..20).map(|i| vec![i as f64]).collect();
        let labels: Vec<usize> = (0..20).map(|i| (i >= 10) as usize).collect();
        let t = Table::new(&rows, &labels).unwrap();
        let f = fit(&t, 15, 2, 7);
        assert_eq!(f.roots.len(), 15);
        let pad = |v: f64| {
            let mut x = [0.0; MAX_FEATURES];
            x[0] = v;
            x
        };
        assert_eq!(f.predict(&pad(0.0)), 0);
        assert_eq!(f.predict(&pad(19.0)), 1);
        assert_eq!(f, fit(&t, 15, 2, 7));
        assert_ne!(f, fit(&t, 15, 2, 8));
    }

    /// Both vote counters (packed for ≤ 8 classes, an array beyond) agree with a plain count.
    #[test]
    fn vote_paths() {
        for k in [3usize, 12] {
            let rows: Vec<Vec<f64>> = (0..40).map(|i| vec![i as f64, (i * 7 % 11) as f64]).collect();
            let labels: Vec<usize> = (0..40).map(|i| (i * 5 + i / 7) % k).collect();
            let t = Table::new(&rows, &labels).unwrap();
            let f = fit(&t, 25, 3, 3);
            for r in &rows {
                let mut x = [0.0; MAX_FEATURES];
                x[..2].copy_from_slice(r);
                let mut counts = vec![0; k];
                for &root in f.roots.iter() {
                    counts[walk(&f.nodes, root, f.depth, &x) as usize] += 1;
                }
                let want = (0..k).fold(0, |b, c| if counts[c] > counts[b] { c } else { b });
                assert_eq!(f.predict(&x), want, "k={k}");
            }
        }
    }

    /// Feature subsets are drawn without replacement: with 4 features every tree uses 2
    /// different ones, and across trees every feature is used.
    #[test]
    fn feature_subsets() {
        let rows: Vec<Vec<f64>> = (0..16).map(|i| (0..4).map(|c| ((i >> c) & 1) as f64).collect()).collect();
        let labels: Vec<usize> = (0..16).map(|i| i & 3).collect();
        let t = Table::new(&rows, &labels).unwrap();
        let f = fit(&t, 30, 3, 1);
        let mut used = [false; 4];
        for &root in f.roots.iter() {
            let mut seen = std::collections::BTreeSet::new();
            let mut stack = vec![root as usize];
            while let Some(i) = stack.pop() {
                if !super::super::tree::is_leaf(&f.nodes, i) {
                    seen.insert(f.nodes[i].feature);
                    stack.extend(f.nodes[i].kids.iter().map(|&k| k as usize));
                }
            }
            assert!(seen.len() <= 2, "{seen:?}");
            for s in seen {
                used[s as usize] = true;
            }
        }
        assert_eq!(used, [true; 4]);
    }
}
