//! Models: training with linfa-trees, and compilation into flat node arrays for inference.
//!
//! linfa's `DecisionTree` is a tree of boxed nodes with a recursive predictor over ndarray
//! rows; the runtime instead walks a flat `[Node]` over the context's fixed `[f64; 16]`
//! features, which allocates nothing and touches a few cache lines. [`FlatTree::compile`]
//! reproduces linfa's own prediction rule exactly (`x[feature] < split` goes left, see
//! `make_prediction` in linfa-trees 0.8), which the tests check row by row.
//!
//! Forests (`rfc`) are bagged linfa trees: each tree is fitted on a bootstrap resample of the
//! rows (deterministic xorshift stream seeded from the model name, so two runs on the same data
//! build the same forest) and the forest predicts by majority vote, ties going to the lower
//! variant index. linfa 0.8 has no random-forest crate of its own that is released alongside
//! linfa-trees; bagging trees keeps us on the one well-kept tree learner.

use linfa::prelude::*;
use linfa_trees::{DecisionTree, TreeNode};
use ndarray::{Array1, Array2};

use crate::ctx::MAX_FEATURES;
use crate::spec::{ModelType, MAX_VARIANTS};

/// Default max depth of a decision tree (`model_type(dtree)` without a parameter).
pub const DEFAULT_TREE_DEPTH: usize = 2;
/// Default number of trees of a forest.
pub const DEFAULT_FOREST_TREES: usize = 10;
/// Default max depth of a forest's trees.
pub const DEFAULT_FOREST_DEPTH: usize = 2;
const MAX_DEPTH: usize = 32;
const MAX_TREES: usize = 1000;

/// Which model to train, with its hyper-parameters resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelChoice {
    /// One decision tree.
    Tree { max_depth: usize },
    /// A bagged forest of decision trees.
    Forest { trees: usize, max_depth: usize },
}

impl ModelChoice {
    /// Resolves `model_type(kind, p1, p2)`; a parameter ≤ 0 (the plugin passes -1 when it is
    /// absent) takes the default.
    pub fn resolve(kind: ModelType, p1: i64, p2: i64) -> ModelChoice {
        let pick = |p: i64, default: usize, max: usize| {
            if p > 0 {
                (p as usize).min(max)
            } else {
                default
            }
        };
        match kind {
            ModelType::DecisionTree => ModelChoice::Tree { max_depth: pick(p1, DEFAULT_TREE_DEPTH, MAX_DEPTH) },
            ModelType::RandomForest => ModelChoice::Forest {
                trees: pick(p1, DEFAULT_FOREST_TREES, MAX_TREES),
                max_depth: pick(p2, DEFAULT_FOREST_DEPTH, MAX_DEPTH),
            },
        }
    }

    /// Parses `OMPADAPT_MODEL`: `dtree[,depth]` or `rfc[,trees[,depth]]`.
    pub fn parse_override(s: &str) -> Result<ModelChoice, String> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        let num = |i: usize| -> Result<i64, String> {
            match parts.get(i) {
                None => Ok(-1),
                Some(p) => match p.parse::<i64>() {
                    Ok(v) if v > 0 => Ok(v),
                    _ => Err(format!("'{p}' is not a positive integer")),
                },
            }
        };
        let kind = match parts[0] {
            "dtree" => ModelType::DecisionTree,
            "rfc" => ModelType::RandomForest,
            k => return Err(format!("unknown model '{k}' (expected dtree[,depth] or rfc[,trees[,depth]])")),
        };
        let max_params = if kind == ModelType::DecisionTree { 2 } else { 3 };
        if parts.len() > max_params {
            return Err("too many parameters".to_owned());
        }
        Ok(ModelChoice::resolve(kind, num(1)?, num(2)?))
    }

    /// Human-readable description, e.g. `decision tree (max depth 2)`.
    pub fn describe(&self) -> String {
        match self {
            ModelChoice::Tree { max_depth } => format!("decision tree (max depth {max_depth})"),
            ModelChoice::Forest { trees, max_depth } => {
                format!("random forest ({trees} trees, max depth {max_depth}, bagged)")
            }
        }
    }
}

/// Marks a leaf in [`Node::feature`].
pub const LEAF: u32 = u32::MAX;

/// One node of a compiled tree.
///
/// Internal node: `x[feature] < threshold` → node `a`, else node `b`. Leaf (`feature == LEAF`):
/// predicts variant `a`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    pub threshold: f64,
    pub feature: u32,
    pub a: u32,
    pub b: u32,
}

/// A decision tree as a flat array of nodes, root first (pre-order).
#[derive(Clone, Debug, PartialEq)]
pub struct FlatTree {
    pub nodes: Box<[Node]>,
}

impl FlatTree {
    /// A tree that always predicts `class`.
    pub fn constant(class: usize) -> FlatTree {
        FlatTree { nodes: vec![Node { threshold: 0.0, feature: LEAF, a: class as u32, b: 0 }].into() }
    }

    /// Compiles a fitted linfa tree.
    pub fn compile(tree: &DecisionTree<f64, usize>) -> FlatTree {
        fn walk(n: &TreeNode<f64, usize>, out: &mut Vec<Node>) -> u32 {
            let me = out.len();
            if let Some(class) = n.prediction() {
                out.push(Node { threshold: 0.0, feature: LEAF, a: class as u32, b: 0 });
                return me as u32;
            }
            let (feature, threshold, _) = n.split();
            out.push(Node { threshold, feature: feature as u32, a: 0, b: 0 });
            let kids = n.children();
            // linfa guarantees an internal node has both children (a missing one makes it a leaf).
            let left = walk(kids[0].as_deref().expect("internal node without left child"), out);
            let right = walk(kids[1].as_deref().expect("internal node without right child"), out);
            out[me].a = left;
            out[me].b = right;
            me as u32
        }
        let mut nodes = Vec::new();
        walk(tree.root_node(), &mut nodes);
        FlatTree { nodes: nodes.into() }
    }

    /// Predicted variant for `x` (zero-padded features).
    #[inline]
    pub fn predict(&self, x: &[f64; MAX_FEATURES]) -> usize {
        let mut i = 0usize;
        loop {
            let n = &self.nodes[i];
            if n.feature == LEAF {
                return n.a as usize;
            }
            // `feature < MAX_FEATURES` by construction (training rows have at most 16 columns);
            // the mask only spares the bounds check.
            i = if x[n.feature as usize % MAX_FEATURES] < n.threshold { n.a } else { n.b } as usize;
        }
    }

    /// Indented text: `if N < 30000.5` / `-> cpu` / `else` / `-> gpu`.
    pub fn render(&self, feature: &dyn Fn(usize) -> String, class: &dyn Fn(usize) -> String, indent: usize) -> String {
        fn go(t: &FlatTree, i: usize, depth: usize, f: &dyn Fn(usize) -> String, c: &dyn Fn(usize) -> String, out: &mut String) {
            let n = &t.nodes[i];
            let pad = "  ".repeat(depth);
            if n.feature == LEAF {
                out.push_str(&format!("{pad}-> {}\n", c(n.a as usize)));
            } else {
                out.push_str(&format!("{pad}if {} < {}\n", f(n.feature as usize), fmt_threshold(n.threshold)));
                go(t, n.a as usize, depth + 1, f, c, out);
                out.push_str(&format!("{pad}else\n"));
                go(t, n.b as usize, depth + 1, f, c, out);
            }
        }
        let mut out = String::new();
        go(self, 0, indent, feature, class, &mut out);
        out
    }
}

fn fmt_threshold(x: f64) -> String {
    if x.fract() == 0.0 || x.abs() >= 1e15 {
        format!("{x}")
    } else {
        let s = format!("{x:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// A trained model, ready for allocation-free inference.
#[derive(Clone, Debug, PartialEq)]
pub enum Compiled {
    Tree(FlatTree),
    Forest(Vec<FlatTree>),
}

impl Compiled {
    /// Predicted variant for `x`.
    #[inline]
    pub fn predict(&self, x: &[f64; MAX_FEATURES]) -> usize {
        match self {
            Compiled::Tree(t) => t.predict(x),
            Compiled::Forest(trees) => {
                let mut votes = [0u16; MAX_VARIANTS];
                for t in trees {
                    votes[t.predict(x) % MAX_VARIANTS] += 1;
                }
                // first maximum: ties go to the lower variant index
                let mut best = 0;
                for (i, &v) in votes.iter().enumerate() {
                    if v > votes[best] {
                        best = i;
                    }
                }
                best
            }
        }
    }

    /// Indented text of the model.
    pub fn render(&self, feature: &dyn Fn(usize) -> String, class: &dyn Fn(usize) -> String, indent: usize) -> String {
        match self {
            Compiled::Tree(t) => t.render(feature, class, indent),
            Compiled::Forest(trees) => {
                let mut out = String::new();
                for (i, t) in trees.iter().enumerate() {
                    out.push_str(&format!("{}tree {} of {}:\n", "  ".repeat(indent), i + 1, trees.len()));
                    out.push_str(&t.render(feature, class, indent + 1));
                }
                out
            }
        }
    }
}

/// Fits one linfa decision tree of depth `max_depth` on `rows` → `labels`.
pub fn fit_tree(records: &Array2<f64>, labels: &Array1<usize>, max_depth: usize) -> Result<DecisionTree<f64, usize>, String> {
    let ds = Dataset::new(records.clone(), labels.clone());
    DecisionTree::params()
        .max_depth(Some(max_depth.max(1)))
        .fit(&ds)
        .map_err(|e| e.to_string())
}

/// Builds the `rows × ncols` record matrix (rows shorter than `ncols` are zero-padded).
pub fn records(rows: &[Vec<f64>]) -> Array2<f64> {
    let ncols = rows.iter().map(Vec::len).max().unwrap_or(0).clamp(1, MAX_FEATURES);
    Array2::from_shape_fn((rows.len(), ncols), |(r, c)| rows[r].get(c).copied().unwrap_or(0.0))
}

/// Trains `choice` on feature rows and their labels (the best variant of each row).
/// `seed` makes forests reproducible.
pub fn train(choice: ModelChoice, rows: &[Vec<f64>], labels: &[usize], seed: u64) -> Result<Compiled, String> {
    if rows.is_empty() || rows.len() != labels.len() {
        return Err(format!("{} rows for {} labels", rows.len(), labels.len()));
    }
    let x = records(rows);
    let y = Array1::from(labels.to_vec());
    match choice {
        ModelChoice::Tree { max_depth } => Ok(Compiled::Tree(FlatTree::compile(&fit_tree(&x, &y, max_depth)?))),
        ModelChoice::Forest { trees, max_depth } => {
            let mut rng = XorShift::new(seed);
            let n = rows.len();
            let mut out = Vec::with_capacity(trees);
            for _ in 0..trees {
                let pick: Vec<usize> = (0..n).map(|_| rng.below(n)).collect();
                let xb = x.select(ndarray::Axis(0), &pick);
                let yb = y.select(ndarray::Axis(0), &pick);
                out.push(FlatTree::compile(&fit_tree(&xb, &yb, max_depth)?));
            }
            Ok(Compiled::Forest(out))
        }
    }
}

/// xorshift64*: a tiny deterministic generator for bootstrap resampling (no `rand` dependency).
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> Self {
        XorShift(seed | 1)
    }
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// FNV-1a of a string (forest seeds).
pub fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pad(r: &[f64]) -> [f64; MAX_FEATURES] {
        let mut x = [0.0; MAX_FEATURES];
        x[..r.len()].copy_from_slice(r);
        x
    }

    #[test]
    fn resolve_defaults() {
        assert_eq!(ModelChoice::resolve(ModelType::DecisionTree, -1, -1), ModelChoice::Tree { max_depth: 2 });
        assert_eq!(ModelChoice::resolve(ModelType::DecisionTree, 4, -1), ModelChoice::Tree { max_depth: 4 });
        assert_eq!(
            ModelChoice::resolve(ModelType::RandomForest, -1, -1),
            ModelChoice::Forest { trees: 10, max_depth: 2 }
        );
        assert_eq!(ModelChoice::parse_override("rfc,3").unwrap(), ModelChoice::Forest { trees: 3, max_depth: 2 });
        assert!(ModelChoice::parse_override("dtree,1,2").is_err());
        assert!(ModelChoice::parse_override("dtree,0").is_err());
    }

    /// The compiled tree predicts exactly what linfa predicts, on the training rows and on a
    /// grid around them (thresholds included).
    #[test]
    fn compiled_tree_matches_linfa() {
        let mut rows = Vec::new();
        let mut labels = Vec::new();
        for a in 0..12 {
            for b in 0..5 {
                let (fa, fb) = (a as f64 * 1000.0, b as f64 * 0.5);
                rows.push(vec![fa, fb]);
                labels.push(if fa < 4500.0 { 0 } else if fb < 1.2 { 1 } else { 2 });
            }
        }
        let x = records(&rows);
        let y = Array1::from(labels.clone());
        for depth in [1, 2, 3, 5] {
            let tree = fit_tree(&x, &y, depth).unwrap();
            let flat = FlatTree::compile(&tree);
            let linfa_pred: Array1<usize> = tree.predict(&x);
            for (r, row) in rows.iter().enumerate() {
                assert_eq!(flat.predict(&pad(row)), linfa_pred[r], "depth {depth} row {row:?}");
            }
            let mut grid = Vec::new();
            for a in -5..130 {
                for b in -2..12 {
                    grid.push(vec![a as f64 * 100.0, b as f64 * 0.25]);
                }
            }
            let g = records(&grid);
            let gp: Array1<usize> = tree.predict(&g);
            for (r, row) in grid.iter().enumerate() {
                assert_eq!(flat.predict(&pad(row)), gp[r]);
            }
            if depth >= 2 {
                // deep enough to fit the labels exactly
                for (r, row) in rows.iter().enumerate() {
                    assert_eq!(flat.predict(&pad(row)), labels[r]);
                }
            }
        }
    }

    #[test]
    fn render_tree() {
        let rows = vec![vec![1000.0], vec![20000.0], vec![40000.0], vec![90000.0]];
        let c = train(ModelChoice::Tree { max_depth: 2 }, &rows, &[0, 0, 1, 1], 1).unwrap();
        let names = ["cpu", "gpu"];
        let text = c.render(&|_| "N".to_owned(), &|i| names[i].to_owned(), 0);
        assert_eq!(text, "if N < 30000\n  -> cpu\nelse\n  -> gpu\n");
        let rows = vec![vec![1.0], vec![2.0]];
        let c = train(ModelChoice::Tree { max_depth: 2 }, &rows, &[1, 1], 1).unwrap();
        assert_eq!(c, Compiled::Tree(FlatTree::constant(1)));
    }

    #[test]
    fn forest_votes() {
        let rows: Vec<Vec<f64>> = (0..20).map(|i| vec![i as f64]).collect();
        let labels: Vec<usize> = (0..20).map(|i| (i >= 10) as usize).collect();
        let f = train(ModelChoice::Forest { trees: 15, max_depth: 2 }, &rows, &labels, fnv1a("m")).unwrap();
        let Compiled::Forest(trees) = &f else { panic!("not a forest") };
        assert_eq!(trees.len(), 15);
        assert_eq!(f.predict(&pad(&[0.0])), 0);
        assert_eq!(f.predict(&pad(&[19.0])), 1);
        // deterministic for a given seed
        let g = train(ModelChoice::Forest { trees: 15, max_depth: 2 }, &rows, &labels, fnv1a("m")).unwrap();
        assert_eq!(f, g);
    }
}
