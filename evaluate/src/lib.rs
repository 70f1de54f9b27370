//! `ompadapt_evaluate`: decision quality on inputs a model never saw, Georgakoudis et al.'s
//! Adaptive-K method over stored data (the papers cited by author are listed in
//! docs/references.md).
//!
//! Offline work only: the runtime (`ompadapt_rt`, loaded by every adaptive program) trains and
//! decides; this crate, linked by the `ompadapt` command and the benchmarks, scores how well
//! it decides.
//!
//! The inputs (distinct feature vectors with every variant's measured time) are shuffled and
//! split into `K` equal groups (sizes differ by at most one). For a fraction `f = m / K`, each of
//! the `K` rotations trains a model on groups `i, i+1, …, i+m-1 (mod K)` and decides every input
//! of the other groups with it, so every input is trained on and tested at least once; this is
//! repeated for `shuffles` permutations. Georgakoudis et al. use `K = 4`, `f` = 25 %, 50 %, 75 %
//! (Adaptive-25/50/75) and 10 shuffles: [`Method::default`].
//!
//! A decision on a test input is scored against that input's measured times: its *regret* is
//! `t(chosen) / t(best) - 1`, and it is *within tolerance* when the regret is at most
//! [`Method::tolerance`] (5 %: "within 5 % of the oracle"). [`Score`] aggregates per model and
//! fraction: the fraction of decisions within tolerance, the mean and the worst regret.
//!
//! Only inputs with every variant measured can be scored; inputs with some variants missing
//! (eliminated early by the exploration) are still used for training. The models are trained
//! exactly as the runtime trains them (`ompadapt_rt::model::fit_training_set`); `auto` reports which model its
//! cross-validation chose in each trained fold ([`Score::chosen`]).
//!
//! Entry points: [`adaptive_k`] on plain data ([`TrainingSet`]: feature vectors with per-variant
//! times), [`adaptive_k_against`] when the times to score against differ from the training
//! times (controlled experiments: noisy measurements for training, true costs for scoring),
//! [`costs_from_file`] for a region's persisted data (what `ompadapt export` archives: a [`DataFile`]).
//! [`synthetic`] makes controlled cost models for tests and benchmarks.

#![deny(missing_docs)]

pub mod synthetic;

use ompadapt_rt::model::rng::XorShift;
use ompadapt_rt::model::{self, ModelChoice, TrainingSet};
use ompadapt_rt::stats::FeatureKey;
use ompadapt_rt::store::DataFile;
use ompadapt_rt::team::TeamRecord;

/// The evaluation's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Method {
    /// Groups the inputs are split into.
    pub k: usize,
    /// Training groups of each scenario (`m` of `k`: fraction `m / k`).
    pub train_groups: Vec<usize>,
    /// Shuffles of the inputs.
    pub shuffles: usize,
    /// Seed of the shuffles (and of forests' resampling).
    pub seed: u64,
    /// Largest regret that counts as "within" (0.05: within 5 % of the best time).
    pub tolerance: f64,
}

impl Default for Method {
    /// Georgakoudis et al.: K = 4, fractions 25/50/75 %, 10 shuffles, 5 % tolerance.
    fn default() -> Method {
        Method { k: 4, train_groups: vec![1, 2, 3], shuffles: 10, seed: 1, tolerance: 0.05 }
    }
}

impl Method {
    /// Only the Adaptive-50 scenario (`K = 4`, 2 groups trained).
    pub fn adaptive50() -> Method {
        Method { train_groups: vec![2], ..Method::default() }
    }
}

/// Decision quality of one model in one scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    /// The model as asked for (`describe()` of the choice).
    pub model: String,
    /// The model asked for.
    pub choice: ModelChoice,
    /// Fraction of the inputs trained on (`m / k`).
    pub fraction: f64,
    /// Models trained (`k × shuffles`, fewer when a fold had nothing to train on).
    pub trained: usize,
    /// Decisions scored.
    pub decisions: usize,
    /// Fraction of the decisions within [`Method::tolerance`] of the best time.
    pub within: f64,
    /// Mean regret over the decisions (0.02 = 2 % slower than the best, on average).
    pub mean_regret: f64,
    /// Largest regret of any decision.
    pub worst_regret: f64,
    /// Folds whose training failed (the fold is then decided by its most frequent label).
    pub failures: usize,
    /// For `auto` (and `cost`), how often each model was chosen, most frequent first.
    pub chosen: Vec<(String, usize)>,
}

/// [`adaptive_k_against`] scoring against the training data's own times.
pub fn adaptive_k(data: &TrainingSet, models: &[ModelChoice], method: &Method) -> Result<Vec<Score>, String> {
    adaptive_k_against(data, data, models, method)
}

/// Adaptive-K: trains on `train`'s rows, scores decisions against `truth`'s times (the same
/// inputs in the same order, e.g. noise-free costs of noisy measurements). One [`Score`] per
/// model and scenario, in the order models × `method.train_groups`.
pub fn adaptive_k_against(train: &TrainingSet, truth: &TrainingSet, models: &[ModelChoice], method: &Method) -> Result<Vec<Score>, String> {
    if train.n() != truth.n() || train.k != truth.k || train.x != truth.x {
        return Err("training and scoring data must hold the same inputs".to_owned());
    }
    if method.k < 2 || method.train_groups.iter().any(|&m| m == 0 || m >= method.k) {
        return Err(format!("K = {} with training groups {:?}: need 0 < m < K", method.k, method.train_groups));
    }
    let n = train.n();
    if n < method.k {
        return Err(format!("{n} inputs cannot be split into {} groups", method.k));
    }
    let mut out = Vec::new();
    for &choice in models {
        for &m in &method.train_groups {
            out.push(score_one(train, truth, choice, m, method));
        }
    }
    Ok(out)
}

/// One trained fold of an Adaptive-K scenario: which inputs it trained on, and what the model
/// decided for each of the others.
#[derive(Clone, Debug, PartialEq)]
pub struct Fold {
    /// Shuffle (0-based).
    pub shuffle: usize,
    /// First training group of the rotation.
    pub rotation: usize,
    /// Rows of the data trained on.
    pub train: Vec<usize>,
    /// Rows decided, with the decided variant.
    pub decisions: Vec<(usize, usize)>,
    /// The model the fold trained (for `auto`: the one its cross-validation chose); `None` when
    /// training failed and the fold decided its training data's most frequent label.
    pub chosen: Option<String>,
}

/// The folds of one scenario (`m` of `method.k` groups trained), in order: shuffles, then
/// rotations. The shuffles depend only on the number of rows and `method.seed`: data sets with
/// the same number of rows in the same input order (two regions of one program, one row per
/// input) get the same splits.
pub fn folds(train: &TrainingSet, choice: ModelChoice, m: usize, method: &Method) -> Vec<Fold> {
    let n = train.n();
    let mut rng = XorShift::new(method.seed);
    let mut out = Vec::new();
    for shuffle in 0..method.shuffles {
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, rng.below(i + 1));
        }
        // group g holds order[bounds[g]..bounds[g + 1]]
        let bounds: Vec<usize> = (0..=method.k).map(|g| g * n / method.k).collect();
        let group = |g: usize| &order[bounds[g % method.k]..bounds[g % method.k + 1]];
        for start in 0..method.k {
            let train_idx: Vec<usize> = (start..start + m).flat_map(|g| group(g).iter().copied()).collect();
            let test_idx: Vec<usize> = (start + m..start + method.k).flat_map(|g| group(g).iter().copied()).collect();
            let fold = train.subset(&train_idx);
            let seed = rng.next_u64();
            let (chosen, decide): (Option<String>, Box<dyn Fn(usize) -> usize>) = match model::fit_training_set(choice, &fold, seed) {
                Ok(f) => (Some(f.chosen.describe()), Box::new(move |i| f.model.predict(&train.padded(i)))),
                Err(_) => {
                    let mut counts = vec![0usize; train.k];
                    for &y in &fold.y {
                        counts[y as usize] += 1;
                    }
                    let best = (0..counts.len()).fold(0, |b, c| if counts[c] > counts[b] { c } else { b });
                    (None, Box::new(move |_| best))
                }
            };
            let decisions = test_idx.iter().map(|&i| (i, decide(i))).collect();
            out.push(Fold { shuffle, rotation: start, train: train_idx, decisions, chosen });
        }
    }
    out
}

fn score_one(train: &TrainingSet, truth: &TrainingSet, choice: ModelChoice, m: usize, method: &Method) -> Score {
    let mut s = Score {
        model: choice.describe(),
        choice,
        fraction: m as f64 / method.k as f64,
        trained: 0,
        decisions: 0,
        within: 0.0,
        mean_regret: 0.0,
        worst_regret: 0.0,
        failures: 0,
        chosen: Vec::new(),
    };
    let mut within = 0usize;
    let mut sum = 0.0;
    let mut chosen: Vec<(String, usize)> = Vec::new();
    for fold in folds(train, choice, m, method) {
        match fold.chosen {
            Some(name) => {
                s.trained += 1;
                match chosen.iter_mut().find(|(c, _)| *c == name) {
                    Some(c) => c.1 += 1,
                    None => chosen.push((name, 1)),
                }
            }
            None => s.failures += 1,
        }
        for &(i, v) in fold.decisions.iter().filter(|&&(i, _)| truth.complete(i)) {
            let ts = truth.times(i);
            let best = ts.iter().copied().fold(f64::INFINITY, f64::min);
            let r = if best > 0.0 { (ts[v.min(ts.len() - 1)] / best - 1.0).max(0.0) } else { 0.0 };
            s.decisions += 1;
            sum += r;
            within += (r <= method.tolerance) as usize;
            s.worst_regret = s.worst_regret.max(r);
        }
    }
    if s.decisions > 0 {
        s.within = within as f64 / s.decisions as f64;
        s.mean_regret = sum / s.decisions as f64;
    }
    chosen.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    s.chosen = chosen;
    s
}

/// A region's persisted data as [`TrainingSet`]: per (feature vector, variant), the robust time (the lower quartile, the runtime's labelling rule) of the
/// stored measurements (coarse-mode run totals, per execution, where a pair has no
/// measurement; else, for a host region's team-size variant, the time of a variant that ran
/// the same team in every run the file records: one measurement of that team, see
/// [`TeamRecord::stand_ins`]). Variants are indexed in the file's declaration order.
pub fn costs_from_file(f: &DataFile) -> Result<TrainingSet, String> {
    let k = f.variants.len();
    let index = |name: &str| f.variants.iter().position(|v| v == name);
    let mut pairs: Vec<(Vec<f64>, usize, f64)> = Vec::new();
    for s in &f.samples {
        // warm measurements where there are any, else the cold ones (programs that run a
        // region once per process only have those)
        let times = if s.times_ns.is_empty() { &s.cold_ns } else { &s.times_ns };
        if let (Some(v), Some(t)) = (index(&s.variant), robust(times)) {
            pairs.push((s.features.clone(), v, t));
        }
    }
    let mut per_run: std::collections::HashMap<(FeatureKey, usize), Vec<f64>> = Default::default();
    for r in &f.runs {
        if let Some(v) = index(&r.variant) {
            if r.executions > 0 {
                per_run.entry((FeatureKey::new(&r.features), v)).or_default().push(r.total_ns as f64 / r.executions as f64);
            }
        }
    }
    let measured: std::collections::HashSet<(FeatureKey, usize)> = pairs.iter().map(|(f, v, _)| (FeatureKey::new(f), *v)).collect();
    let mut extra: Vec<_> = per_run.into_iter().filter(|(key, _)| !measured.contains(key)).collect();
    extra.sort_by(|a, b| a.0 .1.cmp(&b.0 .1).then(a.0 .0.values().partial_cmp(&b.0 .0.values()).unwrap_or(std::cmp::Ordering::Equal)));
    for ((key, v), ts) in extra {
        if let Some(t) = robust(&ts) {
            pairs.push((key.values(), v, t));
        }
    }
    fill_stand_ins(&mut pairs, &f.variants, &f.teams);
    TrainingSet::from_pairs(&pairs, k)
}

/// Adds, for each variant without a time on a vector, the time of a variant that ran the same
/// team in every run `teams` records (the first of them, in declaration order, with a time).
fn fill_stand_ins(pairs: &mut Vec<(Vec<f64>, usize, f64)>, variants: &[String], teams: &[TeamRecord]) {
    let stand_ins = TeamRecord::stand_ins(teams, variants);
    if stand_ins.iter().all(Vec::is_empty) {
        return;
    }
    let mut keys: Vec<FeatureKey> = Vec::new();
    let mut seen: std::collections::HashSet<FeatureKey> = Default::default();
    let mut have: std::collections::HashMap<(FeatureKey, usize), f64> = Default::default();
    for (f, v, t) in pairs.iter() {
        let key = FeatureKey::new(f);
        if seen.insert(key) {
            keys.push(key);
        }
        have.insert((key, *v), *t);
    }
    for key in keys {
        for (u, ins) in stand_ins.iter().enumerate() {
            if have.contains_key(&(key, u)) {
                continue;
            }
            if let Some(t) = ins.iter().find_map(|w| have.get(&(key, *w))) {
                pairs.push((key.values(), u, *t));
            }
        }
    }
}

/// A pair's time as the runtime labels by it (`ompadapt_rt::explore::robust_time`: the lower
/// quartile, robust to one-sided slowdowns), so that `show`, `train` and `evaluate` call the
/// same variant best as the run did.
fn robust(times: &[f64]) -> Option<f64> {
    let mut t = times.to_vec();
    let r = ompadapt_rt::explore::robust_time(&mut t);
    r.is_finite().then_some(r)
}

/// The scores as a Markdown table (one row per model and scenario).
pub fn table(scores: &[Score], tolerance: f64) -> String {
    let mut out = format!(
        "| model | trained on | within {:.0} % | mean regret | worst regret | chosen |\n|---|---|---|---|---|---|\n",
        tolerance * 100.0
    );
    for s in scores {
        let chosen = if s.chosen.len() > 1 || s.chosen.first().is_some_and(|c| c.0 != s.model) {
            s.chosen.iter().map(|(m, c)| format!("{m} ×{c}")).collect::<Vec<_>>().join(", ")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "| {} | {:.0} % | {:.1} % | {:.2} % | {:.1} % | {} |\n",
            s.model,
            s.fraction * 100.0,
            s.within * 100.0,
            s.mean_regret * 100.0,
            s.worst_regret * 100.0,
            chosen
        ));
    }
    out
}
