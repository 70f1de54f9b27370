//! Cost models: a regression of each variant's time on the features; the decision is the
//! variant with the smallest predicted time.
//!
//! A classifier trained on "which variant won" throws away by how much it won, and between two
//! training inputs with different winners it can only guess where the crossover lies. A cost
//! model fits each variant's time and so places the crossover where the fitted curves cross,
//! and extrapolates it to inputs beyond the training range.
//!
//! Families ([`Family`]), each fitted per variant on the vectors where that variant was
//! measured:
//! * **additive** — `t = Σ c_m φ_m(x)` over the terms `1, x_j, x_j·x_l` (products only with at
//!   most [`QUADRATIC_MAX_FEATURES`] features) and `x_j / x_l` (with at most
//!   [`RATIO_MAX_FEATURES`], over positive divisors), with every `c_m ≥ 0` (non-negative least
//!   squares) and relative errors (`Σ ((t̂ − t)/t)²`): a latency plus per-element, per-byte,
//!   per-pair and per-thread costs, as a performance model is written (Artemis' time model,
//!   generalised from a forest to a parametric form). Non-negativity keeps the fit
//!   physically plausible (monotone in sizes), which is what makes it extrapolate;
//! * **linear** — `t = b + Σ w_j x_j` with signed coefficients, relative errors: a cost that
//!   falls as a feature grows;
//! * **log-linear** — `ln t = b + Σ w_j u_j`, `u_j = ln x_j` for size-like features (positive,
//!   spanning two decades, as [`super::scaling`] decides) else `x_j`, standardised: power laws
//!   `t ∝ n^a·k^b`, costs over many decades;
//! * **log-quadratic** — the same with products `u_j·u_l` (curvature in log-log space: a
//!   latency that stops mattering as sizes grow).
//!
//! Each family can be **piecewise** (`depth` ≥ 1): per variant a small regression tree whose
//! leaves hold the family's fit, split where a split more than halves the residual error
//! (a cache-size step, a categorical feature such as a data layout). Splits are searched over
//! every threshold of every feature from prefix sums of the rows' normal equations
//! ([`super::solve`]), one small solve per candidate.
//!
//! Compiled form ([`CostModel`]): the basis transform, one fixed-depth node array per variant
//! (leaves index coefficient rows) and the coefficients. Inference computes the `m ≤ 17` terms
//! once, walks each variant's tree (`depth` steps) and takes `m` multiply-adds per variant; on
//! the stack, no allocation. A variant never measured has no fit and is never chosen.

use super::scaling::{log_feature, LOG_RATIO};
use super::solve::{NnlsStart, Normal, MAX_TERMS};
use super::training_set::TrainingSet;
use super::tree::{fmt_number, walk, Node};
use crate::ctx::MAX_FEATURES;

/// Products of features are terms only up to this many features (`1 + p + p(p+1)/2` terms).
pub const QUADRATIC_MAX_FEATURES: usize = 4;
/// Ratios of features are terms of the additive family only up to this many features.
pub const RATIO_MAX_FEATURES: usize = 3;
/// A piecewise fit splits only where the split's residual error is below this fraction of the
/// unsplit fit's.
pub const SPLIT_GAIN: f64 = 0.5;
/// Fewest vectors on each side of a split.
pub const MIN_LEAF: usize = 3;
/// Deepest piecewise fit.
pub const MAX_PIECE_DEPTH: u8 = 3;
/// Ridge damping, relative to the rows of the (column-scaled) system.
const RIDGE_ADDITIVE: f64 = 1e-7;
const RIDGE_LOG: f64 = 1e-4;
pub(crate) const NONE: u32 = u32::MAX;

/// The regression family of a cost model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Family {
    /// `t = Σ c_m φ_m(x)` over latency, per-feature, product and ratio terms, every `c_m ≥ 0`,
    /// with relative errors.
    Additive,
    /// `t = b + Σ w_j x_j` with signed coefficients (relative errors): a cost that falls as a
    /// feature grows, which no non-negative sum can follow.
    Linear,
    /// `ln t = b + Σ w_j u_j` on standardised (size-like: logged) features: power laws.
    LogLinear,
    /// Log-linear with the products `u_j·u_l` (curvature in log-log space).
    LogQuadratic,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 4] = [Family::Additive, Family::Linear, Family::LogLinear, Family::LogQuadratic];

    /// Spelling in `OMPADAPT_MODEL` (`cost,additive`) and reports.
    pub fn name(self) -> &'static str {
        match self {
            Family::Additive => "additive",
            Family::Linear => "linear",
            Family::LogLinear => "loglinear",
            Family::LogQuadratic => "logquadratic",
        }
    }

    /// Parses [`Family::name`].
    pub fn parse(s: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name().eq_ignore_ascii_case(s))
    }

    fn log_space(self) -> bool {
        matches!(self, Family::LogLinear | Family::LogQuadratic)
    }
}

/// Which cost model to fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CostForm {
    /// The regression family of each fit.
    pub family: Family,
    /// Levels of piecewise splits (0: one fit per variant).
    pub depth: u8,
    /// First a separate fit per value of the categorical feature ([`categorical_feature`]).
    pub by_category: bool,
}

impl CostForm {
    /// A form without categories.
    pub const fn new(family: Family, depth: u8) -> CostForm {
        CostForm { family, depth, by_category: false }
    }

    /// The form for people, e.g. `cost model (loglinear, piecewise depth 2)`.
    pub fn describe(&self) -> String {
        let cat = if self.by_category { ", per category" } else { "" };
        if self.depth == 0 {
            format!("cost model ({}{cat})", self.family.name())
        } else {
            format!("cost model ({}{cat}, piecewise depth {})", self.family.name(), self.depth)
        }
    }
}

/// One term of a basis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Term {
    /// 1 (latency, intercept).
    One,
    /// Feature `j` (transformed, for log families).
    Lin(u8),
    /// `u_j · u_l`.
    Prod(u8, u8),
    /// `x_j / x_l` (additive family; work divided among `x_l` threads, teams or ranks).
    Ratio(u8, u8),
}

/// The feature transform shared by every variant's fit.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Basis {
    /// The family the terms are for.
    pub family: Family,
    /// Features used.
    pub p: usize,
    /// Bit `j`: feature `j` enters as `ln x_j` (log families only).
    pub log: u16,
    /// Standardisation of each (possibly logged) feature `u` as `(u - mean) * inv` (log
    /// families; identity otherwise): the means.
    pub mean: [f64; MAX_FEATURES],
    /// Standardisation: the inverse of each feature's standard deviation.
    pub inv: [f64; MAX_FEATURES],
    /// The terms, at most [`MAX_TERMS`].
    pub terms: Box<[Term]>,
}

impl Basis {
    fn fit(c: &TrainingSet, family: Family) -> Basis {
        let p = c.p;
        let mut b = Basis { family, p, log: 0, mean: [0.0; MAX_FEATURES], inv: [1.0; MAX_FEATURES], terms: Box::new([]) };
        let col = |j: usize| (0..c.n()).map(move |i| c.row(i)[j]);
        let range = |j: usize| col(j).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
        if family.log_space() {
            let n = c.n() as f64;
            for j in 0..p {
                let (lo, hi) = range(j);
                if lo > 0.0 && hi.is_finite() && hi >= LOG_RATIO * lo {
                    b.log |= 1 << j;
                }
                let u = |v: f64| if b.log & (1 << j) != 0 { log_feature(v) } else { v };
                let mean = col(j).map(u).sum::<f64>() / n;
                let var = col(j).map(|v| (u(v) - mean) * (u(v) - mean)).sum::<f64>() / n;
                b.mean[j] = mean;
                b.inv[j] = if var.sqrt() > 1e-300 && var.is_finite() { 1.0 / var.sqrt() } else { 1.0 };
            }
        }
        let varies: Vec<bool> = (0..p).map(|j| range(j).0 < range(j).1).collect();
        b.terms = Basis::term_list(family, p, &varies, |l| range(l).0 > 0.0).into();
        b
    }

    /// The terms of `family` over `p` features of which those `varies` flags vary over the
    /// training rows: a term of features that are all constant there is a multiple of another
    /// (`x_j` of the latency, `x_j·x_l` of `x_l`) and only costs solves — except `c / x_l`, kept
    /// once, with the first constant feature that is not 0 as the numerator (fixed work divided
    /// among `x_l` threads). `positive(l)`: feature `l` is positive on every row (a divisor).
    fn term_list(family: Family, p: usize, varies: &[bool], positive: impl Fn(usize) -> bool) -> Vec<Term> {
        let vary = || (0..p).filter(|&j| varies[j]);
        let mut terms = vec![Term::One];
        terms.extend(vary().map(|j| Term::Lin(j as u8)));
        if matches!(family, Family::Additive | Family::LogQuadratic) && p <= QUADRATIC_MAX_FEATURES {
            for j in vary() {
                for l in vary().filter(|&l| l >= j) {
                    terms.push(Term::Prod(j as u8, l as u8));
                }
            }
        }
        if family == Family::Additive && p <= RATIO_MAX_FEATURES {
            // only over features that are positive and vary (a divisor)
            let constant = (0..p).find(|&j| !varies[j] && positive(j));
            for l in vary().filter(|&l| positive(l)) {
                for j in vary().filter(|&j| j != l).chain(constant) {
                    terms.push(Term::Ratio(j as u8, l as u8));
                }
            }
        }
        terms.truncate(MAX_TERMS);
        terms
    }

    /// Number of terms.
    pub fn terms(&self) -> usize {
        self.terms.len()
    }

    /// The terms of `x`.
    #[inline]
    pub fn expand(&self, x: &[f64; MAX_FEATURES], out: &mut [f64; MAX_TERMS]) {
        let p = self.p;
        let mut u = [0.0; MAX_FEATURES];
        if self.family.log_space() {
            for j in 0..p {
                let v = if self.log & (1 << j) != 0 { log_feature(x[j]) } else { x[j] };
                u[j] = (v - self.mean[j]) * self.inv[j];
            }
        } else {
            u[..p].copy_from_slice(&x[..p]);
        }
        const M: usize = MAX_FEATURES - 1;
        for (o, t) in out.iter_mut().zip(self.terms.iter()) {
            *o = match *t {
                Term::One => 1.0,
                Term::Lin(j) => u[j as usize & M],
                Term::Prod(j, l) => u[j as usize & M] * u[l as usize & M],
                Term::Ratio(j, l) => {
                    // a divisor outside the training range's sign (0 threads) costs "a lot",
                    // never NaN (a zero coefficient times infinity would be)
                    let r = u[j as usize & M] / u[l as usize & M];
                    if r.is_finite() {
                        r
                    } else {
                        f64::MAX
                    }
                }
            };
        }
    }

    fn term_name(&self, t: usize, feature: &dyn Fn(usize) -> String) -> String {
        let f = |j: u8| if self.family.log_space() { format!("z{j}") } else { feature(j as usize) };
        match self.terms[t] {
            Term::One => String::new(),
            Term::Lin(j) => f(j),
            Term::Prod(j, l) if j == l => format!("{}²", f(j)),
            Term::Prod(j, l) => format!("{}·{}", f(j), f(l)),
            Term::Ratio(j, l) => format!("{}/{}", f(j), f(l)),
        }
    }
}

/// A compiled cost model.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CostModel {
    /// The feature transform and terms shared by every variant's fit.
    pub basis: Basis,
    /// Every variant's regression tree (leaves: `class` = coefficient row).
    pub nodes: Box<[Node]>,
    /// Root of each variant's tree; `u32::MAX` for a variant without a fit (never chosen).
    pub roots: Box<[u32]>,
    /// Steps to walk (the deepest tree's depth).
    pub depth: u32,
    /// Coefficient rows, `basis.terms()` each.
    pub coef: Box<[f64]>,
    /// The form fitted.
    pub form: CostForm,
}

impl CostModel {
    /// Predicted time of each variant (log families: its logarithm), `None` without a fit.
    pub fn scores(&self, x: &[f64; MAX_FEATURES]) -> Vec<Option<f64>> {
        let mut phi = [0.0; MAX_TERMS];
        self.basis.expand(x, &mut phi);
        self.roots.iter().map(|&r| (r != NONE).then(|| self.score(r, x, &phi))).collect()
    }

    /// Predicted time of each variant (`None` without a fit).
    pub fn times(&self, x: &[f64; MAX_FEATURES]) -> Vec<Option<f64>> {
        let log = self.basis.family.log_space();
        self.scores(x).into_iter().map(|s| s.map(|s| if log { s.exp() } else { s })).collect()
    }

    #[inline]
    fn score(&self, root: u32, x: &[f64; MAX_FEATURES], phi: &[f64; MAX_TERMS]) -> f64 {
        let m = self.basis.terms();
        let leaf = walk(&self.nodes, root, self.depth, x) as usize;
        let c = &self.coef[leaf * m..(leaf + 1) * m];
        let mut s = 0.0;
        for t in 0..m {
            s += c[t] * phi[t];
        }
        s
    }

    /// The variant with the smallest predicted time (ties and NaN: the lower variant).
    #[inline]
    pub fn predict(&self, x: &[f64; MAX_FEATURES]) -> usize {
        let mut phi = [0.0; MAX_TERMS];
        self.basis.expand(x, &mut phi);
        let mut best = 0;
        let mut best_s = f64::INFINITY;
        for (v, &r) in self.roots.iter().enumerate() {
            if r != NONE {
                let s = self.score(r, x, &phi);
                if s < best_s {
                    best_s = s;
                    best = v;
                }
            }
        }
        best
    }

    /// One formula per variant (and per piece).
    pub fn render(&self, feature: &dyn Fn(usize) -> String, class: &dyn Fn(usize) -> String, indent: usize) -> String {
        let pad = "  ".repeat(indent);
        let b = &self.basis;
        let mut out = String::new();
        if b.family.log_space() {
            for j in 0..b.p {
                let raw = if b.log & (1 << j) != 0 { format!("ln({})", feature(j)) } else { feature(j) };
                out.push_str(&format!("{pad}z{j} = ({raw} - {}) * {}\n", fmt_number(b.mean[j]), fmt_number(b.inv[j])));
            }
        }
        let lhs = |v: usize| if b.family.log_space() { format!("ln time({})", class(v)) } else { format!("time({})", class(v)) };
        let m = b.terms();
        let formula = |leaf: usize| {
            let c = &self.coef[leaf * m..(leaf + 1) * m];
            let terms: Vec<String> = (0..m)
                .filter(|&t| c[t] != 0.0 || t == 0)
                .map(|t| {
                    let name = b.term_name(t, feature);
                    if name.is_empty() {
                        fmt_number(c[t])
                    } else {
                        format!("{}·{}", fmt_number(c[t]), name)
                    }
                })
                .collect();
            terms.join(" + ")
        };
        for (v, &root) in self.roots.iter().enumerate() {
            if root == NONE {
                out.push_str(&format!("{pad}{}: never measured, never chosen\n", class(v)));
                continue;
            }
            fn go(
                nodes: &[Node],
                i: usize,
                depth: usize,
                head: &str,
                feature: &dyn Fn(usize) -> String,
                formula: &dyn Fn(usize) -> String,
                out: &mut String,
            ) {
                let n = &nodes[i];
                let pad = "  ".repeat(depth);
                if n.kids == [i as u32; 2] {
                    out.push_str(&format!("{pad}{head} = {}\n", formula(n.class as usize)));
                } else {
                    out.push_str(&format!("{pad}if {} < {}\n", feature(n.feature as usize), fmt_number(n.threshold)));
                    go(nodes, n.kids[0] as usize, depth + 1, head, feature, formula, out);
                    out.push_str(&format!("{pad}else\n"));
                    go(nodes, n.kids[1] as usize, depth + 1, head, feature, formula, out);
                }
            }
            go(&self.nodes, root as usize, indent, &lhs(v), feature, &formula, &mut out);
        }
        out.push_str(&format!("{pad}-> the variant with the smallest predicted time\n"));
        out
    }
}

/// One variant's regression rows: terms (column-scaled for the additive family) and target.
#[derive(Clone)]
struct Rows<'a> {
    basis: &'a Basis,
    c: &'a TrainingSet,
    /// Vector index of each row.
    idx: Vec<usize>,
    a: Vec<[f64; MAX_TERMS]>,
    b: Vec<f64>,
    /// Column scale (coefficients are divided by it at the end).
    scale: [f64; MAX_TERMS],
    m: usize,
    family: Family,
    /// Terms left out of every fit (bit per term): within one category, the terms of the
    /// categorical feature are constant and would only soak up noise.
    drop: u32,
}

impl Rows<'_> {
    /// Mask of the terms that involve feature `j`.
    fn basis_terms_of(&self, j: usize) -> u32 {
        let j = j as u8;
        let mut mask = 0;
        for (t, term) in self.basis.terms.iter().enumerate() {
            let uses = match *term {
                Term::One => false,
                Term::Lin(a) => a == j,
                Term::Prod(a, b) | Term::Ratio(a, b) => a == j || b == j,
            };
            if uses {
                mask |= 1 << t;
            }
        }
        mask
    }

    /// Mask of the product and ratio terms.
    fn nonlinear_terms(&self) -> u32 {
        let mut mask = 0;
        for (t, term) in self.basis.terms.iter().enumerate() {
            if matches!(term, Term::Prod(..) | Term::Ratio(..)) {
                mask |= 1 << t;
            }
        }
        mask
    }

    fn normal(&self, rows: &[usize]) -> Normal {
        let mut n = Normal::new(self.m);
        for &r in rows {
            n.add(&self.a[r], self.b[r]);
        }
        n
    }

    fn solve(&self, n: &Normal) -> Option<([f64; MAX_TERMS], f64)> {
        self.solve_from(n, &mut NnlsStart::default())
    }

    /// [`Rows::solve`], the additive family's NNLS started from `start` (see
    /// [`Normal::nnls_from`]).
    fn solve_from(&self, n: &Normal, start: &mut NnlsStart) -> Option<([f64; MAX_TERMS], f64)> {
        let dropped;
        let n = if self.drop == 0 {
            n
        } else {
            let mut d = *n;
            d.drop_terms(self.drop);
            dropped = d;
            &dropped
        };
        let rows = n.rows.max(1) as f64;
        let c = if self.family == Family::Additive {
            n.nnls_from(&[RIDGE_ADDITIVE * rows; MAX_TERMS], start)
        } else if self.family == Family::Linear {
            n.least_squares(&[RIDGE_ADDITIVE * rows; MAX_TERMS])?
        } else {
            let mut ridge = [RIDGE_LOG * rows; MAX_TERMS];
            ridge[0] = 1e-12 * rows;
            n.least_squares(&ridge)?
        };
        Some((c, n.sse(&c)))
    }

    /// [`Rows::solve`], then (additive family) backward elimination of active terms while the
    /// Bayesian information criterion `n·ln(SSE/n) + k·ln n` improves: noisy times then get a
    /// sparse formula (a latency and the costs that matter) instead of every term fitted to
    /// the noise. Used for the leaves of the final fit, not for the split search.
    /// `full` is [`Rows::solve`]'s result on `n` (the caller has it already).
    fn solve_sparse(&self, n: &Normal, full: ([f64; MAX_TERMS], f64)) -> ([f64; MAX_TERMS], f64) {
        let (mut c, mut sse) = full;
        if self.family != Family::Additive || n.rows < 3 {
            return (c, sse);
        }
        let rows = n.rows as f64;
        let bic = |sse: f64, k: usize| rows * (sse / rows + 1e-12).ln() + k as f64 * rows.ln();
        let mut drop = self.drop | (0..self.m).filter(|&t| c[t] == 0.0).fold(0u32, |m, t| m | 1 << t);
        loop {
            let active: Vec<usize> = (0..self.m).filter(|&t| drop & (1 << t) == 0).collect();
            if active.len() <= 1 {
                return (c, sse);
            }
            let mut best: Option<(f64, usize, [f64; MAX_TERMS], f64)> = None;
            for &t in &active {
                let trial = Rows { drop: drop | 1 << t, ..self.clone_shallow() };
                let Some((ct, st)) = trial.solve(n) else { continue };
                let b = bic(st, active.len() - 1);
                if best.as_ref().is_none_or(|x| b < x.0) {
                    best = Some((b, t, ct, st));
                }
            }
            match best {
                Some((b, t, ct, st)) if b < bic(sse, active.len()) => {
                    drop |= 1 << t;
                    c = ct;
                    sse = st;
                }
                _ => return (c, sse),
            }
        }
    }

    /// The rows' settings without the rows (for trial solves on a ready [`Normal`]).
    fn clone_shallow(&self) -> Rows<'_> {
        Rows {
            basis: self.basis,
            c: self.c,
            idx: Vec::new(),
            a: Vec::new(),
            b: Vec::new(),
            scale: self.scale,
            m: self.m,
            family: self.family,
            drop: self.drop,
        }
    }
}

/// A piece tree's child that could not be fitted.
const FAILED: usize = usize::MAX;

enum PNode {
    Leaf([f64; MAX_TERMS]),
    /// `unsplit`: the node's own fit, for a piecewise split (a shallower fit stops there);
    /// `None` for a category's interval split, which every depth keeps.
    Split {
        feature: usize,
        threshold: f64,
        left: usize,
        right: usize,
        unsplit: Option<[f64; MAX_TERMS]>,
    },
}

fn grow(rows: &Rows, set: &[usize], depth: u8, out: &mut Vec<PNode>) -> Option<usize> {
    let all = rows.normal(set);
    let full = rows.solve(&all)?;
    let sse = full.1;
    let me = out.len();
    out.push(PNode::Leaf(rows.solve_sparse(&all, full).0));
    if depth == 0 || set.len() < 2 * MIN_LEAF || sse <= 0.0 {
        return Some(me);
    }
    let mut best: Option<(f64, usize, f64)> = None;
    let mut sorted = set.to_vec();
    for j in 0..rows.c.p {
        let x = |r: usize| rows.c.row(rows.idx[r])[j];
        sorted.sort_by(|&a, &b| x(a).total_cmp(&x(b)));
        let mut left = Normal::new(rows.m);
        let mut right = Normal::new(rows.m);
        // neighbouring candidates differ by one row: each side starts from the last solution
        let (mut warm_left, mut warm_right) = (NnlsStart::default(), NnlsStart::default());
        for i in 0..sorted.len() - 1 {
            left.add(&rows.a[sorted[i]], rows.b[sorted[i]]);
            let (lo, hi) = (x(sorted[i]), x(sorted[i + 1]));
            if i + 1 < MIN_LEAF || sorted.len() - i - 1 < MIN_LEAF || lo >= hi {
                continue;
            }
            all.minus_into(&left, &mut right);
            let (Some((_, sl)), Some((_, sr))) = (rows.solve_from(&left, &mut warm_left), rows.solve_from(&right, &mut warm_right)) else {
                continue;
            };
            let s = sl + sr;
            if best.is_none_or(|b| s < b.0) {
                let t = lo / 2.0 + hi / 2.0;
                best = Some((s, j, if lo < t && t <= hi { t } else { hi }));
            }
        }
    }
    let Some((s, feature, threshold)) = best else { return Some(me) };
    if s >= SPLIT_GAIN * sse {
        return Some(me);
    }
    let (l, r): (Vec<usize>, Vec<usize>) = set.iter().partition(|&&r| rows.c.row(rows.idx[r])[feature] < threshold);
    // a side that cannot be fitted fails this depth and deeper ones, not the shallower fits
    let left = grow(rows, &l, depth - 1, out).unwrap_or(FAILED);
    let right = grow(rows, &r, depth - 1, out).unwrap_or(FAILED);
    let PNode::Leaf(unsplit) = out[me] else { return None };
    out[me] = PNode::Split { feature, threshold, left, right, unsplit: Some(unsplit) };
    Some(me)
}

/// A category with fewer vectors than this fits only `1` and linear terms.
pub const SMALL_GROUP: usize = 6;

/// Most values a categorical feature may take.
pub const MAX_CATEGORIES: usize = 8;

/// Largest difference between a categorical feature's values (codes, not quantities).
pub const CATEGORY_SPAN: f64 = 16.0;

/// The first feature that looks categorical: integer codes (2 to [`MAX_CATEGORIES`] distinct
/// values within [`CATEGORY_SPAN`] of each other), each on at least two vectors on average (a
/// layout, an algorithm, a precision). Cross-validation decides whether a per-category fit
/// helps; a small set of sizes or thread counts spans more than codes do.
pub fn categorical_feature(c: &TrainingSet) -> Option<usize> {
    (0..c.p).find(|&j| {
        let mut vals: Vec<f64> = (0..c.n()).map(|i| c.row(i)[j]).collect();
        if vals.iter().any(|v| v.fract() != 0.0 || !v.is_finite()) {
            return false;
        }
        vals.sort_by(f64::total_cmp);
        vals.dedup();
        let span = vals.last().unwrap_or(&0.0) - vals.first().unwrap_or(&0.0);
        (2..=MAX_CATEGORIES).contains(&vals.len()) && span <= CATEGORY_SPAN && vals.len() * 2 <= c.n()
    })
}

/// A multiway split on categorical feature `j`: per value, its own piecewise fit (a value seen
/// on one vector only: the fit of all of `set`, scaled to pass through it; a value never seen:
/// the fit of all of `set`), joined by a balanced chain of binary splits.
fn grow_by(rows: &Rows, set: &[usize], j: usize, depth: u8, out: &mut Vec<PNode>) -> Option<usize> {
    let x = |r: usize| rows.c.row(rows.idx[r])[j];
    let mut values: Vec<f64> = set.iter().map(|&r| x(r)).collect();
    values.sort_by(f64::total_cmp);
    values.dedup();
    // the shared fit pools every category without the category's own terms (a layout's number
    // is no quantity to extrapolate in)
    let within = Rows { drop: rows.basis_terms_of(j), ..rows.clone() };
    let shared = grow(&within, set, 0, out)?;
    let mut kids = Vec::with_capacity(values.len());
    let PNode::Leaf(base) = out[shared] else { return None };
    for &v in &values {
        let group: Vec<usize> = set.iter().copied().filter(|&r| x(r) == v).collect();
        if group.len() >= 2 {
            // a small group fits a latency and linear costs only: with a handful of noisy
            // times a product term would be fitted to the noise and extrapolate it
            let small = Rows { drop: within.drop | within.nonlinear_terms(), ..within.clone() };
            let rows = if group.len() < SMALL_GROUP { &small } else { &within };
            kids.push(grow(rows, &group, depth, out)?);
            continue;
        }
        // one vector of this category: the shared fit, moved to pass through it (scaled for
        // the additive family, shifted in log space)
        let r = group[0];
        let pred: f64 = (0..rows.m).map(|t| base[t] * rows.a[r][t]).sum();
        let mut c = base;
        if !rows.family.log_space() {
            if pred > 0.0 && pred.is_finite() {
                c[..rows.m].iter_mut().for_each(|v| *v *= rows.b[r] / pred);
            }
        } else {
            c[0] += rows.b[r] - pred;
        }
        out.push(PNode::Leaf(c));
        kids.push(out.len() - 1);
    }
    // intervals (start, leaf): each seen value owns [v - 0.5, v + 0.5); values never seen
    // (between, below, above) use the shared fit rather than a neighbour's
    let mut intervals: Vec<(f64, usize)> = vec![(f64::NEG_INFINITY, shared)];
    for (&v, &kid) in values.iter().zip(&kids) {
        let lo = v - 0.5;
        match intervals.last_mut() {
            Some(last) if last.0 >= lo => last.1 = kid,
            _ => intervals.push((lo, kid)),
        }
        intervals.push((v + 0.5, shared));
    }
    intervals.dedup_by(|b, a| a.1 == b.1);
    fn join(iv: &[(f64, usize)], j: usize, out: &mut Vec<PNode>) -> usize {
        if iv.len() == 1 {
            return iv[0].1;
        }
        let mid = iv.len() / 2;
        let left = join(&iv[..mid], j, out);
        let right = join(&iv[mid..], j, out);
        out.push(PNode::Split { feature: j, threshold: iv[mid].0, left, right, unsplit: None });
        out.len() - 1
    }
    Some(join(&intervals, j, out))
}

impl<'a> Rows<'a> {
    /// The regression rows of variant `v`: one per vector where it was measured and its basis
    /// terms are finite; relative errors (the row divided by the time) outside log space, and
    /// the columns scaled to at most 1 there.
    fn of_variant(basis: &'a Basis, c: &'a TrainingSet, family: Family, v: usize) -> Rows<'a> {
        let m = basis.terms();
        let mut rows = Rows { basis, c, idx: Vec::new(), a: Vec::new(), b: Vec::new(), scale: [1.0; MAX_TERMS], m, family, drop: 0 };
        let mut phi = [0.0; MAX_TERMS];
        for i in 0..c.n() {
            let t = c.times(i)[v];
            if !(t > 0.0 && t.is_finite()) {
                continue;
            }
            basis.expand(&c.padded(i), &mut phi);
            if phi[..m].iter().any(|x| !x.is_finite()) {
                continue;
            }
            rows.idx.push(i);
            if !family.log_space() {
                let mut a = phi;
                a[..m].iter_mut().for_each(|x| *x /= t);
                rows.a.push(a);
                rows.b.push(1.0);
            } else {
                rows.a.push(phi);
                rows.b.push(t.ln());
            }
        }
        if !family.log_space() && !rows.idx.is_empty() {
            rows.scale_columns();
        }
        rows
    }

    fn scale_columns(&mut self) {
        for t in 0..self.m {
            let s = self.a.iter().map(|a| a[t].abs()).fold(0.0, f64::max);
            self.scale[t] = if s > 0.0 && s.is_finite() { s } else { 1.0 };
        }
        for a in self.a.iter_mut() {
            for (x, s) in a[..self.m].iter_mut().zip(&self.scale) {
                *x /= s;
            }
        }
    }
}

/// Appends the piece tree `pn` (rooted at `i`) to `nodes` and its leaves' coefficients to
/// `coef`, down to `levels` piecewise splits (the fit grown to that depth: growth is greedy, so
/// a deeper tree cut there is exactly the shallower one); returns its root's node id and its
/// depth (None: a piece down there could not be fitted).
fn emit(pn: &[PNode], i: usize, levels: u8, rows: &Rows, nodes: &mut Vec<Node>, coef: &mut Vec<f64>) -> Option<(u32, u32)> {
    let m = rows.m;
    let me = nodes.len() as u32;
    let leaf = match pn.get(i)? {
        PNode::Leaf(c) => Some(c),
        PNode::Split { unsplit: Some(c), .. } if levels == 0 => Some(c),
        PNode::Split { .. } => None,
    };
    match (leaf, &pn[i]) {
        (Some(c), _) => {
            let row = (coef.len() / m) as u32;
            // an additive term contributing under 1e-5 of any training time (the column scale
            // is the term's largest share) is rounding noise: drop it
            let keep = |t: usize| rows.family != Family::Additive || t == 0 || c[t] >= 1e-5;
            coef.extend((0..m).map(|t| if keep(t) { c[t] / rows.scale[t] } else { 0.0 }));
            nodes.push(Node { threshold: 0.0, kids: [me, me], feature: 0, class: row });
            Some((me, 0))
        }
        (None, PNode::Split { feature, threshold, left, right, unsplit }) => {
            // a category's split is no level
            let below = if unsplit.is_some() { levels.saturating_sub(1) } else { levels };
            nodes.push(Node { threshold: *threshold, kids: [0, 0], feature: *feature as u32, class: 0 });
            let (l, dl) = emit(pn, *left, below, rows, nodes, coef)?;
            let (r, dr) = emit(pn, *right, below, rows, nodes, coef)?;
            nodes[me as usize].kids = [l, r];
            Some((me, 1 + dl.max(dr)))
        }
        (None, PNode::Leaf(_)) => unreachable!("a leaf is emitted as one"),
    }
}

/// Signed coefficients can fit small times with a negative latency: a formula that predicts
/// no time (or less) for a measured vector is no cost model.
fn check_positive(model: &CostModel, c: &TrainingSet) -> Result<(), String> {
    for i in 0..c.n() {
        if model.scores(&c.padded(i)).iter().any(|s| s.is_some_and(|s| !(s > 0.0))) {
            return Err("the linear fit predicts a non-positive time on a measured vector".to_owned());
        }
    }
    Ok(())
}

/// Fits a cost model of `form` on `c`'s times. Fails when no variant has a usable fit, or when
/// `form.by_category` and no feature is categorical.
pub fn fit(c: &TrainingSet, form: CostForm) -> Result<CostModel, String> {
    fit_depths(c, form, &[form.depth]).pop().unwrap_or_else(|| Err("no depth asked".to_owned()))
}

/// [`fit`] of `form` at each of `depths` (its own depth ignored), growing each variant's piece
/// tree once, to the deepest: what cross-validating the piecewise depths of one family costs
/// is one fit, not one per depth.
pub fn fit_depths(c: &TrainingSet, form: CostForm, depths: &[u8]) -> Vec<Result<CostModel, String>> {
    let category = if form.by_category { categorical_feature(c).ok_or("no categorical feature".to_owned()).map(Some) } else { Ok(None) };
    let category = match category {
        Ok(j) => j,
        Err(e) => return depths.iter().map(|_| Err(e.clone())).collect(),
    };
    let basis = Basis::fit(c, form.family);
    let deepest = depths.iter().copied().max().unwrap_or(0).min(MAX_PIECE_DEPTH);
    let grown: Vec<(Rows, Vec<PNode>, Option<usize>)> = (0..c.k)
        .map(|v| {
            let rows = Rows::of_variant(&basis, c, form.family, v);
            let set: Vec<usize> = (0..rows.idx.len()).collect();
            let mut pn = Vec::new();
            let top = match (rows.idx.is_empty(), category) {
                (true, _) => None,
                (false, Some(j)) => grow_by(&rows, &set, j, deepest, &mut pn),
                (false, None) => grow(&rows, &set, deepest, &mut pn),
            };
            (rows, pn, top)
        })
        .collect();
    depths.iter().map(|&d| compile(c, &basis, &grown, CostForm { depth: d, ..form })).collect()
}

/// The cost model of `form` from every variant's grown piece tree, cut at `form.depth`.
fn compile(c: &TrainingSet, basis: &Basis, grown: &[(Rows, Vec<PNode>, Option<usize>)], form: CostForm) -> Result<CostModel, String> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut roots = Vec::with_capacity(c.k);
    let mut coef: Vec<f64> = Vec::new();
    let mut depth = 0u32;
    let levels = form.depth.min(MAX_PIECE_DEPTH);
    for (rows, pn, top) in grown {
        let Some(top) = *top else {
            roots.push(NONE);
            continue;
        };
        // node ids of this variant follow the earlier variants'
        let (n0, c0) = (nodes.len(), coef.len());
        match emit(pn, top, levels, rows, &mut nodes, &mut coef) {
            Some((root, d)) => {
                roots.push(root);
                depth = depth.max(d);
            }
            None => {
                nodes.truncate(n0);
                coef.truncate(c0);
                roots.push(NONE);
            }
        }
    }
    if roots.iter().all(|&r| r == NONE) {
        return Err("no variant's times could be fitted".to_owned());
    }
    if coef.iter().any(|v| !v.is_finite()) {
        return Err("the cost regression diverged".to_owned());
    }
    let model = CostModel { basis: basis.clone(), nodes: nodes.into(), roots: roots.into(), depth, coef: coef.into(), form };
    if form.family == Family::Linear {
        check_positive(&model, c)?;
    }
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pad(r: &[f64]) -> [f64; MAX_FEATURES] {
        let mut x = [0.0; MAX_FEATURES];
        x[..r.len()].copy_from_slice(r);
        x
    }

    /// Two variants `100 + n` and `1000 + 0.1·n` cross at n = 1000; trained only on inputs
    /// far from it, the additive model still places it exactly.
    #[test]
    fn additive_places_an_unseen_crossover() {
        let ns = [10.0, 20.0, 50.0, 100.0, 1e4, 2e4, 5e4, 1e5];
        let rows: Vec<Vec<f64>> = ns.iter().map(|&n| vec![n]).collect();
        let times: Vec<Vec<f64>> = ns.iter().map(|&n| vec![100.0 + n, 1000.0 + 0.1 * n]).collect();
        let c = TrainingSet::new(&rows, &times, 2).unwrap();
        let m = fit(&c, CostForm::new(Family::Additive, 0)).unwrap();
        assert_eq!(m.predict(&pad(&[950.0])), 0);
        assert_eq!(m.predict(&pad(&[1050.0])), 1);
        let s = m.scores(&pad(&[1000.0]));
        assert!((s[0].unwrap() - 1100.0).abs() < 1e-3 && (s[1].unwrap() - 1100.0).abs() < 1e-3, "{s:?}");
        let text = m.render(&|_| "n".to_owned(), &|v| ["cpu", "gpu"][v].to_owned(), 0);
        assert!(text.contains("time(gpu) = 999.99") && text.contains(" + 0.1·n\n") && !text.contains("n²"), "{text}");
    }

    #[test]
    fn loglinear_fits_power_laws() {
        let rows: Vec<Vec<f64>> = (1..20).map(|i| vec![(i * i * 100) as f64, 10f64.powi(i % 4)]).collect();
        let times: Vec<Vec<f64>> = rows.iter().map(|r| vec![3.0 * r[0].powf(1.5), 50.0 * r[0] * r[1]]).collect();
        let c = TrainingSet::new(&rows, &times, 2).unwrap();
        let m = fit(&c, CostForm::new(Family::LogLinear, 0)).unwrap();
        for (r, t) in rows.iter().zip(&times) {
            let s = m.scores(&pad(r));
            assert!((s[0].unwrap() - t[0].ln()).abs() < 1e-3, "{r:?}");
        }
        // n^1.5·3 = 50·n·k  <=>  sqrt(n) = 50k/3
        assert_eq!(m.predict(&pad(&[(50.0 / 3.0f64).powi(2) * 0.8, 1.0])), 0);
        assert_eq!(m.predict(&pad(&[(50.0 / 3.0f64).powi(2) * 1.2, 1.0])), 1);
    }

    /// A step at n = 5000 in one variant: piecewise depth 1 finds it, the single fit cannot.
    #[test]
    fn piecewise_finds_a_step() {
        let ns: Vec<f64> = (1..30).map(|i| (i * 350) as f64).collect();
        let rows: Vec<Vec<f64>> = ns.iter().map(|&n| vec![n]).collect();
        let cpu = |n: f64| if n > 5000.0 { 3.0 * n } else { n };
        let times: Vec<Vec<f64>> = ns.iter().map(|&n| vec![cpu(n), 2000.0 + 1.5 * n]).collect();
        let c = TrainingSet::new(&rows, &times, 2).unwrap();
        let m = fit(&c, CostForm::new(Family::Additive, 1)).unwrap();
        assert_eq!(m.depth, 1);
        for n in [1000.0, 3900.0, 4800.0, 5600.0, 9000.0, 20000.0] {
            let want = if cpu(n) < 2000.0 + 1.5 * n { 0 } else { 1 };
            assert_eq!(m.predict(&pad(&[n])), want, "n={n}");
        }
        let text = m.render(&|_| "n".to_owned(), &|v| format!("v{v}"), 0);
        assert!(text.contains("if n < "), "{text}");
    }

    #[test]
    fn unmeasured_variant_is_never_chosen() {
        let nan = f64::NAN;
        let rows = vec![vec![1.0], vec![2.0], vec![3.0]];
        let times = vec![vec![5.0, nan], vec![6.0, nan], vec![7.0, nan]];
        let c = TrainingSet::new(&rows, &times, 2).unwrap();
        for family in Family::ALL {
            let m = fit(&c, CostForm::new(family, 0)).unwrap();
            assert_eq!(m.roots[1], u32::MAX);
            assert_eq!(m.predict(&pad(&[100.0])), 0);
        }
    }

    /// Per category: each layout gets its own fit; a layout seen once is the shared fit scaled
    /// through it; a layout never seen (between or beyond the seen ones) is the shared fit.
    #[test]
    fn per_category_fits() {
        // variant 0: 100 + f[c]·n, variant 1: 5000 + 0.5·n
        let f = [0.2, 5.0, 1.0, 0.1, 0.3];
        let mut rows = Vec::new();
        for c in [0usize, 1, 3] {
            for n in [100.0, 1000.0, 10000.0] {
                rows.push(vec![n, c as f64]);
            }
        }
        rows.push(vec![2000.0, 4.0]); // layout 4: one vector
        let times: Vec<Vec<f64>> = rows.iter().map(|r| vec![100.0 + f[r[1] as usize] * r[0], 5000.0 + 0.5 * r[0]]).collect();
        let c = TrainingSet::new(&rows, &times, 2).unwrap();
        assert_eq!(categorical_feature(&c), Some(1));
        let m = fit(&c, CostForm { family: Family::Additive, depth: 0, by_category: true }).unwrap();
        for (layout, n) in [(0, 50_000.0), (1, 2000.0), (3, 60_000.0), (0, 20_000.0)] {
            let want = if 100.0 + f[layout] * n < 5000.0 + 0.5 * n { 0 } else { 1 };
            assert_eq!(m.predict(&pad(&[n, layout as f64])), want, "layout {layout}, n {n}");
        }
        // layout 4 (seen once, at n = 2000): scaled shared fit passes through its time there
        let t4 = m.times(&pad(&[2000.0, 4.0]))[0].unwrap();
        assert!((t4 / (100.0 + 0.3 * 2000.0) - 1.0).abs() < 1e-6, "{t4}");
        // layout 2 and 7 (never seen) use the shared fit, not a neighbour's
        let unseen = m.times(&pad(&[3000.0, 2.0]))[0].unwrap();
        for layout in [7.0, -1.0] {
            assert_eq!(m.times(&pad(&[3000.0, layout]))[0].unwrap(), unseen, "layout {layout}");
        }
        assert_ne!(m.times(&pad(&[3000.0, 3.0]))[0].unwrap(), unseen);
        assert!(fit(
            &TrainingSet::new(&rows[..3], &times[..3], 2).unwrap(),
            CostForm { by_category: true, ..CostForm::new(Family::Additive, 0) }
        )
        .is_err());
    }

    /// Two piecewise steps on one size axis, a second feature that varies and a constant one.
    fn stepped() -> TrainingSet {
        let rows: Vec<Vec<f64>> = (0..24).map(|i| vec![1000.0 * 1.3f64.powi(i), (i % 4 + 1) as f64, 8.0]).collect();
        let times: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| {
                let step = if r[0] < 5e3 {
                    1.0
                } else if r[0] < 4e4 {
                    3.0
                } else {
                    9.0
                };
                vec![100.0 + step * r[0], 2000.0 + 2.0 * r[0] / r[1], 500.0 + 1.5 * r[0] + 300.0 * r[1]]
            })
            .collect();
        TrainingSet::new(&rows, &times, 3).unwrap()
    }

    /// Growing once to the deepest level and cutting the tree gives exactly the fit grown to
    /// each depth on its own (what cross-validation shares between the piecewise candidates).
    #[test]
    fn one_growth_fits_every_depth_exactly() {
        let c = stepped();
        for family in [Family::Additive, Family::Linear, Family::LogLinear] {
            let shared = fit_depths(&c, CostForm::new(family, 2), &[0, 1, 2]);
            for (d, m) in (0u8..=2).zip(shared) {
                let alone = fit(&c, CostForm::new(family, d));
                assert_eq!(m.ok(), alone.ok(), "{family:?} depth {d}");
            }
        }
    }

    /// A feature constant over the training vectors brings no term (its terms are multiples of
    /// others) except `c / x_l`, once; the fit decides as the fit without that column.
    #[test]
    fn constant_features_bring_no_terms() {
        let c = stepped();
        let b = Basis::fit(&c, Family::Additive);
        let uses = |j: u8| {
            b.terms.iter().filter(|t| matches!(t, Term::Lin(a) if *a == j) || matches!(t, Term::Prod(a, l) if *a == j || *l == j)).count()
        };
        assert_eq!(uses(2), 0, "{:?}", b.terms);
        assert_eq!(b.terms.iter().filter(|t| matches!(t, Term::Ratio(2, _))).count(), 2, "8 / n and 8 / x1: {:?}", b.terms);
        assert!(uses(0) > 0 && uses(1) > 0);
        let two: Vec<Vec<f64>> = (0..c.n()).map(|i| c.row(i)[..2].to_vec()).collect();
        let times: Vec<Vec<f64>> = (0..c.n()).map(|i| c.times(i).to_vec()).collect();
        let without = TrainingSet::new(&two, &times, 3).unwrap();
        let (m, m2) = (fit(&c, CostForm::new(Family::LogLinear, 1)).unwrap(), fit(&without, CostForm::new(Family::LogLinear, 1)).unwrap());
        for i in 0..c.n() {
            assert_eq!(m.predict(&c.padded(i)), m2.predict(&without.padded(i)), "vector {i}");
        }
    }
}
