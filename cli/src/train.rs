//! `ompadapt train REGION --model M`: trains a model offline on the region's stored
//! measurements and stores it as the region's model (the record a run with
//! `OMPADAPT_FROZEN=1` uses), in a new part file: the runtime's own data is never rewritten.
//!
//! The stored record is the model's parameters and its training set (each measured vector with
//! the model's decision) plus its description, text, variants and origin (`offline`), as the
//! runtime stores what it trains; a frozen run, a later run and `show` decide with those
//! parameters, not a refit. The region's current definition is trained on (the newest data's
//! variants: `store::definition`).

use std::path::Path;

use anyhow::{anyhow, Result};
use ompadapt_rt::store::{self, DataFile, LabelRecord, ModelRecord, Writer};
use serde_json::json;

use crate::archive::host;
use crate::show::Learned;

/// Writes `learned`'s model as the region's stored model; returns the file written.
pub fn store_model(root: &Path, learned: &Learned) -> Result<String> {
    let f = &learned.file;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    let c = &learned.costs;
    let p = f.features.len().min(c.p);
    let labels = (0..c.n())
        .map(|i| LabelRecord { features: c.row(i)[..p].to_vec(), variant: learned.variant_name(learned.decide(c.row(i))) })
        .collect();
    let record = ModelRecord {
        kind: learned.fitted.chosen.describe(),
        trained_unix_ns: now,
        labels,
        text: learned.fitted.model.render(&|j| learned.feature_name(j), &|v| learned.variant_name(v), 0),
        variants: f.variants.clone(),
        origin: store::OFFLINE.into(),
        parameters: ompadapt_rt::model::stored::parameters(&learned.fitted.model),
        // trained offline on the store's merged data, not on a run's measurement table: a run
        // uses it and trains its own at exit
        trained_on: None,
        estimate: learned.fitted.estimate.clone().filter(ompadapt_rt::model::Estimate::is_finite),
        note: learned.fitted.note.clone(),
        // a model trained on request decides as trained: a frozen run, a later run's start and
        // `show` do not settle it on the program's own variant (what `train` prints is what
        // they decide)
        own_variant: Some(ompadapt_rt::region::OwnJudgement::Stands),
    };
    let run = format!("{now}-ompadapt-train-{}", std::process::id());
    let part = DataFile {
        format: store::FORMAT.into(),
        version: store::VERSION,
        program: f.program.clone(),
        program_id: f.program_id.clone(),
        model: f.model.clone(),
        loc: f.loc.clone(),
        features: f.features.clone(),
        variants: f.variants.clone(),
        written_unix_ns: now,
        writer: Writer { host: host(), pid: std::process::id(), rank: None, size: None, run: run.clone() },
        model_trained: Some(record),
        ..Default::default()
    };
    let rdir = learned.stored.open(root)?;
    let name = format!("part-{run}-0.json");
    rdir.write_atomic(&name, &serde_json::to_vec_pretty(&part)?)
        .map_err(|e| anyhow!("cannot write {}: {e}", rdir.join(&name).display()))?;
    Ok(rdir.join(&name).display().to_string())
}

pub fn run(root: &Path, learned: &Learned, spelling: &str, save: bool, as_json: bool) -> Result<()> {
    let file = if save { Some(store_model(root, learned)?) } else { None };
    let kind = learned.fitted.chosen.describe();
    if as_json {
        let mut doc = learned.to_json();
        doc["stored_as"] = json!(file);
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    println!(
        "region '{}' of program '{}': trained {} on {} feature vectors",
        learned.file.model,
        learned.file.program,
        kind,
        learned.costs.n()
    );
    if let Some(e) = &learned.fitted.estimate {
        println!(
            "  chosen by cross-validation: mean regret {:.2} %, {:.0} % of held-out vectors within 5 % of the best",
            e.mean_regret * 100.0,
            e.within5 * 100.0
        );
    }
    print!("{}", learned.model_text());
    match file {
        Some(f) => println!(
            "  stored as the region's model: {f}\n  a run with OMPADAPT_FROZEN=1 uses it (a run that trains stores its own, which then replaces it; to train {spelling} there too, run with OMPADAPT_MODEL='{}:{spelling}')",
            learned.file.model
        ),
        None => println!("  not stored (--dry-run)"),
    }
    Ok(())
}
