//! Model selection by cross-validated regret: which model decides best on the vectors it was
//! *not* trained on, judged on the data the region has.
//!
//! The complete feature vectors (every variant measured) are split into folds (leave-one-out up
//! to [`LOO_MAX`] vectors, [`FOLDS`] folds beyond, assigned by a seeded shuffle); vectors with
//! some variant missing are always in the training part. Every candidate is fitted on each
//! fold's training part and decides the fold's held-out vectors; its score is the mean regret
//! of those decisions (`t(chosen) / t(best) − 1`). The candidate with the lowest mean regret
//! wins; candidates within [`TIE`] of it count as equal. Among equals, the cost model whose
//! held-out *time* predictions were most accurate wins (regret often ties at 0 on clean data,
//! while only the better-fitting model also decides right beyond the inputs seen); without a
//! cost model among them, the earlier one in the candidate list (simpler, cheaper to train).
//!
//! Little data: with fewer than [`MIN_VECTORS`] complete vectors there is nothing to hold out;
//! with fewer than [`FEW_VECTORS`], held-out regret ties at 0 for most candidates while a cost
//! fitted to a handful of points can be far off between them (a cost that falls with a feature has no
//! additive fit). `auto` then takes a depth-2 tree (thresholds midway between measured inputs)
//! unless another candidate has strictly lower held-out regret, and with fewer than
//! [`MIN_VECTORS`] the tree outright; `cost` takes its first form.
//!
//! The estimate ([`Estimate`]) is the winner's held-out score: an honest guess of its regret on
//! new inputs of the same spread, slightly optimistic because it is the best of several.

use super::choice::ModelChoice;
use super::cost_model::{self, CostForm, Family};
use super::rng::XorShift;
use super::training_set::TrainingSet;
use super::{fit_learner, Compiled};

/// Leave-one-out cross-validation up to this many complete vectors.
pub const LOO_MAX: usize = 10;
/// Folds beyond [`LOO_MAX`] (training time grows with folds × candidates).
pub const FOLDS: usize = 10;
/// Fewest complete vectors for a selection.
pub const MIN_VECTORS: usize = 3;
/// Below this many complete vectors, `auto` prefers a depth-2 tree on ties.
pub const FEW_VECTORS: usize = 8;
/// Mean regrets closer than this to the best count as equal (0.25 % of the best time).
pub const TIE: f64 = 0.0025;

/// The cross-validated quality of a model on the region's data.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Estimate {
    /// Mean regret of its held-out decisions.
    pub mean_regret: f64,
    /// Fraction of held-out decisions within 5 % of the best time.
    pub within5: f64,
    /// Held-out decisions (one per complete vector).
    pub decisions: usize,
    /// Folds.
    pub folds: usize,
    /// Cost models: root mean square of `ln(predicted / measured time)` over the held-out
    /// (vector, variant) pairs (0.1 ≈ predictions within 10 %).
    pub time_error: Option<f64>,
}

impl Estimate {
    /// Whether every figure is a finite number (what JSON can store and read back).
    pub fn is_finite(&self) -> bool {
        self.mean_regret.is_finite() && self.within5.is_finite() && self.time_error.is_none_or(f64::is_finite)
    }
}

/// The candidates of a selecting choice, in preference order (first wins ties). The
/// log-quadratic family is not one: its curvature, fitted on a narrow range of sizes, bends the
/// times of far larger inputs towards 0 (seen on `examples/vecadd.c` retraining after drift on
/// 8k–64k elements and then choosing the serial variant at 4M); it stays available explicitly.
pub fn candidates(choice: ModelChoice) -> Vec<ModelChoice> {
    let cost = |family, depth| ModelChoice::Cost(CostForm::new(family, depth));
    let by_category = |family, depth| ModelChoice::Cost(CostForm { family, depth, by_category: true });
    let costs = vec![
        cost(Family::Additive, 0),
        cost(Family::Linear, 0),
        cost(Family::LogLinear, 0),
        cost(Family::Additive, 1),
        cost(Family::LogLinear, 1),
        cost(Family::Additive, 2),
        cost(Family::LogLinear, 2),
        by_category(Family::Additive, 0),
        by_category(Family::LogLinear, 0),
    ];
    match choice {
        ModelChoice::CostSelected => costs,
        ModelChoice::Auto => {
            let mut all = costs;
            all.extend([
                ModelChoice::Tree { max_depth: 2 },
                ModelChoice::Tree { max_depth: 4 },
                ModelChoice::Forest { trees: 10, max_depth: 4 },
            ]);
            all
        }
        c => vec![c],
    }
}

/// The folds of a cross-validation over the complete vectors (shuffled with `seed`): each a
/// training set (the other folds and every partial vector) and its held-out vectors.
fn fold_sets(c: &TrainingSet, complete: &[usize], seed: u64) -> Vec<(TrainingSet, Vec<usize>)> {
    let partial: Vec<usize> = (0..c.n()).filter(|&i| !c.complete(i)).collect();
    let mut order = complete.to_vec();
    let mut rng = XorShift::new(seed ^ 0xc0ffee);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let folds = if order.len() <= LOO_MAX { order.len() } else { FOLDS };
    (0..folds)
        .map(|f| {
            let test: Vec<usize> = (0..order.len()).filter(|j| j % folds == f).map(|j| order[j]).collect();
            let mut train: Vec<usize> = (0..order.len()).filter(|j| j % folds != f).map(|j| order[j]).collect();
            train.extend_from_slice(&partial);
            (c.subset(&train), test)
        })
        .collect()
}

/// Sum of squared `ln(predicted / measured time)` of a cost model over `test`'s measured
/// (vector, variant) pairs, and their number.
fn time_errors(m: &super::cost_model::CostModel, c: &TrainingSet, test: &[usize]) -> (f64, usize) {
    let (mut sq, mut pairs) = (0.0, 0usize);
    for &i in test {
        for (v, p) in m.times(&c.padded(i)).into_iter().enumerate() {
            let t = c.times(i)[v];
            if let Some(p) = p.filter(|p| *p > 0.0 && t > 0.0) {
                let e = (p / t).ln();
                sq += if e.is_finite() { e * e } else { 1e6 };
                pairs += 1;
            }
        }
    }
    (sq, pairs)
}

/// Every candidate fitted on one training part (None: it cannot be fitted there). The cost
/// forms of one family differing only in piecewise depth share one growth
/// ([`cost_model::fit_depths`]: the same models, grown once to the deepest).
fn fit_candidates(cands: &[ModelChoice], train: &TrainingSet, seed: u64) -> Vec<Option<Compiled>> {
    let mut out: Vec<Option<Option<Compiled>>> = vec![None; cands.len()];
    for i in 0..cands.len() {
        if out[i].is_some() {
            continue;
        }
        let ModelChoice::Cost(form) = cands[i] else {
            out[i] = Some(fit_learner(cands[i], train, seed).ok());
            continue;
        };
        let same = |k: &ModelChoice| matches!(k, ModelChoice::Cost(f) if f.family == form.family && f.by_category == form.by_category);
        let group: Vec<usize> = (i..cands.len()).filter(|&j| same(&cands[j])).collect();
        let depths: Vec<u8> = group.iter().map(|&j| if let ModelChoice::Cost(f) = cands[j] { f.depth } else { 0 }).collect();
        for (&j, m) in group.iter().zip(cost_model::fit_depths(train, form, &depths)) {
            out[j] = Some(m.ok().map(|m| Compiled::Cost(Box::new(m))));
        }
    }
    out.into_iter().map(Option::flatten).collect()
}

/// The held-out regret of a candidate over the folds, `model(f)` being it fitted on fold `f`'s
/// training part (a fold it cannot be fitted on decides by the training set's majority label).
fn cross_validate<'a>(c: &TrainingSet, folds: &[(TrainingSet, Vec<usize>)], model: impl Fn(usize) -> Option<&'a Compiled>) -> Estimate {
    let (mut sum, mut within, mut n) = (0.0, 0usize, 0usize);
    let (mut sq, mut pairs) = (0.0, 0usize);
    for (f, (train, test)) in folds.iter().enumerate() {
        let model = model(f);
        if let Some(Compiled::Cost(m)) = model {
            let (s, p) = time_errors(m, c, test);
            sq += s;
            pairs += p;
        }
        for &i in test {
            let r = match model {
                Some(m) => c.regret(i, decide(m, c, i)),
                None => c.regret(i, majority(train)),
            };
            sum += r;
            within += (r <= 0.05) as usize;
            n += 1;
        }
    }
    Estimate {
        mean_regret: sum / n.max(1) as f64,
        within5: within as f64 / n.max(1) as f64,
        decisions: n,
        folds: folds.len(),
        time_error: (pairs > 0).then(|| (sq / pairs as f64).sqrt()),
    }
}

/// The winner among the estimates within `TIE` of the best regret: with little data the tree
/// (first) wins its ties, else the cost model whose time predictions held out best (the one
/// to trust beyond the inputs seen), else the first.
fn winner(results: &[(ModelChoice, Estimate)], few: bool) -> Option<(ModelChoice, Estimate)> {
    let best = results.iter().map(|(_, e)| e.mean_regret).fold(f64::INFINITY, f64::min);
    let equals = results.iter().filter(|(_, e)| e.mean_regret <= best + TIE);
    let by_time = equals.clone().filter_map(|(k, e)| e.time_error.map(|t| (t, k, e))).min_by(|a, b| a.0.total_cmp(&b.0));
    let first = equals.clone().next();
    match first {
        Some((k, e)) if few && matches!(k, ModelChoice::Tree { .. }) => Some((*k, e.clone())),
        _ => by_time.map(|(_, k, e)| (*k, e.clone())).or_else(|| first.cloned()),
    }
}

/// Cross-validates every candidate of `choice`; returns the winner, its estimate (`None` when
/// there are too few complete vectors to judge) and every candidate's estimate. `auto` takes
/// the measured table ([`ModelChoice::Table`]) where every feature is constant, or where the
/// table — held out, the best single variant of the training part — beats the best model's
/// regret by more than [`TIE`]; its estimate is then listed last.
pub fn select(choice: ModelChoice, c: &TrainingSet, seed: u64) -> (ModelChoice, Option<Estimate>, Vec<(ModelChoice, Estimate)>) {
    let mut cands = candidates(choice);
    if choice == ModelChoice::Auto && c.features_constant() {
        return (ModelChoice::Table, None, Vec::new());
    }
    let complete: Vec<usize> = (0..c.n()).filter(|&i| c.complete(i)).collect();
    let few = complete.len() < FEW_VECTORS && choice == ModelChoice::Auto;
    if few {
        // the tree first: it wins every tie
        let tree = ModelChoice::Tree { max_depth: super::DEFAULT_TREE_DEPTH };
        cands.retain(|&k| k != tree);
        cands.insert(0, tree);
    }
    if complete.len() < MIN_VECTORS || cands.len() == 1 {
        return (cands[0], None, Vec::new());
    }
    let folds = fold_sets(c, &complete, seed);
    // a candidate that cannot be fitted on all the data (a per-category form without a
    // categorical feature) is no candidate
    let categorical = cost_model::categorical_feature(c).is_some();
    cands.retain(|&k| categorical || !matches!(k, ModelChoice::Cost(f) if f.by_category));
    if choice == ModelChoice::Auto {
        cands.push(ModelChoice::Table);
    }
    let fits: Vec<Vec<Option<Compiled>>> = folds.iter().map(|(train, _)| fit_candidates(&cands, train, seed)).collect();
    let mut results: Vec<(ModelChoice, Estimate)> =
        cands.iter().enumerate().map(|(k, &cand)| (cand, cross_validate(c, &folds, |f| fits[f][k].as_ref()))).collect();
    let table = results.pop_if(|(k, _)| *k == ModelChoice::Table);
    let mut chosen = winner(&results, few);
    if let Some(t) = table {
        if chosen.as_ref().is_none_or(|(_, e)| t.1.mean_regret + TIE < e.mean_regret) {
            chosen = Some(t.clone());
        }
        results.push(t);
    }
    match chosen {
        Some((winner, est)) => (winner, Some(est), results),
        None => (cands[0], None, results),
    }
}

/// Why `auto` took the measured table on `c`, given every candidate's estimate (`select`'s).
pub fn table_note(c: &TrainingSet, results: &[(ModelChoice, Estimate)]) -> String {
    if c.features_constant() {
        return format!(
            "every feature is constant over the {} measured vector{}: no model can tell them apart",
            c.n(),
            if c.n() == 1 { "" } else { "s" }
        );
    }
    let table = results.iter().find(|(k, _)| *k == ModelChoice::Table);
    let best = results.iter().filter(|(k, _)| *k != ModelChoice::Table).min_by(|a, b| a.1.mean_regret.total_cmp(&b.1.mean_regret));
    match (best, table) {
        (Some((k, e)), Some((_, t))) => format!(
            "no model beats the best single variant on held-out vectors: the best, {}, has a cross-validated mean regret of {:.1} % against {:.1} % for the table",
            k.describe(),
            e.mean_regret * 100.0,
            t.mean_regret * 100.0
        ),
        _ => "no model beats the best single variant on held-out vectors".to_owned(),
    }
}

fn decide(m: &Compiled, c: &TrainingSet, i: usize) -> usize {
    m.predict(&c.padded(i)).min(c.k - 1)
}

fn majority(c: &TrainingSet) -> usize {
    let mut counts = vec![0usize; c.k];
    for &y in &c.y {
        counts[y as usize] += 1;
    }
    (0..c.k).fold(0, |b, v| if counts[v] > counts[b] { v } else { b })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::train_costs;

    /// Two variants costing `n` and `1000 - n` (a cost that falls with the feature), trained
    /// on every subset of six sizes that has both winners: `auto` decides every size right,
    /// whatever few vectors it saw (the case of a region trained as soon as it may).
    #[test]
    fn few_vectors_decide_right() {
        let sizes = [100.0, 200.0, 300.0, 700.0, 800.0, 900.0];
        for mask in 1u32..64 {
            let pick: Vec<f64> = (0..6).filter(|i| mask & (1 << i) != 0).map(|i| sizes[i]).collect();
            if !(pick.iter().any(|&n| n < 500.0) && pick.iter().any(|&n| n > 500.0)) {
                continue;
            }
            let rows: Vec<Vec<f64>> = pick.iter().map(|&n| vec![n]).collect();
            let times: Vec<Vec<f64>> = pick.iter().map(|&n| vec![n, 1000.0 - n]).collect();
            let c = TrainingSet::new(&rows, &times, 2).unwrap();
            let f = train_costs(ModelChoice::Auto, &c, 1).unwrap();
            for n in sizes.iter().chain(&[150.0, 850.0]) {
                let mut x = [0.0; crate::ctx::MAX_FEATURES];
                x[0] = *n;
                assert_eq!(f.model.predict(&x), (*n > 500.0) as usize, "trained on {pick:?}: {} at n={n}", f.chosen.describe());
            }
        }
    }

    #[test]
    fn candidates_and_estimates() {
        assert_eq!(candidates(ModelChoice::Tree { max_depth: 3 }), vec![ModelChoice::Tree { max_depth: 3 }]);
        assert!(candidates(ModelChoice::Auto).len() > candidates(ModelChoice::CostSelected).len());
        // affine costs with a crossover: the additive model wins and its estimate is exact
        let rows: Vec<Vec<f64>> = (1..=12).map(|i| vec![(i * 1000) as f64]).collect();
        let times: Vec<Vec<f64>> = rows.iter().map(|r| vec![500.0 + r[0], 4000.0 + 0.5 * r[0]]).collect();
        let c = TrainingSet::new(&rows, &times, 2).unwrap();
        let (w, e, all) = select(ModelChoice::Auto, &c, 1);
        assert!(matches!(w, ModelChoice::Cost(f) if f.family == super::super::Family::Additive), "{w:?}");
        let e = e.unwrap();
        assert_eq!((e.decisions, e.folds), (12, 10));
        assert!(e.mean_regret < 1e-9 && e.within5 == 1.0 && e.time_error.unwrap() < 1e-3, "{e:?}");
        // no categorical feature: per-category forms skipped; the measured table is judged too
        assert_eq!(all.len(), candidates(ModelChoice::Auto).len() - 2 + 1, "{all:?}");
        assert_eq!(all.last().map(|(k, _)| *k), Some(ModelChoice::Table));
    }

    /// Six variants whose best jumps between vectors (a factor of its own per vector and
    /// variant), over one size and two constant features: no model beats always running the
    /// best single variant on held-out vectors, so `auto` takes the measured table — every
    /// measured vector its best, any other the best single variant — and says why.
    #[test]
    fn auto_falls_back_to_the_table_where_no_model_beats_the_best_single_variant() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let rows: Vec<Vec<f64>> = (0..20).map(|i| vec![(1000.0 * 1.5f64.powi(i)).round(), 2.0, 7.0]).collect();
        let times: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| (0..6).map(|v| (20_000.0 + 3000.0 * v as f64 + r[0] * (0.5 + 0.1 * v as f64)) * (0.4 + 1.6 * next())).collect())
            .collect();
        let c = TrainingSet::new(&rows, &times, 6).unwrap();
        let (w, e, all) = select(ModelChoice::Auto, &c, 1);
        assert_eq!(w, ModelChoice::Table, "{all:?}");
        let e = e.unwrap();
        for (k, other) in all.iter().filter(|(k, _)| *k != ModelChoice::Table) {
            assert!(e.mean_regret + TIE < other.mean_regret, "{} held out better: {other:?} vs {e:?}", k.describe());
        }
        let f = train_costs(ModelChoice::Auto, &c, 1).unwrap();
        assert!(f.note.as_deref().is_some_and(|n| n.starts_with("no model beats the best single variant")), "{:?}", f.note);
        for i in 0..c.n() {
            assert_eq!(f.model.predict(&c.padded(i)), c.y[i] as usize, "measured vector {i} keeps its best");
        }
        let mut unseen = c.padded(3);
        unseen[0] = 1234.5;
        assert_eq!(f.model.predict(&unseen), c.best_single_variant(), "elsewhere the best single variant");
    }

    /// Every feature constant: nothing to tell vectors apart, the table without cross-validation.
    #[test]
    fn constant_features_take_the_table() {
        let c = TrainingSet::new(&[vec![64.0, 2.0]], &[vec![300.0, 100.0, 200.0]], 3).unwrap();
        assert_eq!(select(ModelChoice::Auto, &c, 1).0, ModelChoice::Table);
        let f = train_costs(ModelChoice::Auto, &c, 1).unwrap();
        assert_eq!(f.model.predict(&c.padded(0)), 1);
        assert!(f.note.unwrap().starts_with("every feature is constant over the 1 measured vector:"));
        // an explicit choice is what it says
        assert_eq!(select(ModelChoice::Tree { max_depth: 2 }, &c, 1).0, ModelChoice::Tree { max_depth: 2 });
    }
}
