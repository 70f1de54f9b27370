//! Regret-aware decision trees: splits and leaves chosen by the time a wrong choice loses.
//!
//! A label-trained tree counts every misclassified vector alike: a near-tie (the runner-up 1 %
//! slower) weighs as much as a vector where the wrong variant is 10× slower. Given per-variant
//! times ([`Costs`]), this learner charges vector `i` the *regret* `R[i][v] = t_v / t_best − 1`
//! for choosing `v` there, and
//! * labels each leaf with the variant of least total regret over its vectors (which may be a
//!   variant that is nobody's best but everybody's close second);
//! * splits where the children's total regret is least; while two or more levels remain and
//!   the node is small (`rows × features ≤` [`LOOKAHEAD_LIMIT`]) a split is judged by the best
//!   one-split subtree on each side (one level of lookahead: a pattern whose first split alone
//!   gains nothing, like an XOR, is still found); ties go to the more balanced split;
//! * stops where the regret is 0 (every vector gets its best variant or a tie with it).
//!
//! Relative regret rather than seconds: a region runs inputs of very different sizes, and in
//! seconds the largest inputs would decide every split while the small ones (often run far
//! more often) would be ignored; a fraction of each input's best time treats every input alike,
//! which is what "within 5 % of the best" measures. Row weights (bootstrap counts for forests)
//! multiply the regrets.

use super::cart::BNode;
use super::costs::Costs;

/// Largest `rows × features` of a node for which splits are judged with one level of lookahead.
pub const LOOKAHEAD_LIMIT: usize = 4096;

/// Grows regret trees on one [`Costs`] table (reusable across a forest's trees).
pub struct RegretGrower<'a> {
    c: &'a Costs,
    /// Regret matrix, `n × k`, already multiplied by the row weights.
    r: Vec<f64>,
    w: &'a [f64],
    features: &'a [u16],
    nodes: Vec<BNode>,
}

#[derive(Clone, Copy)]
struct Split {
    score: f64,
    balance: f64,
    feature: u16,
    threshold: f64,
}

impl<'a> RegretGrower<'a> {
    /// A grower over `c` with row weights `w` (0: not in the sample) and candidate features.
    pub fn new(c: &'a Costs, w: &'a [f64], features: &'a [u16]) -> RegretGrower<'a> {
        let mut r = vec![0.0; c.n() * c.k];
        for i in 0..c.n() {
            for v in 0..c.k {
                r[i * c.k + v] = w[i] * c.regret(i, v);
            }
        }
        RegretGrower { c, r, w, features, nodes: Vec::new() }
    }

    /// Grows a tree of at most `max_depth` levels (node 0 is the root).
    pub fn grow(mut self, max_depth: usize) -> Vec<BNode> {
        let rows: Vec<u32> = (0..self.c.n() as u32).filter(|&i| self.w[i as usize] > 0.0).collect();
        self.nodes.push(BNode::Leaf { class: 0 });
        if !rows.is_empty() {
            let root = self.build(&rows, max_depth);
            self.nodes[0] = root;
        }
        self.nodes
    }

    fn sums(&self, rows: &[u32]) -> Vec<f64> {
        let k = self.c.k;
        let mut s = vec![0.0; k];
        for &i in rows {
            for v in 0..k {
                s[v] += self.r[i as usize * k + v];
            }
        }
        s
    }

    fn leaf(s: &[f64]) -> (u16, f64) {
        let mut best = 0;
        for v in 1..s.len() {
            if s[v] < s[best] - 1e-12 {
                best = v;
            }
        }
        (best as u16, s[best])
    }

    fn build(&mut self, rows: &[u32], depth_left: usize) -> BNode {
        let (class, regret) = Self::leaf(&self.sums(rows));
        if depth_left == 0 || regret <= 1e-12 || rows.len() < 2 {
            return BNode::Leaf { class };
        }
        let lookahead = depth_left >= 2 && rows.len() * self.features.len() <= LOOKAHEAD_LIMIT;
        let Some(s) = self.best(rows, lookahead) else { return BNode::Leaf { class } };
        if s.score >= regret - 1e-12 {
            return BNode::Leaf { class };
        }
        let (l, r): (Vec<u32>, Vec<u32>) =
            rows.iter().partition(|&&i| key(self.c.row(i as usize)[s.feature as usize]) < s.threshold);
        let left = self.build(&l, depth_left - 1);
        let right = self.build(&r, depth_left - 1);
        // a split whose children both choose what the parent would is no split
        if let (BNode::Leaf { class: a }, BNode::Leaf { class: b }) = (left, right) {
            if a == b {
                return BNode::Leaf { class };
            }
        }
        let li = self.push(left);
        let ri = self.push(right);
        BNode::Split { feature: s.feature, threshold: s.threshold, left: li, right: ri }
    }

    fn push(&mut self, n: BNode) -> u32 {
        self.nodes.push(n);
        (self.nodes.len() - 1) as u32
    }

    /// Best split of `rows`: by the children's leaf regret, or (lookahead) by the regret of the
    /// best stump on each side.
    fn best(&self, rows: &[u32], lookahead: bool) -> Option<Split> {
        let k = self.c.k;
        let total = self.sums(rows);
        let wtotal: f64 = rows.iter().map(|&i| self.w[i as usize]).sum();
        let mut best: Option<Split> = None;
        let mut sorted = rows.to_vec();
        for &f in self.features {
            let x = |i: u32| key(self.c.row(i as usize)[f as usize]);
            sorted.sort_by(|&a, &b| x(a).total_cmp(&x(b)));
            let mut left = vec![0.0; k];
            let mut wl = 0.0;
            for p in 0..sorted.len() - 1 {
                let i = sorted[p] as usize;
                for v in 0..k {
                    left[v] += self.r[i * k + v];
                }
                wl += self.w[i];
                let (a, b) = (x(sorted[p]), x(sorted[p + 1]));
                if a >= b {
                    continue;
                }
                let score = if lookahead {
                    self.stump(&sorted[..=p]) + self.stump(&sorted[p + 1..])
                } else {
                    let right: Vec<f64> = (0..k).map(|v| total[v] - left[v]).collect();
                    Self::leaf(&left).1 + Self::leaf(&right).1
                };
                let balance = (wl - (wtotal - wl)).abs();
                let better = match best {
                    None => true,
                    Some(b) => score < b.score - 1e-12 || (score <= b.score + 1e-12 && balance < b.balance - 1e-12),
                };
                if better {
                    let t = a / 2.0 + b / 2.0;
                    best = Some(Split { score, balance, feature: f, threshold: if a < t && t <= b { t } else { b } });
                }
            }
        }
        best
    }

    /// Regret of the best single split of `rows` (or of one leaf, if no split is better).
    fn stump(&self, rows: &[u32]) -> f64 {
        let k = self.c.k;
        let total = self.sums(rows);
        let mut best = Self::leaf(&total).1;
        if best <= 1e-12 || rows.len() < 2 {
            return best;
        }
        let mut sorted = rows.to_vec();
        let mut left = vec![0.0; k];
        let mut right = vec![0.0; k];
        for &f in self.features {
            let x = |i: u32| key(self.c.row(i as usize)[f as usize]);
            sorted.sort_by(|&a, &b| x(a).total_cmp(&x(b)));
            left.iter_mut().for_each(|s| *s = 0.0);
            for p in 0..sorted.len() - 1 {
                let i = sorted[p] as usize;
                for v in 0..k {
                    left[v] += self.r[i * k + v];
                }
                if x(sorted[p]) >= x(sorted[p + 1]) {
                    continue;
                }
                for v in 0..k {
                    right[v] = total[v] - left[v];
                }
                best = best.min(Self::leaf(&left).1 + Self::leaf(&right).1);
            }
        }
        best
    }
}

/// NaN sorts and compares like `+∞` (as in [`super::cart`]).
#[inline]
fn key(v: f64) -> f64 {
    if v.is_nan() {
        f64::INFINITY
    } else {
        v
    }
}

/// Grows one regret tree on every row (weight 1) over every feature.
pub fn grow_all(c: &Costs, max_depth: usize) -> Vec<BNode> {
    let w = vec![1.0; c.n()];
    let features: Vec<u16> = (0..c.p as u16).collect();
    RegretGrower::new(c, &w, &features).grow(max_depth)
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
                    n = nodes[if key(x[feature as usize]) < threshold { left } else { right } as usize]
                }
            }
        }
    }

    /// One leaf for three vectors: variant 2 is nobody's best but within 2 % everywhere, while
    /// each vector's best variant is 5× slower on another vector.
    #[test]
    fn leaf_takes_the_least_regret_variant() {
        let rows = vec![vec![1.0], vec![2.0], vec![3.0]];
        let times = vec![vec![1.0, 5.0, 1.02], vec![5.0, 1.0, 1.02], vec![1.0, 5.0, 1.02]];
        let c = Costs::new(&rows, &times, 3).unwrap();
        let t = grow_all(&c, 0);
        assert_eq!(predict(&t, &[2.0]), 2);
        // with a level, the vector that needs variant 1 is split off
        let t = grow_all(&c, 2);
        assert_eq!(predict(&t, &[1.0]), 0);
        assert_eq!(predict(&t, &[2.0]), 1);
    }

    /// A near-tie is sacrificed for a big loss: depth 1 cannot fit both, and the split that
    /// isolates the costly vector wins although it misclassifies more vectors.
    #[test]
    fn big_losses_outweigh_near_ties() {
        let rows: Vec<Vec<f64>> = (0..6).map(|i| vec![i as f64]).collect();
        // vectors 0..3: variant 0 best by 1 %; vector 4: variant 1 best by 1 %; vector 5:
        // variant 0 is 10x slower
        let mut times = vec![vec![1.0, 1.01]; 4];
        times.push(vec![1.01, 1.0]);
        times.push(vec![10.0, 1.0]);
        times.push(vec![1.0, 1.01]);
        let rows7: Vec<Vec<f64>> = (0..7).map(|i| vec![i as f64]).collect();
        let c = Costs::new(&rows7, &times, 2).unwrap();
        let t = grow_all(&c, 1);
        assert_eq!(predict(&t, &[5.0]), 1, "the 10x loss is avoided");
        let _ = rows;
    }

    #[test]
    fn xor_needs_lookahead() {
        let rows = vec![vec![1.0, 1.0], vec![1.0, 2.0], vec![2.0, 1.0], vec![2.0, 2.0]];
        let times = vec![vec![1.0, 2.0], vec![2.0, 1.0], vec![2.0, 1.0], vec![1.0, 2.0]];
        let c = Costs::new(&rows, &times, 2).unwrap();
        let t = grow_all(&c, 2);
        for (r, ts) in rows.iter().zip(&times) {
            let want = if ts[0] < ts[1] { 0 } else { 1 };
            assert_eq!(predict(&t, r), want);
        }
    }
}
