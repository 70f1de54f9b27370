//! `ompadapt evaluate`: Georgakoudis et al.'s Adaptive-K evaluation (K-fold over the inputs, train
//! on 25/50/75 %, 10 shuffles) of one or more models on each region's stored data, with the
//! decision quality of the oracle's nearest static competitor (the single best variant) beside
//! it. The folds and the scoring are `ompadapt_evaluate`'s, the training the runtime's.

use anyhow::Result;
use ompadapt_evaluate::{adaptive_k, Method, Score};
use ompadapt_rt::model::{ModelChoice, TrainingSet};
use ompadapt_rt::store::DataFile;
use ompadapt_rt::team::TeamRecord;
use serde::Serialize;
use serde_json::{json, Value};

use crate::show::{table, Learned};
use crate::store;
use ompadapt_rt::model::payoff::{self, Payoff};

/// The best single variant (Static,Best) over the complete vectors — the one with the least
/// total time, the rule `ompadapt show` and the run's report compare the decisions with
/// (`model::payoff`) — its mean regret and fraction within `tol`.
pub fn static_best(c: &TrainingSet, tol: f64) -> Option<(usize, f64, f64)> {
    let rows: Vec<usize> = (0..c.n()).filter(|&i| c.complete(i)).collect();
    let times: Vec<Vec<f64>> = rows.iter().map(|&i| c.times(i).to_vec()).collect();
    let v = payoff::payoff(&times, &vec![0; rows.len()])?.single_variant;
    let r: Vec<f64> = rows.iter().map(|&i| c.regret(i, v)).collect();
    Some((v, r.iter().sum::<f64>() / r.len() as f64, r.iter().filter(|&&x| x <= tol).count() as f64 / r.len() as f64))
}

pub struct RegionScores {
    pub file: DataFile,
    pub complete: usize,
    /// The variants some feature vector lacks, and why.
    pub unmeasured: Vec<Unmeasured>,
    pub scores: Result<Vec<Score>, String>,
    pub static_best: Option<(usize, f64, f64)>,
    /// What belongs to another definition of the region and is not evaluated.
    pub set_aside: store::SetAside,
    /// The stored model as runs decide with it, scored on the measured vectors it may have
    /// been trained on (in-sample: what the runs got, not a prediction); with its kind.
    pub stored: Option<(String, Payoff)>,
}

/// The stored model's decisions on the measured vectors, as a run makes them.
fn stored_payoff(stored: &store::Stored) -> Option<(String, Payoff)> {
    let m = stored.file.model_trained.as_ref()?;
    let learned = Learned::fit(stored.clone(), None).ok().filter(|l| l.runtime.is_some())?;
    Some((m.kind.clone(), learned.payoff()?))
}

/// Scores `models` on the current definition's data of `stored` (see `store::definition`).
pub fn evaluate(stored: store::Stored, models: &[ModelChoice], method: &Method) -> RegionScores {
    let set_aside = store::summary(&stored).set_aside;
    let stored_model = stored_payoff(&stored);
    let f = stored.file;
    let costs = store::costs(&f);
    let unmeasured = unmeasured(&f, costs.as_ref().ok());
    let (complete, scores, sb) = match costs {
        Ok(c) => match (0..c.n()).filter(|&i| c.complete(i)).count() {
            0 => (0, Err(format!("no feature vector has every variant measured: {}", describe(&unmeasured))), None),
            complete => (complete, adaptive_k(&c, models, method), static_best(&c, method.tolerance)),
        },
        Err(e) => (0, Err(format!("{e:#}")), None),
    };
    RegionScores { file: f, complete, unmeasured, scores, static_best: sb, set_aside, stored: stored_model }
}

/// A variant that some of the region's feature vectors lack a time of, and why.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Unmeasured {
    pub variant: String,
    /// Feature vectors with a time of it, of `vectors`.
    pub measured: usize,
    pub vectors: usize,
    pub why: String,
}

/// The variants of `f` that some feature vector of `c` (its times) lacks, and why.
pub fn unmeasured(f: &DataFile, c: Option<&TrainingSet>) -> Vec<Unmeasured> {
    let Some(c) = c else { return Vec::new() };
    (0..c.k.min(f.variants.len()))
        .filter_map(|v| {
            let measured = (0..c.n()).filter(|&i| !c.times(i)[v].is_nan()).count();
            (measured < c.n()).then(|| Unmeasured { variant: f.variants[v].clone(), measured, vectors: c.n(), why: why_unmeasured(f, v) })
        })
        .collect()
}

/// Why variant `v` of `f` has no time on some vectors: it ran another variant's team in some
/// runs only, it was unavailable in a run, or no run measured it there.
fn why_unmeasured(f: &DataFile, v: usize) -> String {
    let name = &f.variants[v];
    let mut why = Vec::new();
    let resolved = TeamRecord::resolutions(&f.teams, name);
    let partners: Vec<&String> = f
        .variants
        .iter()
        .filter(|w| *w != name && !TeamRecord::same_team(&f.teams, name, w))
        .filter(|w| f.teams.iter().any(|r| r.threads.get(name).is_some_and(|t| r.threads.get(*w) == Some(t))))
        .collect();
    if resolved.len() > 1 && !partners.is_empty() {
        let teams: Vec<String> =
            resolved.iter().map(|(team, t)| format!("{t} thread{} with a team of {team}", if *t == 1 { "" } else { "s" })).collect();
        let partners: Vec<String> = partners.iter().map(|p| format!("'{p}'")).collect();
        why.push(format!(
            "its runs resolved it to {}: the same team as {} in some runs only, so their measurements do not count for it",
            teams.join(", "),
            partners.join(", ")
        ));
    }
    for u in f.unavailable.iter().filter(|u| u.variant == *name) {
        why.push(format!("unavailable in a run: {}", u.reason));
    }
    if why.is_empty() {
        why.push("no run measured it there: runs too short to explore every variant, or successive elimination dropped it".into());
    }
    why.join("; ")
}

/// The variants some vectors lack, in words.
pub fn describe(unmeasured: &[Unmeasured]) -> String {
    unmeasured
        .iter()
        .map(|u| format!("'{}' measured on {} of {} vectors ({})", u.variant, u.measured, u.vectors, u.why))
        .collect::<Vec<_>>()
        .join("; ")
}

pub fn to_json(r: &RegionScores, method: &Method) -> Value {
    json!({
        "program": r.file.program,
        "region": r.file.model,
        "complete_vectors": r.complete,
        "unmeasured": r.unmeasured,
        "variants": r.file.variants,
        "set_aside": r.set_aside,
        "method": {"k": method.k, "train_groups": method.train_groups, "shuffles": method.shuffles, "seed": method.seed, "tolerance": method.tolerance},
        "stored_model": r.stored.as_ref().map(|(kind, p)| json!({"kind": kind, "in_sample": p})),
        "static_best": r.static_best.map(|(v, m, w)| json!({"variant": r.file.variants.get(v), "mean_regret": m, "within": w})),
        "error": r.scores.as_ref().err(),
        "scores": r.scores.as_ref().map(|s| s.iter().map(|s| json!({
            "model": s.model,
            "fraction": s.fraction,
            "trained": s.trained,
            "decisions": s.decisions,
            "within": s.within,
            "mean_regret": s.mean_regret,
            "worst_regret": s.worst_regret,
            "failures": s.failures,
            "chosen": s.chosen.iter().map(|(m, c)| json!({"model": m, "folds": c})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>()).unwrap_or_default(),
    })
}

pub fn to_text(r: &RegionScores, method: &Method) -> String {
    let mut out = format!(
        "region '{}' of program '{}': {} feature vectors with every variant measured ({}); K = {}, {} shuffles\n",
        r.file.model,
        r.file.program,
        r.complete,
        r.file.variants.join(", "),
        method.k,
        method.shuffles
    );
    let aside = r.set_aside.describe();
    if !aside.is_empty() {
        out += &format!("  set aside (an earlier definition, not evaluated): {}\n", aside.join("; "));
    }
    match &r.scores {
        Err(e) => out += &format!("  not evaluated: {e}\n"),
        Ok(scores) => {
            let tol = method.tolerance * 100.0;
            let mut rows = vec![vec![
                "model".to_owned(),
                "trained on".into(),
                format!("within {tol:.0} % of the oracle"),
                "mean regret".into(),
                "worst regret".into(),
                "chosen by auto".into(),
            ]];
            for s in scores {
                let chosen = if s.chosen.len() > 1 || s.chosen.first().is_some_and(|c| c.0 != s.model) {
                    s.chosen.iter().take(3).map(|(m, c)| format!("{m} ×{c}")).collect::<Vec<_>>().join(", ")
                } else {
                    String::new()
                };
                rows.push(vec![
                    s.model.clone(),
                    format!("{:.0} %", s.fraction * 100.0),
                    format!("{:.1} % of {}", s.within * 100.0, s.decisions),
                    format!("{:.2} %", s.mean_regret * 100.0),
                    format!("{:.1} %", s.worst_regret * 100.0),
                    chosen,
                ]);
            }
            if let Some((kind, p)) = &r.stored {
                rows.push(vec![
                    format!("stored model ({kind}), as runs decide"),
                    "all (in-sample)".into(),
                    String::new(),
                    format!("{:.2} %", p.decided_regret * 100.0),
                    String::new(),
                    String::new(),
                ]);
            }
            if let Some((v, m, w)) = r.static_best {
                rows.push(vec![
                    format!("static best ({})", r.file.variants.get(v).map_or("?", String::as_str)),
                    "—".into(),
                    format!("{:.1} %", w * 100.0),
                    format!("{:.2} %", m * 100.0),
                    String::new(),
                    String::new(),
                ]);
            }
            out += &table(&rows, 2);
        }
    }
    out
}
