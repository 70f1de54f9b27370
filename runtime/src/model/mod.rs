//! Models: training, and compilation into flat, allocation-free forms for inference.
//!
//! | model | `model_type` / override | learner | compiled form |
//! |---|---|---|---|
//! | automatic choice | no `model_type`, `auto` | [`select`]: cross-validated regret over the others | the chosen one's |
//! | cost model | `cost[,family[,depth]]` (environment) | [`cost_model`]: per-variant regression (NNLS / least squares, piecewise) | [`CostModel`]: terms, per-variant walk and dot product |
//! | decision tree | `dtree[,depth]` | [`cart`]: CART, exact on small sets, regret-weighted rows | [`FlatTree`]: node array, fixed-step walk |
//! | random forest | `rfc[,trees[,depth]]` | [`forest`]: bootstrap + feature subsets over `cart` | [`FlatForest`]: one node array, vote |
//! | logistic regression | `logistic` (environment only) | linfa-logistic on [`scaling`]-ed features | [`Linear`]: weight matrix |
//!
//! The runtime trains on per-variant times ([`TrainingSet`]: [`train_costs`]); label-only callers use
//! [`train`]. Both fit the model and then check it on every distinct training vector: the ones
//! it mispredicts become [`patch`] exceptions, so a trained model always reproduces the fastest
//! variant of every feature vector it was trained on (up to [`patch::MAX_EXCEPTIONS`]
//! corrections). What each learner guarantees on its own is in its module and tested in
//! `runtime/tests/models_exact.rs`; decision quality on unseen inputs in the `ompadapt-evaluate`
//! crate's `evaluate/tests/decision_quality.rs`.
//!
//! [`Compiled::predict`] takes the context's zero-padded `[f64; 16]` features and allocates
//! nothing; it is the trained path's only model cost.

pub mod cart;
mod choice;
pub mod cost_model;
pub mod data;
pub mod forest;
pub mod logistic;
pub mod patch;
pub mod payoff;
pub mod rng;
pub mod scaling;
pub mod select;
pub mod solve;
pub mod stored;
pub mod training_set;
pub mod tree;

pub use choice::{ModelChoice, DEFAULT_FOREST_DEPTH, DEFAULT_FOREST_TREES, DEFAULT_TREE_DEPTH, MAX_DEPTH, MAX_TREES};
pub use cost_model::{CostForm, CostModel, Family};
pub use data::Table;
pub use forest::FlatForest;
pub use logistic::Linear;
pub use patch::{Exception, Patched, MAX_EXCEPTIONS};
pub use rng::fnv1a;
pub use select::Estimate;
pub use training_set::TrainingSet;
pub use tree::{FlatTree, Node};

use crate::ctx::MAX_FEATURES;

/// A trained model, ready for allocation-free inference.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Compiled {
    /// One decision tree (also the constant fallback: a single leaf).
    Tree(FlatTree),
    /// A random forest.
    Forest(FlatForest),
    /// A multinomial logistic regression (boxed: its scaling tables are large).
    Logistic(Box<Linear>),
    /// A per-variant cost model: the variant with the smallest predicted time.
    Cost(Box<CostModel>),
    /// A model plus the training vectors it mispredicts.
    Patched(Box<Patched>),
}

impl Compiled {
    /// Predicted variant for `x` (features zero-padded to [`MAX_FEATURES`]).
    #[inline]
    pub fn predict(&self, x: &[f64; MAX_FEATURES]) -> usize {
        match self {
            Compiled::Tree(t) => t.predict(x),
            Compiled::Forest(f) => f.predict(x),
            Compiled::Logistic(l) => l.predict(x),
            Compiled::Cost(c) => c.predict(x),
            Compiled::Patched(p) => p.predict(x),
        }
    }

    /// Indented text of the model.
    pub fn render(&self, feature: &dyn Fn(usize) -> String, class: &dyn Fn(usize) -> String, indent: usize) -> String {
        match self {
            Compiled::Tree(t) => t.render(feature, class, indent),
            Compiled::Forest(f) => f.render(feature, class, indent),
            Compiled::Logistic(l) => l.render(feature, class, indent),
            Compiled::Cost(c) => c.render(feature, class, indent),
            Compiled::Patched(p) => p.render(feature, class, indent),
        }
    }

    /// The exceptions, if the model has any.
    pub fn exceptions(&self) -> &[Exception] {
        match self {
            Compiled::Patched(p) => &p.exceptions,
            _ => &[],
        }
    }
}

/// Fits `choice` on `rows` → `labels` without checking it on the training vectors (the learner
/// alone; [`train`] is what label-only callers use). Cost models and selections need times:
/// they are refused here (use [`fit_training_set`]). `seed` makes forests reproducible.
pub fn fit(choice: ModelChoice, rows: &[Vec<f64>], labels: &[usize], seed: u64) -> Result<Compiled, String> {
    let t = Table::new(rows, labels)?;
    Ok(match choice {
        ModelChoice::Tree { max_depth } => Compiled::Tree(FlatTree::from_grown(&cart::grow_all(&t, max_depth))),
        ModelChoice::Forest { trees, max_depth } => Compiled::Forest(forest::fit(&t, trees, max_depth, seed)),
        ModelChoice::LogisticRegression => Compiled::Logistic(Box::new(logistic::fit(&t, true)?)),
        // labels only: the most frequent one stands for the best single variant
        ModelChoice::Table => Compiled::Tree(FlatTree::constant(t.majority())),
        ModelChoice::Cost(_) | ModelChoice::CostSelected | ModelChoice::Auto => {
            return Err(format!("{} needs measured times, not only labels", choice.describe()))
        }
    })
}

/// A model fitted on times ([`fit_training_set`], [`train_costs`]): the decision function and what
/// was chosen.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    /// The compiled decision function.
    pub model: Compiled,
    /// The model it is (for a selecting choice, the one selected).
    pub chosen: ModelChoice,
    /// For a selecting choice: the chosen model's cross-validated quality (`None` with too few
    /// complete vectors to judge).
    pub estimate: Option<Estimate>,
    /// Why a selection fell back to the measured table ([`ModelChoice::Table`]), in words.
    pub note: Option<String>,
}

/// Fits one (non-selecting) model on per-variant times. Trees and forests weight each vector
/// by what a wrong choice loses there ([`TrainingSet::regret_weights`]); logistic regression fits the
/// labels (linfa-logistic takes no sample weights).
pub(crate) fn fit_learner(choice: ModelChoice, c: &TrainingSet, seed: u64) -> Result<Compiled, String> {
    Ok(match choice {
        ModelChoice::Tree { max_depth } => {
            let t = c.table();
            let features: Vec<u16> = (0..t.p as u16).collect();
            let w = c.regret_weights();
            Compiled::Tree(FlatTree::from_grown(&cart::Grower::new(&t, &w, &features).grow(max_depth)))
        }
        ModelChoice::Forest { trees, max_depth } => {
            Compiled::Forest(forest::fit_weighted(&c.table(), &c.regret_weights(), trees, max_depth, seed))
        }
        ModelChoice::LogisticRegression => Compiled::Logistic(Box::new(logistic::fit(&c.table(), true)?)),
        ModelChoice::Cost(form) => Compiled::Cost(Box::new(cost_model::fit(c, form)?)),
        // the measured vectors' own labels are the exceptions `train_costs` adds
        ModelChoice::Table => Compiled::Tree(FlatTree::constant(c.best_single_variant())),
        ModelChoice::CostSelected | ModelChoice::Auto => return Err("a selection is not a learner".to_owned()),
    })
}

/// Fits `choice` on per-variant times (the learner alone; [`train_costs`] adds exceptions). A
/// selecting choice (`auto`, `cost`) cross-validates its candidates first ([`select`]); `auto`
/// may fall back to the measured table, and says why in the note.
pub fn fit_training_set(choice: ModelChoice, c: &TrainingSet, seed: u64) -> Result<Fitted, String> {
    let (chosen, estimate, note) = match choice {
        ModelChoice::CostSelected | ModelChoice::Auto => {
            let (w, e, all) = select::select(choice, c, seed);
            let note = (w == ModelChoice::Table).then(|| select::table_note(c, &all));
            (w, e, note)
        }
        c => (c, None, None),
    };
    let model = match fit_learner(chosen, c, seed) {
        Ok(m) => m,
        // a selection falls back on its other candidates rather than failing
        Err(e) if chosen != choice => {
            select::candidates(choice).into_iter().filter(|&k| k != chosen).find_map(|k| fit_learner(k, c, seed).ok()).ok_or(e)?
        }
        Err(e) => return Err(e),
    };
    Ok(Fitted { model, chosen, estimate, note })
}

/// [`fit_training_set`], then exceptions for the measured vectors the model gets wrong (their label is
/// the variant measured fastest there, or the exploration's decision), so a measured vector
/// keeps its measured best.
pub fn train_costs(choice: ModelChoice, c: &TrainingSet, seed: u64) -> Result<Fitted, String> {
    let mut f = fit_training_set(choice, c, seed)?;
    f.model = patch_exceptions(f.model, &c.table());
    Ok(f)
}

fn patch_exceptions(model: Compiled, t: &Table) -> Compiled {
    let mut exceptions = Vec::new();
    let mut unpatched = 0;
    for (i, label) in t.distinct() {
        let x = t.padded(i);
        if model.predict(&x) != label as usize {
            if exceptions.len() < MAX_EXCEPTIONS {
                exceptions.push(Exception { x, len: t.p, class: label as u32 });
            } else {
                unpatched += 1;
            }
        }
    }
    if exceptions.is_empty() {
        model
    } else {
        Compiled::Patched(Box::new(Patched { model, exceptions: exceptions.into(), unpatched }))
    }
}

/// Trains `choice` on feature rows and their labels (the best variant of each row): [`fit`],
/// then exceptions for the distinct training vectors the model mispredicts (a row's label is the
/// majority label of its duplicates). `seed` makes forests reproducible.
pub fn train(choice: ModelChoice, rows: &[Vec<f64>], labels: &[usize], seed: u64) -> Result<Compiled, String> {
    let model = fit(choice, rows, labels, seed)?;
    Ok(patch_exceptions(model, &Table::new(rows, labels)?))
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
    fn exceptions_fix_what_the_model_cannot_fit() {
        // three classes on one feature, depth 1: two leaves, so one vector is wrong
        let rows = vec![vec![1.0], vec![2.0], vec![3.0]];
        let raw = fit(ModelChoice::Tree { max_depth: 1 }, &rows, &[0, 1, 2], 1).unwrap();
        let wrong = rows.iter().zip([0, 1, 2]).filter(|(r, l)| raw.predict(&pad(r)) != *l).count();
        assert_eq!(wrong, 1);
        let c = train(ModelChoice::Tree { max_depth: 1 }, &rows, &[0, 1, 2], 1).unwrap();
        assert_eq!(c.exceptions().len(), 1);
        for (r, l) in rows.iter().zip([0, 1, 2]) {
            assert_eq!(c.predict(&pad(r)), l);
        }
        // an unseen vector goes to the tree
        assert_eq!(c.predict(&pad(&[100.0])), raw.predict(&pad(&[100.0])));
        let text = c.render(&|_| "n".to_owned(), &|i| format!("v{i}"), 0);
        assert!(text.contains("exceptions") && text.contains("n=") && text.contains("-> v"), "{text}");
    }

    #[test]
    fn logistic_renders_scaling() {
        let rows: Vec<Vec<f64>> = [1e2, 1e3, 1e5, 1e7].iter().map(|&n| vec![n]).collect();
        let c = train(ModelChoice::LogisticRegression, &rows, &[0, 0, 1, 1], 1).unwrap();
        let text = c.render(&|_| "N".to_owned(), &|i| format!("v{i}"), 1);
        assert!(text.contains("ln(N)") && text.contains("score(v1)"), "{text}");
    }
}
