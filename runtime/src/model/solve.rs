//! Small least-squares solvers on normal equations: ridge-damped least squares (Cholesky) and
//! non-negative least squares (Lawson–Hanson active set).
//!
//! Both work on the Gram matrix `G = AᵀA` and `h = Aᵀb` rather than on `A`, so a piecewise fit
//! can try every split of sorted rows from prefix sums of the rows' outer products: one
//! `m × m` solve per candidate split instead of a pass over the rows (`m` ≤ 17 terms here).
//! Hand-written because the systems are tiny and the active-set loop needs sub-solves on
//! changing index sets; no pure-Rust crate offers weighted NNLS on a Gram matrix, and
//! linfa-linear (ordinary and Tweedie regression) has neither non-negativity nor a Gram entry
//! point.

// Dense linear algebra on small fixed arrays: index loops over several arrays at once read
// better than iterator chains.
#![allow(clippy::needless_range_loop)]

/// Most terms a system may have.
pub const MAX_TERMS: usize = 17;

/// `G`, `h` and `bᵀb` of a weighted least-squares problem, accumulated row by row.
#[derive(Clone, Copy, Debug)]
pub struct Normal {
    /// Terms (unknowns) of the system, at most [`MAX_TERMS`].
    pub m: usize,
    /// `G = AᵀA`, upper triangle (the first `m` rows and columns).
    pub g: [[f64; MAX_TERMS]; MAX_TERMS],
    /// `h = Aᵀb`.
    pub h: [f64; MAX_TERMS],
    /// `bᵀb`.
    pub bb: f64,
    /// Rows added.
    pub rows: usize,
}

impl Normal {
    /// An empty system of `m` terms.
    pub fn new(m: usize) -> Normal {
        Normal { m, g: [[0.0; MAX_TERMS]; MAX_TERMS], h: [0.0; MAX_TERMS], bb: 0.0, rows: 0 }
    }

    /// Adds row `a` with target `b` (upper triangle of `G` only; the solvers mirror it).
    pub fn add(&mut self, a: &[f64], b: f64) {
        for i in 0..self.m {
            let ai = a[i];
            if ai != 0.0 {
                for j in i..self.m {
                    self.g[i][j] += ai * a[j];
                }
                self.h[i] += ai * b;
            }
        }
        self.bb += b * b;
        self.rows += 1;
    }

    /// `self - other` (the rows of `self` not in `other`).
    pub fn minus(&self, other: &Normal) -> Normal {
        let mut out = *self;
        for i in 0..self.m {
            for j in i..self.m {
                out.g[i][j] -= other.g[i][j];
            }
            out.h[i] -= other.h[i];
        }
        out.bb -= other.bb;
        out.rows -= other.rows;
        out
    }

    /// Removes the terms of `mask` (bit per term) from the system: their coefficients become 0.
    pub fn drop_terms(&mut self, mask: u32) {
        for i in (0..self.m).filter(|i| mask & (1 << i) != 0) {
            for j in 0..self.m {
                self.g[i.min(j)][i.max(j)] = 0.0;
            }
            self.g[i][i] = 1.0;
            self.h[i] = 0.0;
        }
    }

    /// `rest = self - part` into `rest` (its first `m` terms), without copying the whole
    /// system: what a split search does for every candidate split.
    pub fn minus_into(&self, part: &Normal, rest: &mut Normal) {
        rest.m = self.m;
        for i in 0..self.m {
            for j in i..self.m {
                rest.g[i][j] = self.g[i][j] - part.g[i][j];
            }
            rest.h[i] = self.h[i] - part.h[i];
        }
        rest.bb = self.bb - part.bb;
        rest.rows = self.rows - part.rows;
    }

    /// `G + diag(ridge)` as a symmetric matrix read from the upper triangle (no copy).
    fn full<'a>(&'a self, ridge: &'a [f64]) -> Sym<'a> {
        Sym { g: &self.g, ridge }
    }

    /// Residual sum of squares of coefficients `c` (without the ridge term), at least 0.
    pub fn sse(&self, c: &[f64]) -> f64 {
        let g = self.full(&[0.0; MAX_TERMS]);
        let mut s = self.bb;
        for i in 0..self.m {
            s -= 2.0 * c[i] * self.h[i];
            let gc = g.row(i, self.m, c).fold(0.0, |a, x| a + x);
            s += c[i] * gc;
        }
        s.max(0.0)
    }

    /// Ridge-damped least squares: `(G + diag(ridge)) c = h`.
    pub fn least_squares(&self, ridge: &[f64]) -> Option<[f64; MAX_TERMS]> {
        let g = self.full(ridge);
        let idx: Vec<usize> = (0..self.m).collect();
        let s = solve_sub(&g, &self.h, &idx)?;
        let mut c = [0.0; MAX_TERMS];
        for (k, &i) in idx.iter().enumerate() {
            c[i] = s[k];
        }
        Some(c)
    }

    /// Non-negative least squares: `min |Ac - b|² + Σ ridge_i c_i²` subject to `c ≥ 0`
    /// (Lawson & Hanson, *Solving Least Squares Problems*, 1974, ch. 23, on normal equations).
    pub fn nnls(&self, ridge: &[f64]) -> [f64; MAX_TERMS] {
        self.nnls_from(ridge, &mut NnlsStart::default())
    }

    /// [`Normal::nnls`] started from `start` (a feasible point and its passive set, such as
    /// the solution of a nearby system: a split search's neighbouring candidate), which it
    /// leaves holding this solution. The active-set iteration from any feasible point reaches
    /// the same optimum (the objective is strictly convex), in fewer sub-solves when the
    /// passive set barely changes.
    pub fn nnls_from(&self, ridge: &[f64], start: &mut NnlsStart) -> [f64; MAX_TERMS] {
        let m = self.m;
        let g = self.full(ridge);
        let mut c = start.c;
        let mut passive = start.passive;
        for i in m..MAX_TERMS {
            (c[i], passive[i]) = (0.0, false);
        }
        let scale = (0..m).map(|i| g.at(i, i)).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
        let tol = 1e-12 * scale.max(self.h.iter().take(m).fold(0.0f64, |a, h| a.max(h.abs())));
        let mut idx = [0usize; MAX_TERMS];
        // a warm start first solves on its passive set, before any term enters
        let mut warm = passive[..m].iter().any(|&p| p);
        for _outer in 0..3 * m {
            if !warm {
                // gradient of the objective's negative half: w = h - G c
                let mut best = None;
                for i in 0..m {
                    if !passive[i] {
                        let w = self.h[i] - g.row(i, m, &c).sum::<f64>();
                        if w > tol && best.is_none_or(|(_, bw)| w > bw) {
                            best = Some((i, w));
                        }
                    }
                }
                let Some((enter, _)) = best else { break };
                passive[enter] = true;
            }
            warm = false;
            for _inner in 0..3 * m {
                let mut n = 0;
                for i in (0..m).filter(|&i| passive[i]) {
                    idx[n] = i;
                    n += 1;
                }
                let idx = &idx[..n];
                if n == 0 {
                    break;
                }
                let Some(s) = solve_sub(&g, &self.h, idx) else {
                    *start = NnlsStart::default();
                    return c;
                };
                if s[..n].iter().all(|&v| v > 0.0) {
                    for (k, &i) in idx.iter().enumerate() {
                        c[i] = s[k];
                    }
                    break;
                }
                // step from c towards s until the first passive coefficient reaches 0
                let mut alpha = 1.0;
                for (k, &i) in idx.iter().enumerate() {
                    if s[k] <= 0.0 {
                        let a = c[i] / (c[i] - s[k]);
                        if a < alpha {
                            alpha = a;
                        }
                    }
                }
                for (k, &i) in idx.iter().enumerate() {
                    c[i] += alpha * (s[k] - c[i]);
                    if c[i] <= 1e-15 * (1.0 + s[k].abs()) {
                        c[i] = 0.0;
                        passive[i] = false;
                    }
                }
            }
        }
        *start = NnlsStart { c, passive };
        c
    }
}

/// Where [`Normal::nnls_from`] starts: a feasible point (non-negative, zero outside its
/// passive set) and that set. The default is the cold start (nothing passive).
#[derive(Clone, Copy, Debug, Default)]
pub struct NnlsStart {
    c: [f64; MAX_TERMS],
    passive: [bool; MAX_TERMS],
}

/// A system's `G + diag(ridge)`, read from its upper triangle.
struct Sym<'a> {
    g: &'a [[f64; MAX_TERMS]; MAX_TERMS],
    ridge: &'a [f64],
}

impl Sym<'_> {
    #[inline]
    fn at(&self, i: usize, j: usize) -> f64 {
        let v = self.g[i.min(j)][i.max(j)];
        if i == j {
            v + self.ridge[i]
        } else {
            v
        }
    }

    /// `at(i, j) * c[j]` for `j` in `0..m`, in that order: the products a row's dot product
    /// sums, read from the upper triangle without choosing the index order per element (the
    /// solvers' innermost loop).
    #[inline]
    fn row<'c>(&'c self, i: usize, m: usize, c: &'c [f64]) -> impl Iterator<Item = f64> + 'c {
        let g = self.g;
        (0..i)
            .map(move |j| g[j][i] * c[j])
            .chain(std::iter::once((g[i][i] + self.ridge[i]) * c[i]))
            .chain((i + 1..m).map(move |j| g[i][j] * c[j]))
    }

    /// `at(idx[a], idx[b])` for `b <= a` of indices in increasing order (what the Cholesky
    /// factor reads): the upper triangle's element without choosing the order.
    #[inline]
    fn lower(&self, idx: &[usize], a: usize, b: usize) -> f64 {
        let v = self.g[idx[b]][idx[a]];
        if a == b {
            v + self.ridge[idx[a]]
        } else {
            v
        }
    }
}

/// Solves `g[idx][idx] s = h[idx]` by Cholesky (`s[k]` for `idx[k]`); `None` when not positive
/// definite. Small systems (the usual: a handful of terms) factor in a small buffer.
fn solve_sub(g: &Sym, h: &[f64; MAX_TERMS], idx: &[usize]) -> Option<[f64; MAX_TERMS]> {
    if idx.len() <= 8 {
        cholesky::<36>(g, h, idx)
    } else {
        cholesky::<{ MAX_TERMS * (MAX_TERMS + 1) / 2 }>(g, h, idx)
    }
}

/// [`solve_sub`] with the factor's lower triangle packed in `T` values (`T` ≥ n(n+1)/2).
fn cholesky<const T: usize>(g: &Sym, h: &[f64; MAX_TERMS], idx: &[usize]) -> Option<[f64; MAX_TERMS]> {
    let n = idx.len();
    debug_assert!(idx.windows(2).all(|w| w[0] < w[1]), "indices in increasing order");
    let mut l = [0.0f64; T];
    let at = |a: usize, k: usize| a * (a + 1) / 2 + k;
    for a in 0..n {
        for b in 0..=a {
            let mut s = g.lower(idx, a, b);
            for k in 0..b {
                s -= l[at(a, k)] * l[at(b, k)];
            }
            if a == b {
                // not positive definite, or NaN
                #[allow(clippy::neg_cmp_op_on_partial_ord)]
                if !(s > 1e-300) {
                    return None;
                }
                l[at(a, a)] = s.sqrt();
            } else {
                l[at(a, b)] = s / l[at(b, b)];
            }
        }
    }
    let mut y = [0.0; MAX_TERMS];
    for a in 0..n {
        let mut s = h[idx[a]];
        for k in 0..a {
            s -= l[at(a, k)] * y[k];
        }
        y[a] = s / l[at(a, a)];
    }
    for a in (0..n).rev() {
        let mut s = y[a];
        for k in a + 1..n {
            s -= l[at(k, a)] * y[k];
        }
        y[a] = s / l[at(a, a)];
    }
    y[..n].iter().all(|v| v.is_finite()).then_some(y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn system(rows: &[(Vec<f64>, f64)]) -> Normal {
        let mut n = Normal::new(rows[0].0.len());
        for (a, b) in rows {
            n.add(a, *b);
        }
        n
    }

    #[test]
    fn least_squares_recovers_a_line() {
        let rows: Vec<(Vec<f64>, f64)> = (0..10).map(|i| (vec![1.0, i as f64], 3.0 + 2.0 * i as f64)).collect();
        let n = system(&rows);
        let c = n.least_squares(&[0.0; MAX_TERMS]).unwrap();
        assert!((c[0] - 3.0).abs() < 1e-9 && (c[1] - 2.0).abs() < 1e-9, "{c:?}");
        assert!(n.sse(&c) < 1e-12);
        // prefix differences give the fit of the other rows
        let first = system(&rows[..4]);
        let rest = n.minus(&first);
        assert_eq!(rest.rows, 6);
        let c2 = rest.least_squares(&[0.0; MAX_TERMS]).unwrap();
        assert!((c2[1] - 2.0).abs() < 1e-9);
    }

    #[test]
    fn nnls_clamps_what_least_squares_makes_negative() {
        // b = 2·a1 - 0.5·a2 + noise-free; the best non-negative fit drops a2
        let rows: Vec<(Vec<f64>, f64)> =
            (1..12).map(|i| (vec![i as f64, (i * i) as f64 / 10.0], 2.0 * i as f64 - 0.05 * (i * i) as f64)).collect();
        let n = system(&rows);
        let c = n.nnls(&[0.0; MAX_TERMS]);
        assert!(c[0] > 0.0 && c[1] == 0.0, "{c:?}");
        // on data a non-negative model fits exactly, NNLS is exact
        let rows: Vec<(Vec<f64>, f64)> = (1..12).map(|i| (vec![1.0, i as f64, (i * i) as f64], 5.0 + 0.5 * (i * i) as f64)).collect();
        let c = system(&rows).nnls(&[0.0; MAX_TERMS]);
        assert!((c[0] - 5.0).abs() < 1e-6 && c[1].abs() < 1e-6 && (c[2] - 0.5).abs() < 1e-8, "{c:?}");
    }

    #[test]
    fn singular_systems_do_not_panic() {
        let rows: Vec<(Vec<f64>, f64)> = (0..3).map(|_| (vec![1.0, 1.0], 1.0)).collect();
        let n = system(&rows);
        assert!(n.least_squares(&[0.0; MAX_TERMS]).is_none());
        let c = n.least_squares(&[1e-6; MAX_TERMS]).unwrap();
        assert!((c[0] + c[1] - 1.0).abs() < 1e-3);
        let c = n.nnls(&[0.0; MAX_TERMS]);
        assert!((c[0] + c[1] - 1.0).abs() < 1e-9, "{c:?}");
    }

    proptest::proptest! {
        /// A split search's warm start: the solution of a system one row away (and of the
        /// system itself, and of an unrelated one) leads to the cold start's solution.
        #[test]
        fn warm_starts_reach_the_cold_solution(
            rows in proptest::collection::vec((proptest::collection::vec(0.0f64..4.0, 5), 0.0f64..50.0), 8..24),
            other in proptest::collection::vec((proptest::collection::vec(0.0f64..4.0, 5), -10.0f64..50.0), 8..12),
        ) {
            let ridge = [1e-7 * rows.len() as f64; MAX_TERMS];
            let all = system(&rows);
            let cold = all.nnls(&ridge);
            let objective = |n: &Normal, c: &[f64; MAX_TERMS]| n.sse(c) + (0..n.m).map(|i| ridge[i] * c[i] * c[i]).sum::<f64>();
            for start_from in [system(&rows[1..]), all, system(&other)] {
                let mut start = NnlsStart::default();
                start_from.nnls_from(&ridge, &mut start);
                let warm = all.nnls_from(&ridge, &mut start);
                proptest::prop_assert!(warm.iter().all(|&v| v >= 0.0));
                let (w, c) = (objective(&all, &warm), objective(&all, &cold));
                proptest::prop_assert!((w - c).abs() <= 1e-9 * (1.0 + c.abs()), "warm {warm:?} ({w}) cold {cold:?} ({c})");
            }
        }
    }
}
