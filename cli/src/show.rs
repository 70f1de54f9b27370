//! `ompadapt show REGION`: what a region learned, as text, JSON and a picture.
//!
//! The region is what its newest data says (`store::definition`): its variants, features and
//! location, only that definition's measurements, and what was set aside. Decisions are the
//! runtime's own: with a stored model of the current variants, a region of the runtime loads
//! the data and installs that model exactly as a frozen run does (the decision a run makes);
//! without one, or with `--model`, the model fitted here decides. The model fitted here (the
//! stored model's kind, `--model`, else `auto`) is shown with its cross-validated regret.

use std::path::PathBuf;

use anyhow::Result;
use ompadapt_plot as plot;
use ompadapt_rt::ctx::MAX_FEATURES;
use ompadapt_rt::model::payoff::{self, Payoff};
use ompadapt_rt::model::{self, Fitted, ModelChoice, TrainingSet};
use ompadapt_rt::region::{Region, RegionBuilder};
use ompadapt_rt::spec::RegionDescriptor;
use ompadapt_rt::store::{self as rt_store, DataFile, ModelRecord};
use serde_json::{json, Value};

use crate::store;

mod axes;
mod figure;
use axes::Axes;
pub use figure::RegionFigure;

/// A region's data and a model fitted on it.
pub struct Learned {
    /// Where the region lives in the store.
    pub stored: store::Stored,
    pub file: DataFile,
    pub costs: TrainingSet,
    pub asked: ModelChoice,
    pub fitted: Fitted,
    /// The stored model as a run uses it (None: no stored model of the current variants, or
    /// `--model` asked for another).
    pub runtime: Option<Region>,
}

/// Seed of every fit the command makes (forests and selection are reproducible).
pub const SEED: u64 = 1;

/// A region of the runtime with the stored data of `stored`'s current definition, deciding
/// with its stored model `m` as a frozen run does.
fn as_a_run_decides(stored: &store::Stored, m: &ModelRecord) -> Option<Region> {
    let f = &stored.file;
    let mut spec = RegionDescriptor::new(f.model.clone(), f.loc.clone(), f.variants.clone());
    spec.features = f.features.clone();
    let region = RegionBuilder::new().build(spec);
    rt_store::absorb_saved(&region, &stored.merged);
    rt_store::install_stored(&region, m).then_some(region)
}

impl Learned {
    /// Without `model`, the stored model as a run loads it (nothing is refitted); with `model`,
    /// or without a stored model of the current variants, `model` (else `auto`) fitted on the
    /// region's data.
    pub fn fit(stored: store::Stored, model: Option<ModelChoice>) -> Result<Learned> {
        let file = stored.file.clone();
        let costs = store::costs(&file)?;
        let runtime = if model.is_none() { file.model_trained.as_ref().and_then(|m| as_a_run_decides(&stored, m)) } else { None };
        let kind = file.model_trained.as_ref().and_then(|m| ModelChoice::from_description(&m.kind));
        let asked = model.or(kind).unwrap_or(ModelChoice::Auto);
        let fitted = match runtime.as_ref().and_then(|r| r.trained()) {
            Some(t) => Fitted { model: t.predictor.compiled(), chosen: t.chosen.clone(), estimate: None, note: t.note.clone() },
            None => model::train_costs(asked, &costs, SEED)
                .map_err(|e| anyhow::anyhow!("region '{}': training {} failed: {e}", file.model, asked.describe()))?,
        };
        Ok(Learned { stored, file, costs, asked, fitted, runtime })
    }

    /// The decision for `x`: the stored model's as a run makes it, else the model fitted here.
    pub fn decide(&self, x: &[f64]) -> usize {
        if let Some(d) = self.runtime.as_ref().and_then(|r| r.decide(x)) {
            return d;
        }
        let mut p = [0.0; MAX_FEATURES];
        for (d, s) in p.iter_mut().zip(x) {
            *d = *s;
        }
        self.fitted.model.predict(&p)
    }

    /// What decides in the table and the picture, in words; where the region settles on the
    /// program's own variant (a run's rule, `region::own`), that is said after it, with why.
    pub fn decided_by(&self) -> String {
        let by = match (&self.runtime, self.file.model_trained.as_ref().map(|m| m.parameters.is_some())) {
            (Some(_), Some(true)) => "the stored model, as a run uses it",
            (Some(_), _) => "the stored model's decisions refitted as a run does (a file of an earlier runtime: no parameters)",
            (None, _) => "the model fitted here",
        };
        let settled = self.runtime.as_ref().and_then(|r| r.trained().and_then(|t| r.own_note(&t)));
        match settled {
            Some(note) => format!("{by}; {note}"),
            None => by.to_owned(),
        }
    }

    pub fn feature_name(&self, j: usize) -> String {
        self.file.features.get(j).cloned().unwrap_or_else(|| format!("f{j}"))
    }

    pub fn variant_name(&self, v: usize) -> String {
        self.file.variants.get(v).cloned().unwrap_or_else(|| format!("v{v}"))
    }

    pub fn model_text(&self) -> String {
        self.fitted.model.render(&|j| self.feature_name(j), &|v| self.variant_name(v), 2)
    }

    /// The decisions against always running the best single variant.
    pub fn payoff(&self) -> Option<Payoff> {
        let c = &self.costs;
        let times: Vec<Vec<f64>> = (0..c.n()).map(|i| c.times(i).to_vec()).collect();
        let decisions: Vec<usize> = (0..c.n()).map(|i| self.decide(c.row(i))).collect();
        payoff::payoff(&times, &decisions).filter(|_| c.k > 1)
    }

    /// Rows sorted by their features, for tables.
    pub fn order(&self) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..self.costs.n()).collect();
        idx.sort_by(|&a, &b| self.costs.row(a).partial_cmp(self.costs.row(b)).unwrap_or(std::cmp::Ordering::Equal));
        idx
    }

    pub fn to_json(&self) -> Value {
        let est = self
            .fitted
            .estimate
            .as_ref()
            .map(|e| json!({"mean_regret": e.mean_regret, "within5": e.within5, "decisions": e.decisions, "folds": e.folds}));
        let vectors: Vec<Value> = self
            .order()
            .into_iter()
            .map(|i| {
                let times: serde_json::Map<String, Value> = self
                    .costs
                    .times(i)
                    .iter()
                    .enumerate()
                    .map(|(v, t)| (self.variant_name(v), if t.is_finite() { json!(t) } else { Value::Null }))
                    .collect();
                json!({
                    "features": &self.costs.row(i)[..self.file.features.len().clamp(1, self.costs.p)],
                    "times_ns": times,
                    "best": self.variant_name(self.costs.y[i] as usize),
                    "decision": self.variant_name(self.decide(self.costs.row(i))),
                })
            })
            .collect();
        json!({
            "program": self.file.program,
            "region": self.file.model,
            "directory": self.stored.rel(),
            "location": self.file.loc,
            "features": self.file.features,
            "variants": self.file.variants,
            "set_aside": store::summary(&self.stored).set_aside,
            "same_team": store::same_team(&self.file).into_iter().map(|(g, team)| json!({"variants": g, "team": team})).collect::<Vec<_>>(),
            "stored_model": self.file.model_trained.as_ref().map(store::model_json),
            "decided_by": self.decided_by(),
            // without a stored model of the current variants a frozen run runs the first
            "frozen_run_variant": self.file.model_trained.is_none().then(|| self.variant_name(0)),
            "model": {
                "asked": self.asked.describe(),
                "chosen": self.fitted.chosen.describe(),
                "text": self.model_text(),
                "estimate": est,
                "note": self.fitted.note,
            },
            "vectors": vectors,
            "payoff": self.payoff(),
        })
    }

    /// The region's definition, what was set aside, and its data.
    fn definition_text(&self) -> String {
        let f = &self.file;
        let s = store::summary(&self.stored);
        let mut out = format!("region '{}' of program '{}' ({})\n", f.model, f.program, if f.loc.is_empty() { "?" } else { &f.loc });
        out += &format!("  features: {}   variants: {}\n", f.features.join(", "), f.variants.join(", "));
        if let Some(d) = &self.stored.earlier {
            out += &format!(
                "  earlier definition (older data): {}; features: {}   variants: {}\n",
                if d.loc.is_empty() { "?" } else { &d.loc },
                d.features.join(", "),
                d.variants.join(", ")
            );
        }
        out += &format!(
            "  data: {} measurements on {} feature vectors ({} with every variant measured), {} executions chosen by a model, {} files\n",
            s.samples, s.feature_vectors, s.complete_vectors, s.monitored_executions, s.files
        );
        for (group, team) in store::same_team(f) {
            out += &format!("  one team: {} ran {team} in every recorded run: a measurement of one counts for all\n", group.join(", "));
        }
        let aside = s.set_aside.describe();
        if !aside.is_empty() {
            out += &format!("  set aside (not counted, not used): {}\n", aside.join("; "));
        }
        out
    }

    /// The stored model: what it is, where it came from, whether a run uses it.
    fn stored_model_text(&self) -> String {
        let a = &self.stored.assessment;
        let mut out = String::new();
        match (&self.file.model_trained, &a.other_model) {
            (Some(m), _) => {
                out += &format!("  stored model: {}, {}, on {} vectors\n", m.kind, ModelRecord::origin_text(&m.origin), m.labels.len());
                if let Some(why) = &m.note {
                    out += &format!("  (the measured table decides: {why})\n");
                }
                for l in m.text.lines() {
                    out += &format!("    {l}\n");
                }
            }
            (None, Some(m)) => {
                out += &format!(
                    "  stored model: none of the current variants (the saved {}, {}, decides among {}: a run does not use it; it trains its own, a frozen run runs '{}')\n",
                    m.kind,
                    ModelRecord::origin_text(&m.origin),
                    m.variants.join(", "),
                    self.variant_name(0)
                )
            }
            (None, None) => out += "  stored model: none (no run or `ompadapt train` has trained this region yet)\n",
        }
        out
    }

    /// The model fitted here, with its cross-validated regret.
    fn fitted_text(&self) -> String {
        let mut out = format!("  model fitted here: {}", self.fitted.chosen.describe());
        if self.asked != self.fitted.chosen {
            out += &format!(" (asked for: {})", self.asked.describe());
        }
        if let Some(e) = &self.fitted.estimate {
            out += &format!(
                "; cross-validated on {} vectors: mean regret {:.2} %, {:.0} % within 5 % of the best",
                e.decisions,
                e.mean_regret * 100.0,
                e.within5 * 100.0
            );
        }
        if let Some(why) = &self.fitted.note {
            out += &format!("\n  (the measured table decides: {why})");
        }
        out + "\n" + &self.model_text()
    }

    pub fn to_text(&self) -> String {
        let f = &self.file;
        let mut out = self.definition_text();
        out += &self.stored_model_text();
        if self.runtime.is_none() {
            out += &self.fitted_text();
        }
        out += &format!("  decisions: {}\n", self.decided_by());
        // the table
        let p = f.features.len().clamp(1, self.costs.p);
        let mut header: Vec<String> = (0..p).map(|j| self.feature_name(j)).collect();
        header.extend(f.variants.iter().cloned());
        header.push("best".into());
        header.push("decision".into());
        let mut rows = vec![header];
        for i in self.order() {
            let mut r: Vec<String> = self.costs.row(i)[..p]
                .iter()
                .enumerate()
                .map(|(j, &x)| ompadapt_rt::feature_grid::shown(&self.feature_name(j), x, &plot::short))
                .collect();
            r.extend(self.costs.times(i).iter().map(|&t| plot::time(t)));
            r.push(self.variant_name(self.costs.y[i] as usize));
            let d = self.decide(self.costs.row(i));
            r.push(format!("{}{}", self.variant_name(d), if d == self.costs.y[i] as usize { "" } else { " *" }));
            rows.push(r);
        }
        out += &table(&rows, 2);
        if let Some(p) = self.payoff() {
            out += &format!("  adaptation: {}\n", p.describe(&|v| self.variant_name(v), &|t| plot::time(t)));
        }
        out
    }
}

/// Left-aligned columns, two spaces apart, indented.
pub fn table(rows: &[Vec<String>], indent: usize) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> = (0..cols).map(|c| rows.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for r in rows {
        let line: Vec<String> = r.iter().enumerate().map(|(c, s)| format!("{s:<w$}", w = width[c])).collect();
        out += &format!("{}{}\n", " ".repeat(indent), line.join("  ").trim_end());
    }
    out
}

/// `show`: text (or JSON) on stdout, the picture where asked.
pub fn run(learned: &Learned, svg: Option<PathBuf>, png: Option<PathBuf>, axis: Option<&str>, as_json: bool) -> Result<()> {
    let f = &learned.file;
    let axis = axis
        .map(|a| {
            f.features
                .iter()
                .position(|n| n == a)
                .or_else(|| a.parse::<usize>().ok().filter(|&j| j < learned.costs.p))
                .ok_or_else(|| anyhow::anyhow!("--axis {a}: region '{}' has features ({})", f.model, f.features.join(", ")))
        })
        .transpose()?;
    let fig = RegionFigure::new(learned, axis)?;
    if let Some(svg) = &svg {
        plot::write(svg, png.as_deref(), fig.layout().size(), &fig)?;
    } else if png.is_some() {
        anyhow::bail!("--png needs --svg (the picture is always written as SVG too)");
    }
    if as_json {
        let mut doc = learned.to_json();
        let a = fig.axes;
        doc["picture"] = json!({
            "svg": svg.as_ref().map(|p| p.display().to_string()),
            "png": png.as_ref().map(|p| p.display().to_string()),
            // what the decisions are drawn over: a map over x and y, a band along x, or none
            "decisions": a.kind(),
            "x": learned.feature_name(a.x()),
            "y": a.y().map(|j| learned.feature_name(j)),
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", learned.to_text());
        if let Some(svg) = &svg {
            let l = learned;
            let over = match fig.axes {
                Axes::Map { x, y } => format!("decisions over {} × {}", l.feature_name(x), l.feature_name(y)),
                Axes::Band { x } => format!("decisions along {}; no other feature varies apart from it", l.feature_name(x)),
                Axes::Constant { .. } => "no feature varies: no decision map".to_owned(),
            };
            println!("  picture: {}{} ({over})", svg.display(), png.map(|p| format!(", {}", p.display())).unwrap_or_default());
        }
    }
    Ok(())
}
