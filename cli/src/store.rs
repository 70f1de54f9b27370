//! The store as the command sees it: the merged view of every region (the runtime's own
//! reader, `store::export_merged`: takes the shared lock, moves and writes nothing), finding
//! one region by name, and the numbers `list` prints.
//!
//! A region is what its newest data says it is (`store::definition`): `list`, `show`,
//! `evaluate` and `train` see that definition's data only, and say what they set aside (an
//! earlier definition's variants, files of other features, a model of other variants).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use ompadapt_abi::names::closest;
use ompadapt_abi::store::RegionPath;
use ompadapt_evaluate::costs_from_file;
use ompadapt_rt::model::{ModelChoice, TrainingSet};
use ompadapt_rt::safe_fs::{Dir, Kind};
use ompadapt_rt::store::{self, Assessment, DataFile, Definition, Merged, ModelRecord};
use ompadapt_rt::team::TeamRecord;
use serde::Serialize;
use serde_json::{json, Value};

/// One region of the store and where it lives (directory names below the root: the runtime
/// may key a program's directory by more than its name).
#[derive(Clone, Debug)]
pub struct Stored {
    pub program_dir: String,
    pub region_dir: String,
    /// The current definition's data (the newest data's variants, features and location).
    pub file: DataFile,
    /// Everything the region's folder holds, merged (what an archive carries).
    pub all: DataFile,
    /// What was set aside, and the stored model of the current variants.
    pub assessment: Assessment,
    /// The definition before the newest, while the files still show it.
    pub earlier: Option<Definition>,
    /// The merged data, as a run loads it.
    pub merged: Merged,
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
            for merged in store::export_merged(root, Some(&p), Some(&r)) {
                let view = store::assessment::view(&merged);
                let s = Stored {
                    program_dir: p.clone(),
                    region_dir: r.clone(),
                    file: view.file,
                    all: merged.exported(),
                    assessment: view.assessment,
                    earlier: view.earlier,
                    merged,
                };
                if program.is_none_or(|want| s.program_is(want)) {
                    out.push(s);
                }
            }
        }
    }
    Ok(out)
}

/// Region folders (`program/region`) that hold data files of which none could be read (each
/// was named in a warning when read): `list` says they exist rather than "no saved regions".
pub fn unreadable_folders(root: &Path, readable: &[Stored]) -> Vec<String> {
    let Ok(store) = Dir::open(root, false) else { return Vec::new() };
    let mut out = Vec::new();
    for p in subdirs(&store) {
        let Ok(pdir) = store.sub(&p, false) else { continue };
        for r in subdirs(&pdir) {
            let has_data = pdir
                .sub(&r, false)
                .and_then(|d| d.entries())
                .is_ok_and(|e| e.iter().any(|(n, k)| *k == Kind::File && n.ends_with(".json")));
            if has_data && !readable.iter().any(|s| s.program_dir == p && s.region_dir == r) {
                out.push(format!("{p}/{r}"));
            }
        }
    }
    out
}

/// The region `name` (`region` or `program/region`) of the store.
pub fn region(root: &Path, name: &str) -> Result<Stored> {
    let RegionPath { program, region } = RegionPath::parse(name);
    let all = regions(root, program)?;
    if let (Some(program), true) = (program, all.is_empty()) {
        // no region of that program: a misspelt program name
        let everything = regions(root, None)?;
        let mut programs: Vec<&str> = everything.iter().flat_map(|s| [s.program_dir.as_str(), s.file.program.as_str()]).collect();
        programs.sort_unstable();
        programs.dedup();
        let meant = closest(program, &programs).map_or(String::new(), |m| format!("; did you mean '{m}/{region}'?"));
        bail!("no program '{program}' in {}{meant} (`ompadapt list` shows what is there)", root.display());
    }
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
    /// Feature vectors with every variant measured (what evaluation can score); a variant
    /// counts as measured where one that ran the same team in every recorded run was.
    pub complete_vectors: usize,
    /// Variants that ran one team in every recorded run: a measurement of one counts for all.
    pub same_team: Vec<Vec<String>>,
    /// Executions the model chose (after training).
    pub monitored_executions: u64,
    /// The stored model of the current variants (`None`: none stored), and where it came
    /// from (`ModelRecord::origin`).
    pub model: Option<String>,
    pub model_origin: Option<String>,
    pub files: usize,
    /// What belongs to another definition and is not counted above.
    pub set_aside: SetAside,
}

/// What a region's data holds that does not belong to its current definition.
#[derive(Serialize, Debug, Clone, Default)]
pub struct SetAside {
    /// The definition before the newest (location, features, variants), while the files
    /// still show one.
    pub earlier: Option<Value>,
    /// Measurements of variants the region no longer has, and their names.
    pub measurements_of_removed_variants: u64,
    pub removed_variants: Vec<String>,
    /// Files recorded with other feature names, and their measurements.
    pub files_of_other_features: usize,
    pub measurements_of_other_features: u64,
    /// The stored model when it was trained on other variants (kind, variants, origin).
    pub model: Option<Value>,
}

impl SetAside {
    fn of(s: &Stored) -> SetAside {
        let a = &s.assessment;
        SetAside {
            earlier: s.earlier.as_ref().map(|d| json!({"location": d.loc, "features": d.features, "variants": d.variants})),
            measurements_of_removed_variants: a.unused,
            removed_variants: a.unused_variants.clone(),
            files_of_other_features: a.stale_files,
            measurements_of_other_features: a.stale_measurements,
            model: a.other_model.as_ref().map(model_json),
        }
    }

    /// What was set aside, in words (empty: nothing).
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.measurements_of_removed_variants > 0 {
            out.push(format!(
                "{} measurements of variants it no longer has ({})",
                self.measurements_of_removed_variants,
                self.removed_variants.join(", ")
            ));
        }
        if self.files_of_other_features > 0 {
            out.push(format!(
                "{} measurements in {} files recorded with other features",
                self.measurements_of_other_features, self.files_of_other_features
            ));
        }
        out
    }
}

/// A stored model as `show` and `list` give it: kind, origin, variants, training set size.
pub fn model_json(m: &ModelRecord) -> Value {
    json!({
        "kind": m.kind,
        "origin": m.origin,
        "origin_text": ModelRecord::origin_text(&m.origin),
        "variants": m.variants,
        "labels": m.labels.len(),
        "text": m.text,
        "note": m.note,
    })
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
        same_team: same_team(f).into_iter().map(|(names, _)| names).collect(),
        monitored_executions: f.monitored.iter().map(|m| m.count).sum(),
        model: f.model_trained.as_ref().map(|m| m.kind.clone()),
        model_origin: f.model_trained.as_ref().map(|m| m.origin.clone()),
        files: f.merged_parts.len(),
        set_aside: SetAside::of(s),
    }
}

/// The variants of `f` that ran one team in every run its data records (a measurement of one
/// counts for all, see `TeamRecord::stand_ins`), each group with that team in words.
pub fn same_team(f: &DataFile) -> Vec<(Vec<String>, String)> {
    let stand_ins = TeamRecord::stand_ins(&f.teams, &f.variants);
    let mut grouped = vec![false; f.variants.len()];
    let mut out = Vec::new();
    for (u, ins) in stand_ins.iter().enumerate() {
        if grouped[u] || ins.is_empty() {
            continue;
        }
        let mut group = vec![u];
        group.extend(ins.iter().copied().filter(|&w| !grouped[w]));
        group.sort_unstable();
        for &w in &group {
            grouped[w] = true;
        }
        let teams: Vec<String> = TeamRecord::resolutions(&f.teams, &f.variants[u])
            .into_iter()
            .map(|(team, t)| format!("{t} thread{} with a team of {team}", if t == 1 { "" } else { "s" }))
            .collect();
        out.push((group.into_iter().map(|w| f.variants[w].clone()).collect(), teams.join(", ")));
    }
    out
}

/// The store directory: `--dir`, else `$OMPADAPT_DIR`, else `./.ompadapt` (as the runtime).
pub fn root(dir: Option<PathBuf>) -> PathBuf {
    dir.unwrap_or_else(|| PathBuf::from(".ompadapt"))
}

/// The region's data as per-variant times (the runtime's robust time: lower quartiles), or an error saying why there is nothing
/// to learn from.
pub fn costs(f: &DataFile) -> Result<TrainingSet> {
    costs_from_file(f).map_err(anyhow::Error::msg).with_context(|| format!("region '{}' has no usable measurements", f.model))
}

/// Parses `--model` (the spellings of `OMPADAPT_MODEL`).
pub fn parse_model(s: &str) -> Result<ModelChoice> {
    ModelChoice::parse_override(s).map_err(|e| anyhow::anyhow!("--model {s}: {e}"))
}
