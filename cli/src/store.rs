//! The store as the command sees it: the merged view of every region (the runtime's own
//! reader, `store::export`: takes the shared lock, moves and writes nothing), finding one
//! region by name, and the numbers `list` prints.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use ompadapt_abi::names::closest;
use ompadapt_abi::store::RegionPath;
use ompadapt_evaluate::costs_from_file;
use ompadapt_rt::model::{self, ModelChoice, TrainingSet};
use ompadapt_rt::safe_fs::{Dir, Kind};
use ompadapt_rt::store::{self, DataFile};
use serde::Serialize;

/// One region of the store and where it lives (directory names below the root: the runtime
/// may key a program's directory by more than its name).
#[derive(Clone, Debug)]
pub struct Stored {
    pub program_dir: String,
    pub region_dir: String,
    pub file: DataFile,
}

impl Stored {
    /// `program_dir/region_dir`.
    pub fn rel(&self) -> String {
        format!("{}/{}", self.program_dir, self.region_dir)
    }

    /// The region's directory, opened without following links.
    pub fn open(&self, root: &Path) -> Result<Dir> {
        Dir::open(root, false)
            .and_then(|d| d.sub(&self.program_dir, false))
            .and_then(|d| d.sub(&self.region_dir, false))
            .map_err(|e| anyhow::anyhow!("region '{}': {e}", self.file.model))
    }

    fn program_is(&self, want: &str) -> bool {
        self.program_dir == want || self.file.program == want || store::sanitize(&self.file.program) == want
    }

    fn region_is(&self, want: &str) -> bool {
        self.region_dir == want || self.file.model == want
    }
}

fn subdirs(d: &Dir) -> Vec<String> {
    let mut v: Vec<String> =
        d.entries().unwrap_or_default().into_iter().filter(|(n, k)| *k == Kind::Dir && !n.starts_with('.')).map(|(n, _)| n).collect();
    v.sort();
    v
}

/// Every region under `root` (optionally of one program: its name or its directory), merged by
/// the runtime's reader.
pub fn regions(root: &Path, program: Option<&str>) -> Result<Vec<Stored>> {
    if !root.is_dir() {
        bail!("{} is not a store directory (set --dir or OMPADAPT_DIR)", root.display());
    }
    let store = Dir::open(root, false).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut out = Vec::new();
    for p in subdirs(&store) {
        let Ok(pdir) = store.sub(&p, false) else { continue };
        for r in subdirs(&pdir) {
            for file in store::export(root, Some(&p), Some(&r)) {
                let s = Stored { program_dir: p.clone(), region_dir: r.clone(), file };
                if program.is_none_or(|want| s.program_is(want)) {
                    out.push(s);
                }
            }
        }
    }
    Ok(out)
}

/// The region `name` (`region` or `program/region`) of the store.
pub fn region(root: &Path, name: &str) -> Result<Stored> {
    let RegionPath { program, region } = RegionPath::parse(name);
    let all = regions(root, program)?;
    let names: Vec<&str> = all.iter().map(|s| s.file.model.as_str()).collect();
    let meant = closest(region, &names).map_or(String::new(), |m| format!("; did you mean '{m}'?"));
    let mut hits: Vec<Stored> = all.into_iter().filter(|s| s.region_is(region)).collect();
    match hits.len() {
        0 => bail!("no region '{name}' in {}{meant} (`ompadapt list` shows what is there)", root.display()),
        1 => Ok(hits.remove(0)),
        _ => bail!(
            "region '{region}' exists in several programs ({}): name it as PROGRAM/{region}",
            hits.iter().map(|s| s.program_dir.as_str()).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// What `list` says about one region.
#[derive(Serialize, Debug, Clone)]
pub struct Summary {
    pub program: String,
    /// What identifies the program (its executable's canonical path, or `OMPADAPT_PROGRAM`).
    pub program_id: String,
    /// Where it lives below the store's root.
    pub directory: String,
    pub region: String,
    pub location: String,
    pub features: Vec<String>,
    pub variants: Vec<String>,
    /// Exploration measurements (all of them, also those older than the kept window).
    pub samples: u64,
    /// Distinct feature vectors measured.
    pub feature_vectors: usize,
    /// Feature vectors with every variant measured (what evaluation can score).
    pub complete_vectors: usize,
    /// Executions the model chose (after training).
    pub monitored_executions: u64,
    /// The model the runtime last trained (`None`: none stored).
    pub model: Option<String>,
    pub files: usize,
}

pub fn summary(s: &Stored) -> Summary {
    let f = &s.file;
    let costs = costs_from_file(f).ok();
    Summary {
        program: f.program.clone(),
        program_id: f.program_id.clone(),
        directory: s.rel(),
        region: f.model.clone(),
        location: f.loc.clone(),
        features: f.features.clone(),
        variants: f.variants.clone(),
        samples: f.samples.iter().map(|s| s.count).sum(),
        feature_vectors: costs.as_ref().map_or(0, TrainingSet::n),
        complete_vectors: costs.as_ref().map_or(0, |c| (0..c.n()).filter(|&i| c.complete(i)).count()),
        monitored_executions: f.monitored.iter().map(|m| m.count).sum(),
        model: f.model_trained.as_ref().map(|m| m.kind.clone()),
        files: f.merged_parts.len(),
    }
}

/// The store directory: `--dir`, else `$OMPADAPT_DIR`, else `./.ompadapt` (as the runtime).
pub fn root(dir: Option<PathBuf>) -> PathBuf {
    dir.unwrap_or_else(|| PathBuf::from(".ompadapt"))
}

/// The model choice a stored model's description names (`ModelChoice::describe`), so that
/// `show` refits what the runtime trained. `None` for descriptions this version does not know.
pub fn choice_from_description(kind: &str) -> Option<ModelChoice> {
    let nums = |s: &str| -> Vec<usize> {
        s.split(|c: char| !c.is_ascii_digit()).filter(|t| !t.is_empty()).filter_map(|t| t.parse().ok()).collect()
    };
    if kind.starts_with("decision tree") {
        return nums(kind).first().map(|&d| ModelChoice::Tree { max_depth: d });
    }
    if kind.starts_with("random forest") {
        let n = nums(kind);
        return (n.len() == 2).then(|| ModelChoice::Forest { trees: n[0], max_depth: n[1] });
    }
    let fixed = [ModelChoice::LogisticRegression, ModelChoice::Auto, ModelChoice::CostSelected];
    if let Some(c) = fixed.into_iter().find(|c| c.describe() == kind) {
        return Some(c);
    }
    // cost forms: every family, per category or not, piecewise depth 0..=3
    for family in model::Family::ALL {
        for depth in 0..=3u8 {
            for cat in [false, true] {
                let mut form = model::CostForm::new(family, depth);
                form.by_category = cat;
                if form.describe() == kind {
                    return Some(ModelChoice::Cost(form));
                }
            }
        }
    }
    None
}

/// The region's data as per-variant times (medians), or an error saying why there is nothing
/// to learn from.
pub fn costs(f: &DataFile) -> Result<TrainingSet> {
    costs_from_file(f).map_err(anyhow::Error::msg).with_context(|| format!("region '{}' has no usable measurements", f.model))
}

/// Parses `--model` (the spellings of `OMPADAPT_MODEL`).
pub fn parse_model(s: &str) -> Result<ModelChoice> {
    ModelChoice::parse_override(s).map_err(|e| anyhow::anyhow!("--model {s}: {e}"))
}
