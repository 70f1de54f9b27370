//! `ompadapt evaluate`: Georgakoudis et al.'s Adaptive-K evaluation (K-fold over the inputs, train
//! on 25/50/75 %, 10 shuffles) of one or more models on each region's stored data, with the
//! decision quality of the oracle's nearest static competitor (the single best variant) beside
//! it. The folds and the scoring are `ompadapt_evaluate`'s, the training the runtime's.

use anyhow::Result;
use ompadapt_evaluate::{adaptive_k, Method, Score};
use ompadapt_rt::model::{ModelChoice, TrainingSet};
use ompadapt_rt::store::DataFile;
use serde_json::{json, Value};

use crate::show::{table, Learned};
use ompadapt_rt::model::payoff::{self, Payoff};
use crate::store;

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
    let (complete, scores, sb) = match costs {
        Ok(c) => {
            let complete = (0..c.n()).filter(|&i| c.complete(i)).count();
            (complete, adaptive_k(&c, models, method), static_best(&c, method.tolerance))
        }
        Err(e) => (0, Err(format!("{e:#}")), None),
    };
    RegionScores { file: f, complete, scores, static_best: sb, set_aside, stored: stored_model }
}

pub fn to_json(r: &RegionScores, method: &Method) -> Value {
    json!({
        "program": r.file.program,
        "region": r.file.model,
        "complete_vectors": r.complete,
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
