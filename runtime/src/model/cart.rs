//! The decision-tree learner: CART (axis-aligned binary splits, Gini impurity), made exact on
//! the small, noise-free training sets an adaptive region produces.
//!
//! Why not linfa-trees (measured here, see `tests/models_learners.rs`): on 4 feature values ×
//! 4 classes with depth 2 — the case in which Apollo's tree mispredicts — linfa-trees 0.8.1
//! mispredicts too, and on a 2×2 grid (XOR, or 4 classes) and on features below 1e-5 it
//! mispredicts its own training rows even with unlimited depth. Three causes in its splitter:
//! ties between equally good splits go to the first (most unbalanced) one; values closer than an
//! absolute 1e-5 are treated as equal (so small-scale features cannot be split at all); and a
//! feature value shared by rows in another subtree hides the split after it.
//!
//! This learner:
//! * considers every threshold between two distinct values of a feature (exact comparison; the
//!   threshold is the midpoint, or the upper value when the midpoint rounds onto the lower one);
//! * ranks greedy splits by weighted Gini impurity, ties going to the more balanced split;
//! * at the last level (one split left) picks the split with the fewest misclassified rows
//!   (ties: lower Gini, then balance), and
//! * for the last two levels, if the greedy subtree misclassifies a training row, searches every
//!   depth-2 subtree for the one with the fewest misclassified rows (when the node has at most
//!   [`EXACT_LIMIT`] row × feature pairs; the search is quadratic in that number).
//!
//! Guarantees (tested): with `max_depth ≤ 2` and at most `EXACT_LIMIT` row × feature pairs the
//! tree misclassifies the fewest training rows any tree of that depth can, so it reproduces
//! every training label whenever some tree of that depth can; with `max_depth ≥ n - 1` it
//! reproduces the majority label of every distinct training vector (any two distinct vectors
//! differ in some feature, so a split always exists).
//!
//! NaN features behave like `+∞` (they never compare below a threshold, so they go right, in
//! training and at inference alike).

use super::data::Table;
use crate::spec::MAX_VARIANTS;

/// Class weights of a node (labels are variant indices, < [`MAX_VARIANTS`]), one per class.
type Counts = Vec<f64>;

/// Largest `rows × features` of a node for which the exhaustive depth-2 search runs.
pub const EXACT_LIMIT: usize = 256;

/// A node of a grown tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BNode {
    /// Predicts `class`.
    Leaf {
        /// The predicted class (variant index).
        class: u16,
    },
    /// `x[feature] < threshold` → `left`, else `right` (node indices).
    Split {
        /// Index of the feature tested.
        feature: u16,
        /// Rows whose feature is below it go left.
        threshold: f64,
        /// Node index of the left child.
        left: u32,
        /// Node index of the right child.
        right: u32,
    },
}

/// Sort key of a feature value: NaN sorts (and compares) like `+∞`.
#[inline]
fn key(v: f64) -> f64 {
    if v.is_nan() {
        f64::INFINITY
    } else {
        v
    }
}

/// A threshold `t` with `a < t <= b` for keys `a < b`.
fn threshold(a: f64, b: f64) -> f64 {
    let t = a / 2.0 + b / 2.0;
    if a < t && t <= b {
        t
    } else {
        b
    }
}

fn gini(counts: &[f64], total: f64) -> f64 {
    if total <= 0.0 {
        return 0.0;
    }
    1.0 - counts.iter().map(|c| (c / total) * (c / total)).sum::<f64>()
}

/// Class with the largest weight (ties: lower class) and that weight.
fn majority(counts: &[f64]) -> (u16, f64) {
    let mut best = 0;
    for c in 1..counts.len() {
        if counts[c] > counts[best] {
            best = c;
        }
    }
    (best as u16, counts[best])
}

/// Lexicographic "strictly better" with a tolerance on float ties.
fn better(a: (f64, f64, f64), b: (f64, f64, f64)) -> bool {
    const EPS: f64 = 1e-12;
    if (a.0 - b.0).abs() > EPS {
        return a.0 < b.0;
    }
    if (a.1 - b.1).abs() > EPS {
        return a.1 < b.1;
    }
    a.2 < b.2 - EPS
}

/// A candidate split found by a sweep.
#[derive(Clone, Copy, Debug)]
struct Cand {
    score: (f64, f64, f64),
    feature: u16,
    threshold: f64,
    /// Left/right majority class and misclassified weight (for stumps).
    left: (u16, f64),
    right: (u16, f64),
}

/// Grows trees on one table; reusable across the trees of a forest.
pub struct Grower<'a> {
    t: &'a Table,
    /// Weight of each row (bootstrap counts; rows with weight 0 are not in the sample).
    w: &'a [f64],
    /// Features a split may use.
    features: &'a [u16],
    nodes: Vec<BNode>,
    /// Scratch: rows sorted by one feature.
    sorted: Vec<u32>,
}

impl<'a> Grower<'a> {
    /// A grower over `t` with row weights `w` (same length as `t`'s rows) and candidate features.
    pub fn new(t: &'a Table, w: &'a [f64], features: &'a [u16]) -> Grower<'a> {
        Grower { t, w, features, nodes: Vec::new(), sorted: Vec::new() }
    }

    /// Grows a tree of at most `max_depth` levels of splits over the rows with weight > 0.
    /// Node 0 is the root.
    pub fn grow(mut self, max_depth: usize) -> Vec<BNode> {
        let rows: Vec<u32> = (0..self.t.n() as u32).filter(|&r| self.w[r as usize] > 0.0).collect();
        self.nodes.push(BNode::Leaf { class: 0 });
        if !rows.is_empty() {
            let root = self.build(&rows, max_depth);
            self.nodes[0] = root;
        }
        self.nodes
    }

    fn counts(&self, rows: &[u32]) -> (Counts, f64) {
        let mut c = vec![0.0; self.t.k.min(MAX_VARIANTS)];
        let mut total = 0.0;
        for &r in rows {
            c[self.t.y[r as usize] as usize] += self.w[r as usize];
            total += self.w[r as usize];
        }
        (c, total)
    }

    /// Builds the subtree for `rows` and returns its root node (not yet stored; children are).
    fn build(&mut self, rows: &[u32], depth_left: usize) -> BNode {
        let (counts, total) = self.counts(rows);
        let counts = &counts[..self.t.k];
        let (maj, maxw) = majority(counts);
        if depth_left == 0 || maxw >= total {
            return BNode::Leaf { class: maj };
        }
        if depth_left == 1 {
            return match self.best(rows, counts, total, true) {
                Some(c) if c.left.1 + c.right.1 < total - maxw => self.stump(c),
                _ => BNode::Leaf { class: maj },
            };
        }
        let Some(c) = self.best(rows, counts, total, false) else { return BNode::Leaf { class: maj } };
        let (l, r) = self.partition(rows, c.feature, c.threshold);
        let mark = self.nodes.len();
        let left = self.build(&l, depth_left - 1);
        let right = self.build(&r, depth_left - 1);
        let node = self.split(c.feature, c.threshold, left, right);
        if depth_left == 2 && rows.len() * self.features.len() <= EXACT_LIMIT {
            let greedy_err = self.errors(node, rows);
            if greedy_err > 0.0 {
                if let Some((err, exact)) = self.exact2(rows, counts, total) {
                    if err < greedy_err {
                        self.nodes.truncate(mark);
                        return self.materialise(exact);
                    }
                }
            }
        }
        node
    }

    fn push(&mut self, n: BNode) -> u32 {
        self.nodes.push(n);
        (self.nodes.len() - 1) as u32
    }

    fn split(&mut self, feature: u16, threshold: f64, left: BNode, right: BNode) -> BNode {
        let left = self.push(left);
        let right = self.push(right);
        BNode::Split { feature, threshold, left, right }
    }

    fn stump(&mut self, c: Cand) -> BNode {
        self.split(c.feature, c.threshold, BNode::Leaf { class: c.left.0 }, BNode::Leaf { class: c.right.0 })
    }

    fn partition(&self, rows: &[u32], feature: u16, t: f64) -> (Vec<u32>, Vec<u32>) {
        rows.iter().partition(|&&r| key(self.t.at(r as usize, feature as usize)) < t)
    }

    /// Misclassified weight of the subtree rooted at `node` on `rows`.
    fn errors(&self, node: BNode, rows: &[u32]) -> f64 {
        let mut err = 0.0;
        for &r in rows {
            let mut n = node;
            let class = loop {
                match n {
                    BNode::Leaf { class } => break class,
                    BNode::Split { feature, threshold, left, right } => {
                        let v = self.t.at(r as usize, feature as usize);
                        n = self.nodes[if v < threshold { left } else { right } as usize];
                    }
                }
            };
            if class != self.t.y[r as usize] {
                err += self.w[r as usize];
            }
        }
        err
    }

    /// Best split of `rows` over the candidate features. `stump`: rank by misclassified weight
    /// first (the split is the last level); else by Gini. Ties: Gini, then balance.
    fn best(&mut self, rows: &[u32], parent: &[f64], total: f64, stump: bool) -> Option<Cand> {
        let mut best: Option<Cand> = None;
        let k = parent.len();
        let (mut left, mut right) = (vec![0.0; k], vec![0.0; k]);
        let (left, right) = (&mut left[..], &mut right[..]);
        let mut sorted = std::mem::take(&mut self.sorted);
        for &f in self.features {
            sorted.clear();
            sorted.extend_from_slice(rows);
            let t = self.t;
            sorted.sort_by(|&a, &b| key(t.at(a as usize, f as usize)).total_cmp(&key(t.at(b as usize, f as usize))));
            left.iter_mut().for_each(|c| *c = 0.0);
            right.copy_from_slice(parent);
            let (mut wl, mut wr) = (0.0, total);
            for i in 0..sorted.len() - 1 {
                let r = sorted[i] as usize;
                let (y, w) = (t.y[r] as usize, self.w[r]);
                left[y] += w;
                right[y] -= w;
                wl += w;
                wr -= w;
                let a = key(t.at(r, f as usize));
                let b = key(t.at(sorted[i + 1] as usize, f as usize));
                if a >= b {
                    continue; // equal values (keys are never NaN): no threshold between them
                }
                let g = (wl * gini(left, wl) + wr * gini(right, wr)) / total;
                let balance = (wl - wr).abs();
                let (lm, rm) = (majority(left), majority(right));
                let lerr = (lm.0, wl - lm.1);
                let rerr = (rm.0, wr - rm.1);
                let score = if stump { (lerr.1 + rerr.1, g, balance) } else { (g, balance, 0.0) };
                if best.is_none_or(|b| better(score, b.score)) {
                    best = Some(Cand { score, feature: f, threshold: threshold(a, b), left: lerr, right: rerr });
                }
            }
        }
        self.sorted = sorted;
        best
    }

    /// Exhaustive search of the depth-≤2 subtree with the fewest misclassified rows.
    fn exact2(&mut self, rows: &[u32], counts: &[f64], total: f64) -> Option<(f64, Exact)> {
        let (maj, maxw) = majority(counts);
        let mut best = (total - maxw, (0.0, 0.0), Exact::Leaf(maj));
        if let Some(c) = self.best(rows, counts, total, true) {
            let err = c.left.1 + c.right.1;
            if err < best.0 {
                best = (err, (0.0, 0.0), Exact::Stump(c));
            }
        }
        let mut sorted = Vec::with_capacity(rows.len());
        let features = self.features;
        for &f in features {
            sorted.clear();
            sorted.extend_from_slice(rows);
            let t = self.t;
            sorted.sort_by(|&a, &b| key(t.at(a as usize, f as usize)).total_cmp(&key(t.at(b as usize, f as usize))));
            for i in 0..sorted.len() - 1 {
                let a = key(t.at(sorted[i] as usize, f as usize));
                let b = key(t.at(sorted[i + 1] as usize, f as usize));
                if a >= b {
                    continue; // equal values (keys are never NaN): no threshold between them
                }
                let (l, r) = sorted.split_at(i + 1);
                let (lc, lt) = self.counts(l);
                let (rc, rt) = self.counts(r);
                let (lc, rc) = (&lc[..self.t.k], &rc[..self.t.k]);
                let side = |g: &mut Self, rows: &[u32], c: &[f64], tot: f64| -> (f64, Option<Cand>, u16) {
                    let (m, mw) = majority(c);
                    match g.best(rows, c, tot, true) {
                        Some(s) if s.left.1 + s.right.1 < tot - mw => (s.left.1 + s.right.1, Some(s), m),
                        _ => (tot - mw, None, m),
                    }
                };
                let ls = side(self, l, lc, lt);
                let rs = side(self, r, rc, rt);
                let err = ls.0 + rs.0;
                let g = (lt * gini(lc, lt) + rt * gini(rc, rt)) / total;
                let tie = (g, (lt - rt).abs());
                // Equal error never replaces a smaller tree; among depth-2 trees: Gini, balance.
                let tied = (err - best.0).abs() <= 1e-12;
                let two = matches!(best.2, Exact::Two { .. });
                if err < best.0 - 1e-12 || (tied && two && better((tie.0, tie.1, 0.0), (best.1 .0, best.1 .1, 0.0))) {
                    best = (err, tie, Exact::Two { feature: f, threshold: threshold(a, b), left: (ls.1, ls.2), right: (rs.1, rs.2) });
                }
            }
        }
        Some((best.0, best.2))
    }

    fn materialise(&mut self, e: Exact) -> BNode {
        match e {
            Exact::Leaf(class) => BNode::Leaf { class },
            Exact::Stump(c) => self.stump(c),
            Exact::Two { feature, threshold, left, right } => {
                let side = |g: &mut Self, s: (Option<Cand>, u16)| match s.0 {
                    Some(c) => g.stump(c),
                    None => BNode::Leaf { class: s.1 },
                };
                let l = side(self, left);
                let r = side(self, right);
                self.split(feature, threshold, l, r)
            }
        }
    }
}

/// Result of the exhaustive depth-2 search.
#[derive(Clone, Copy, Debug)]
enum Exact {
    Leaf(u16),
    Stump(Cand),
    Two { feature: u16, threshold: f64, left: (Option<Cand>, u16), right: (Option<Cand>, u16) },
}

/// Grows one tree on all rows of `t` (weight 1 each) over all features.
pub fn grow_all(t: &Table, max_depth: usize) -> Vec<BNode> {
    let w = vec![1.0; t.n()];
    let features: Vec<u16> = (0..t.p as u16).collect();
    Grower::new(t, &w, &features).grow(max_depth)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn predict(nodes: &[BNode], x: &[f64]) -> u16 {
        let mut n = nodes[0];
        loop {
            match n {
                BNode::Leaf { class } => return class,
                BNode::Split { feature, threshold, left, right } => {
                    n = nodes[if x[feature as usize] < threshold { left } else { right } as usize]
                }
            }
        }
    }

    fn fits(rows: &[Vec<f64>], labels: &[usize], depth: usize) -> bool {
        let t = Table::new(rows, labels).unwrap();
        let nodes = grow_all(&t, depth);
        (0..t.n()).all(|i| predict(&nodes, t.row(i)) as usize == labels[i])
    }

    #[test]
    fn thresholds() {
        assert_eq!(threshold(1.0, 3.0), 2.0);
        let a = 1.0f64;
        let b = f64::from_bits(a.to_bits() + 1);
        assert_eq!(threshold(a, b), b);
        assert_eq!(threshold(-f64::INFINITY, 0.0), 0.0);
        assert_eq!(threshold(1.0, f64::INFINITY), f64::INFINITY);
        assert_eq!(threshold(f64::MAX, f64::INFINITY), f64::INFINITY);
        assert!(threshold(-f64::MAX, f64::MAX).is_finite());
    }

    #[test]
    fn small_exact_cases() {
        let one = |v: &[f64]| v.iter().map(|&x| vec![x]).collect::<Vec<_>>();
        assert!(fits(&one(&[0.0, 1.0, 2.0, 3.0]), &[0, 1, 2, 3], 2), "4 values x 4 classes, depth 2");
        assert!(fits(&one(&[1e-7, 2e-7, 3e-7, 4e-7]), &[0, 1, 2, 3], 2), "tiny scale");
        assert!(fits(&one(&[1e2, 1e3, 1e5, 1e7]), &[0, 1, 2, 3], 2), "large, uneven scale");
        let grid = vec![vec![1.0, 1.0], vec![1.0, 2.0], vec![2.0, 1.0], vec![2.0, 2.0]];
        assert!(fits(&grid, &[0, 1, 1, 0], 2), "xor");
        assert!(fits(&grid, &[0, 1, 2, 3], 2), "2x2 grid, 4 classes");
        assert!(!fits(&one(&[0.0, 1.0, 2.0]), &[0, 1, 2], 1), "3 classes need 2 levels");
        assert!(fits(&one(&[0.0, 0.0, 0.0, 1.0, 2.0, 3.0]), &[0, 0, 0, 1, 2, 3], 2), "duplicates");
    }

    #[test]
    fn depth_two_is_optimal_where_greedy_is_not() {
        // Greedy Gini would split off the big class first and then cannot separate the rest.
        let rows: Vec<Vec<f64>> = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0].iter().map(|&x| vec![x]).collect();
        // classes: 0 x5 at 0, then 1, 2, 1 -> needs {0} | {1} | {2} | {3}: 4 leaves
        assert!(fits(&rows, &[0, 0, 0, 0, 0, 1, 2, 1], 2));
        let rows: Vec<Vec<f64>> = (0..8).map(|i| vec![i as f64]).collect();
        assert!(fits(&rows, &[0, 0, 1, 1, 2, 2, 3, 3], 2));
        assert!(fits(&rows, &[0, 0, 0, 0, 0, 1, 2, 3], 2));
    }

    #[test]
    fn nan_goes_right() {
        let rows = vec![vec![1.0], vec![f64::NAN], vec![2.0]];
        let t = Table::new(&rows, &[0, 1, 0]).unwrap();
        let nodes = grow_all(&t, 3);
        assert_eq!(predict(&nodes, &[1.0]), 0);
        assert_eq!(predict(&nodes, &[f64::NAN]), 1);
        assert_eq!(predict(&nodes, &[2.0]), 0);
    }
}
