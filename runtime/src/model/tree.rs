//! Compiled decision trees: a flat node array walked a fixed number of steps.
//!
//! A leaf points to itself on both sides, so inference runs exactly `depth` steps of "load node,
//! compare, pick child" with no test for "is this a leaf" and no data-dependent branch (the
//! child is selected by indexing with the comparison result). The features are the context's
//! fixed `[f64; 16]`, so inference allocates nothing.

use super::cart::BNode;
use crate::ctx::MAX_FEATURES;

const _: () = assert!(MAX_FEATURES.is_power_of_two(), "feature index masking needs a power of two");

/// One node. Internal: `x[feature] < threshold` → `kids[0]`, else `kids[1]`. Leaf: both kids are
/// the node itself; `class` is the prediction.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Node {
    /// Of a split: the value compared with (0 in a leaf).
    pub threshold: f64,
    /// Node indices of the children: below the threshold, then at or above it (or NaN).
    pub kids: [u32; 2],
    /// Of a split: index of the feature tested (0 in a leaf).
    pub feature: u32,
    /// Of a leaf: the prediction, a variant (in a cost model, a coefficient row); 0 in a split.
    pub class: u32,
}

impl Node {
    fn leaf(at: u32, class: u32) -> Node {
        Node { threshold: 0.0, kids: [at, at], feature: 0, class }
    }
}

/// Whether node `i` of `nodes` is a leaf.
#[inline]
pub fn is_leaf(nodes: &[Node], i: usize) -> bool {
    nodes[i].kids == [i as u32; 2]
}

/// Walks `depth` steps from node `root`; the class reached. A NaN feature goes right, as in
/// training (hence the negated comparison).
#[inline(always)]
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub fn walk(nodes: &[Node], root: u32, depth: u32, x: &[f64; MAX_FEATURES]) -> u32 {
    let mut i = root as usize;
    for _ in 0..depth {
        let n = &nodes[i];
        let right = !(x[n.feature as usize & (MAX_FEATURES - 1)] < n.threshold);
        i = n.kids[right as usize] as usize;
    }
    nodes[i].class
}

/// Appends the grown tree `grown` (root at index 0) to `out`; returns (root index, depth).
pub fn append(grown: &[BNode], out: &mut Vec<Node>) -> (u32, u32) {
    fn go(g: &[BNode], i: usize, out: &mut Vec<Node>) -> (u32, u32) {
        let me = out.len() as u32;
        match g[i] {
            BNode::Leaf { class } => {
                out.push(Node::leaf(me, class as u32));
                (me, 0)
            }
            BNode::Split { feature, threshold, left, right } => {
                out.push(Node { threshold, kids: [0, 0], feature: feature as u32, class: 0 });
                let (l, dl) = go(g, left as usize, out);
                let (r, dr) = go(g, right as usize, out);
                out[me as usize].kids = [l, r];
                (me, 1 + dl.max(dr))
            }
        }
    }
    go(grown, 0, out)
}

/// A decision tree as a flat array of nodes, root first.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FlatTree {
    /// The nodes, root first.
    pub nodes: Box<[Node]>,
    /// Longest root-to-leaf path (splits).
    pub depth: u32,
}

impl FlatTree {
    /// A tree that always predicts `class`.
    pub fn constant(class: usize) -> FlatTree {
        FlatTree { nodes: vec![Node::leaf(0, class as u32)].into(), depth: 0 }
    }

    /// Compiles a grown tree.
    pub fn from_grown(grown: &[BNode]) -> FlatTree {
        let mut nodes = Vec::with_capacity(grown.len());
        let (_, depth) = append(grown, &mut nodes);
        FlatTree { nodes: nodes.into(), depth }
    }

    /// Predicted variant for `x` (zero-padded features).
    #[inline]
    pub fn predict(&self, x: &[f64; MAX_FEATURES]) -> usize {
        walk(&self.nodes, 0, self.depth, x) as usize
    }

    /// Indented text: `if N < 30000.5` / `-> cpu` / `else` / `-> gpu`.
    pub fn render(&self, feature: &dyn Fn(usize) -> String, class: &dyn Fn(usize) -> String, indent: usize) -> String {
        render_at(&self.nodes, 0, feature, class, indent)
    }
}

/// Renders the subtree of `nodes` rooted at `root`.
pub fn render_at(nodes: &[Node], root: u32, feature: &dyn Fn(usize) -> String, class: &dyn Fn(usize) -> String, indent: usize) -> String {
    fn go(nodes: &[Node], i: usize, depth: usize, f: &dyn Fn(usize) -> String, c: &dyn Fn(usize) -> String, out: &mut String) {
        let n = &nodes[i];
        let pad = "  ".repeat(depth);
        if is_leaf(nodes, i) {
            out.push_str(&format!("{pad}-> {}\n", c(n.class as usize)));
        } else {
            out.push_str(&format!("{pad}if {} < {}\n", f(n.feature as usize), fmt_number(n.threshold)));
            go(nodes, n.kids[0] as usize, depth + 1, f, c, out);
            out.push_str(&format!("{pad}else\n"));
            go(nodes, n.kids[1] as usize, depth + 1, f, c, out);
        }
    }
    let mut out = String::new();
    go(nodes, root as usize, indent, feature, class, &mut out);
    out
}

/// A number for humans: integers as such, tiny ones with 7 significant digits, others with up
/// to 6 decimals.
pub fn fmt_number(x: f64) -> String {
    if x.fract() == 0.0 || x.abs() >= 1e15 || !x.is_finite() {
        format!("{x}")
    } else if x.abs() < 1e-4 {
        // 7 significant digits, trailing zeros of the mantissa dropped
        let s = format!("{x:.6e}");
        match s.split_once('e') {
            Some((m, e)) if m.contains('.') => format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.')),
            _ => s,
        }
    } else {
        let s = format!("{x:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::fmt_number;

    #[test]
    fn numbers_for_humans() {
        assert_eq!(fmt_number(30000.0), "30000");
        assert_eq!(fmt_number(0.188988123), "0.188988");
        assert_eq!(fmt_number(5.181071183932893e-6), "5.181071e-6");
        assert_eq!(fmt_number(2e-7), "2e-7");
        assert_eq!(fmt_number(-3.5e-9), "-3.5e-9");
    }
}
