//! A trained model as the store keeps it: its parameters, written once and loaded back as they
//! are by a later run, a frozen run and `ompadapt show`/`train`/`evaluate`, so that every one of
//! them decides with the model the run trained (a refit could fail or come out different: a
//! linear cost model refitted on its labels alone predicts nothing).
//!
//! The parameters are [`Compiled`]'s own fields (serde). A stored file is input like any other:
//! before a loaded model may decide, [`check`] proves that inference cannot index out of bounds,
//! loop or answer a variant the region lacks, whatever the file says.

use super::cost_model::CostModel;
use super::tree::Node;
use super::{Compiled, FlatForest, FlatTree, Linear, Patched};
use crate::ctx::MAX_FEATURES;
use crate::spec::MAX_VARIANTS;

/// Deepest tree walk a stored model may ask for (trained trees stay far below).
const MAX_WALK: u32 = 64;

/// `m` as stored parameters, if it reads back equal (JSON has no NaN or infinity: a model that
/// holds one is stored as its training set only and refitted when loaded, as older files are).
pub fn parameters(m: &Compiled) -> Option<Compiled> {
    let v = serde_json::to_value(m).ok()?;
    let back: Compiled = serde_json::from_value(v).ok()?;
    (back == *m).then_some(back)
}

/// Whether `m` may decide among `nv` variants: every index in range, every tree a tree.
pub fn check(m: &Compiled, nv: usize) -> Result<(), String> {
    if nv == 0 || nv > MAX_VARIANTS {
        return Err(format!("{nv} variants"));
    }
    match m {
        Compiled::Tree(t) => check_tree(t, nv),
        Compiled::Forest(f) => check_forest(f, nv),
        Compiled::Logistic(l) => check_linear(l, nv),
        Compiled::Cost(c) => check_cost(c, nv),
        Compiled::Patched(p) => check_patched(p, nv),
    }
}

fn check_tree(t: &FlatTree, nv: usize) -> Result<(), String> {
    check_nodes(&t.nodes, t.depth, &|class| (class as usize) < nv)?;
    check_root(&t.nodes, 0)
}

fn check_forest(f: &FlatForest, nv: usize) -> Result<(), String> {
    if f.roots.is_empty() || f.nclasses == 0 || f.nclasses as usize > nv {
        return Err(format!("a forest of {} trees voting among {} variants", f.roots.len(), f.nclasses));
    }
    check_nodes(&f.nodes, f.depth, &|class| class < f.nclasses)?;
    f.roots.iter().try_for_each(|&r| check_root(&f.nodes, r))
}

fn check_linear(l: &Linear, nv: usize) -> Result<(), String> {
    let (p, k) = (l.scaler.p, l.classes.len());
    if p == 0 || p > MAX_FEATURES || k == 0 || l.w.len() != k * p || l.b.len() != k {
        return Err(format!("a logistic regression of {k} classes over {p} features with {} weights", l.w.len()));
    }
    match l.classes.iter().find(|&&c| c as usize >= nv) {
        Some(c) => Err(format!("class {c} of {nv} variants")),
        None => Ok(()),
    }
}

fn check_cost(c: &CostModel, nv: usize) -> Result<(), String> {
    let m = c.basis.terms();
    if c.basis.p > MAX_FEATURES || m == 0 || m > super::solve::MAX_TERMS || c.coef.len() % m != 0 || c.roots.len() > nv {
        return Err(format!("a cost model of {} variants, {m} terms and {} coefficients", c.roots.len(), c.coef.len()));
    }
    let rows = (c.coef.len() / m) as u32;
    check_nodes(&c.nodes, c.depth, &|row| row < rows)?;
    c.roots.iter().filter(|&&r| r != super::cost_model::NONE).try_for_each(|&r| check_root(&c.nodes, r))
}

fn check_patched(p: &Patched, nv: usize) -> Result<(), String> {
    if matches!(p.model, Compiled::Patched(_)) {
        return Err("exceptions of exceptions".into());
    }
    if let Some(e) = p.exceptions.iter().find(|e| e.class as usize >= nv || e.len > MAX_FEATURES) {
        return Err(format!("an exception answering variant {} of {nv}", e.class));
    }
    check(&p.model, nv)
}

/// Every node a leaf (children: itself) or a split whose children come after it (so every walk
/// and every rendering ends), every leaf's answer `ok`, the walk no deeper than [`MAX_WALK`].
fn check_nodes(nodes: &[Node], depth: u32, ok: &dyn Fn(u32) -> bool) -> Result<(), String> {
    if nodes.is_empty() || depth > MAX_WALK {
        return Err(format!("{} nodes walked {depth} deep", nodes.len()));
    }
    for (i, n) in nodes.iter().enumerate() {
        let leaf = n.kids == [i as u32; 2];
        if leaf && !ok(n.class) {
            return Err(format!("leaf {i} answers {}, out of range", n.class));
        }
        if !leaf && n.kids.iter().any(|&k| k as usize <= i || k as usize >= nodes.len()) {
            return Err(format!("node {i} has children {:?} of {} nodes", n.kids, nodes.len()));
        }
    }
    Ok(())
}

fn check_root(nodes: &[Node], root: u32) -> Result<(), String> {
    if (root as usize) < nodes.len() {
        Ok(())
    } else {
        Err(format!("root {root} of {} nodes", nodes.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{train, ModelChoice};

    fn trained(choice: ModelChoice) -> Compiled {
        let rows: Vec<Vec<f64>> = (1..=6).map(|i| vec![i as f64 * 1000.0, (i % 3) as f64]).collect();
        train(choice, &rows, &[0, 0, 1, 1, 2, 0], 7).unwrap()
    }

    #[test]
    fn every_learner_round_trips_and_checks() {
        for choice in [
            ModelChoice::Tree { max_depth: 3 },
            ModelChoice::Tree { max_depth: 1 },
            ModelChoice::Forest { trees: 5, max_depth: 3 },
            ModelChoice::LogisticRegression,
        ] {
            let m = trained(choice);
            let stored = parameters(&m).unwrap_or_else(|| panic!("{choice:?} does not round-trip"));
            assert_eq!(stored, m);
            check(&stored, 3).unwrap();
            assert!(check(&stored, 2).is_err(), "{choice:?} answers variant 2: two variants are too few");
        }
    }

    #[test]
    fn a_file_cannot_make_inference_loop_or_index_out_of_bounds() {
        let Compiled::Tree(t) = trained(ModelChoice::Tree { max_depth: 3 }) else { panic!("a tree") };
        let mut cyclic = t.clone();
        cyclic.nodes[0].kids = [0, 1];
        assert!(check(&Compiled::Tree(cyclic), 3).is_err());
        let mut dangling = t.clone();
        dangling.nodes[0].kids[1] = 99;
        assert!(check(&Compiled::Tree(dangling), 3).is_err());
        let deep = FlatTree { depth: 1_000_000, ..t };
        assert!(check(&Compiled::Tree(deep), 3).is_err());
        let rows: Vec<Vec<f64>> = (1..=4).map(|i| vec![i as f64]).collect();
        let Compiled::Logistic(mut l) = train(ModelChoice::LogisticRegression, &rows, &[0, 0, 1, 1], 7).unwrap() else {
            panic!("a separable set needs no exceptions")
        };
        l.w = l.w[1..].into();
        assert!(check(&Compiled::Logistic(l), 3).is_err());
    }

    #[test]
    fn non_finite_parameters_are_not_stored() {
        let mut t = FlatTree::constant(0);
        t.nodes = vec![Node { threshold: f64::NAN, kids: [1, 2], feature: 0, class: 0 }, t.nodes[0], t.nodes[0]].into();
        t.nodes[1].kids = [1, 1];
        t.nodes[2].kids = [2, 2];
        assert_eq!(parameters(&Compiled::Tree(t)), None);
    }
}
