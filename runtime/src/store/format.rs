//! The data file format (version 2): what one file holds, and reading and checking one file.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::safe_fs::{self, Dir};

/// `"format"` of every data file.
pub const FORMAT: &str = "ompadapt-samples";
/// `"version"` written and read by this runtime.
pub const VERSION: u32 = 2;

#[derive(Deserialize)]
pub(super) struct Header {
    pub(super) format: Option<String>,
    pub(super) version: Option<u32>,
}

/// One data file (a part or `merged.json`).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct DataFile {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// Program (executable name).
    pub program: String,
    /// What identifies the program (its executable's canonical path, or `OMPADAPT_PROGRAM`);
    /// the store keeps each identity's data apart (see [`crate::store`]).
    #[serde(default)]
    pub program_id: String,
    /// Region (model name).
    pub model: String,
    /// Source location of the region's directive.
    pub loc: String,
    /// Feature names (source text).
    pub features: Vec<String>,
    /// Variant names in declaration order.
    pub variants: Vec<String>,
    /// When the file was written (ns since the Unix epoch).
    pub written_unix_ns: u64,
    /// Who wrote it.
    pub writer: Writer,
    /// Written by runtimes that forgot everything on a drift (data ordered before the file
    /// was then obsolete). Read and ignored: a drift now supersedes per pair
    /// ([`SampleRecord::supersedes`]); never written.
    #[serde(default, skip_serializing)]
    pub reset: bool,
    /// (merged.json) the part files whose data it contains.
    #[serde(default)]
    pub merged_parts: Vec<String>,
    /// Exploration measurements.
    #[serde(default)]
    pub samples: Vec<SampleRecord>,
    /// Model-chosen executions (aggregates).
    #[serde(default)]
    pub monitored: Vec<MonitoredRecord>,
    /// Coarse mode: per run, the region's total time per feature vector.
    #[serde(default)]
    pub runs: Vec<RunRecord>,
    /// The last model trained.
    #[serde(default)]
    pub model_trained: Option<ModelRecord>,
    /// How a host region's team-size variants resolved in the runs whose data the file holds,
    /// one record per distinct resolution (absent in older files and for regions without
    /// them): variants that ran the same team in every recorded run are one measurement
    /// ([`crate::team::TeamRecord::stand_ins`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub teams: Vec<crate::team::TeamRecord>,
    /// Variants found unavailable in those runs, and why (distinct pairs, at most
    /// [`MAX_UNAVAILABLE`]): what `ompadapt evaluate` says of a variant never measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<UnavailableRecord>,
}

/// Distinct unavailable variants and reasons a file keeps.
pub const MAX_UNAVAILABLE: usize = 32;

/// A variant a run could not run, and why (as its warning said).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct UnavailableRecord {
    /// The variant's name.
    pub variant: String,
    /// Why it could not run.
    pub reason: String,
}

/// The process that wrote a file.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Writer {
    /// Host name.
    pub host: String,
    /// Process id.
    pub pid: u32,
    /// MPI world rank and size, when run under MPI with more than one process.
    pub rank: Option<u32>,
    /// MPI world size (with `rank`).
    pub size: Option<u32>,
    /// Run id (unique per process).
    pub run: String,
}

/// Measurements of one variant on one feature vector.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SampleRecord {
    /// The feature vector.
    pub features: Vec<f64>,
    /// The variant's name.
    pub variant: String,
    /// Measurements (≥ `times_ns.len() + cold_ns.len()`: older ones may have been dropped).
    pub count: u64,
    /// The most recent (warm) measurements, oldest first.
    pub times_ns: Vec<f64>,
    /// Cold measurements: the variant's first execution in its process (see `explore`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cold_ns: Vec<f64>,
    /// Taken after a drift: these measurements supersede the pair's earlier ones (which stay
    /// in the files and in `count`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub supersedes: bool,
}

/// Executions of one variant on one feature vector chosen by the model.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct MonitoredRecord {
    /// The feature vector.
    pub features: Vec<f64>,
    /// The variant's name.
    pub variant: String,
    /// Executions (all counted).
    pub count: u64,
    /// Sum of the timed executions' times.
    pub sum_ns: u64,
    /// Executions timed (one in `OMPADAPT_SAMPLE`; absent in older files: all of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed: Option<u64>,
}

/// Coarse mode: one run's total time of the region on one feature vector.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// The run's id ([`Writer::run`]).
    pub run: String,
    /// The feature vector.
    pub features: Vec<f64>,
    /// The variant the run pinned for it.
    pub variant: String,
    /// Total time of the region's executions on it in that run, ns.
    pub total_ns: u64,
    /// The region's executions on it in that run.
    pub executions: u64,
}

/// A trained model: its parameters, its training set (and its text, for people).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ModelRecord {
    /// e.g. `decision tree (max depth 2)`: the model fitted (`ModelChoice::describe`), which a
    /// reader refits on `labels` only when there are no `parameters`.
    pub kind: String,
    /// When it was trained (ns since the Unix epoch).
    pub trained_unix_ns: u64,
    /// Its training rows.
    pub labels: Vec<LabelRecord>,
    /// The model as text.
    pub text: String,
    /// The variants it decides among (absent in older files: the file's variants, filled in
    /// when read). A model of another variant set is not used (see `store::definition`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<String>,
    /// Where it came from ([`ModelRecord::origin_text`]; absent in older files).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub origin: String,
    /// The model's parameters (`model::stored`): what every later reader decides with. Absent
    /// in older files and for a model JSON cannot hold: those readers refit `labels` with `kind`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<crate::model::Compiled>,
    /// The fingerprint of the measurements it was trained on, 16 hex digits
    /// (`Region::data_fingerprint`): a run whose loaded data has the same one loads this model
    /// and trains nothing at start-up. Absent for a model no run of this runtime trained
    /// (`ompadapt train`, older files): a run then trains its own at exit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trained_on: Option<String>,
    /// For a selection (`auto`): the chosen model's cross-validated quality, as when trained.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<crate::model::Estimate>,
    /// Why the selection took the measured table (`ModelChoice::Table`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Whether the region settled on the program's own variant under this model, as the run
    /// that trained it judged (`region::own`): readers adopt it, so that a run, a frozen run
    /// and `ompadapt show` decide alike. Absent in older files and for models the rule does
    /// not judge: a reader judges itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_variant: Option<crate::region::OwnJudgement>,
}

/// `ModelRecord::origin` of a model `ompadapt train` stored.
pub const OFFLINE: &str = "offline";

impl ModelRecord {
    /// Where the model came from, in words, for a stored `origin` key: `online`, `retrained`,
    /// `explicit`, `loaded`, `exit`, `pooled` (a run trained it; see `Origin::key`), `offline`
    /// (`ompadapt train`).
    pub fn origin_text(origin: &str) -> String {
        match origin {
            "online" => "trained online in a run".into(),
            "retrained" => "retrained in a run on newly measured feature vectors".into(),
            "explicit" => "trained by an explicit train call in a run".into(),
            "loaded" => "trained at start-up of a run from the saved measurements".into(),
            "exit" => "trained at the exit of a run on the measurements saved with it".into(),
            "pooled" => "trained in a run on measurements pooled over MPI ranks".into(),
            OFFLINE => "trained offline by `ompadapt train`".into(),
            "" => "trained by a run of an earlier runtime".into(),
            other => format!("trained ({other})"),
        }
    }
}

/// One training row: a feature vector and its fastest variant.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LabelRecord {
    /// The feature vector.
    pub features: Vec<f64>,
    /// The fastest variant's name.
    pub variant: String,
}

impl DataFile {
    /// Checks the invariants serde cannot.
    pub(super) fn validate(&self) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!("format is '{}', not '{FORMAT}'", self.format));
        }
        let feats_ok = |f: &[f64]| f.len() <= crate::ctx::MAX_FEATURES && f.iter().all(|x| x.is_finite());
        for s in &self.samples {
            let retained = s.times_ns.len() as u64 + s.cold_ns.len() as u64;
            if !feats_ok(&s.features) || s.count < retained || s.times_ns.iter().chain(&s.cold_ns).any(|t| t.is_nan() || *t < 0.0) {
                return Err(format!("invalid sample for variant '{}'", s.variant));
            }
        }
        if self.monitored.iter().any(|m| !feats_ok(&m.features)) || self.runs.iter().any(|r| !feats_ok(&r.features)) {
            return Err("invalid feature vector".into());
        }
        if let Some(m) = &self.model_trained {
            if m.labels.iter().any(|l| !feats_ok(&l.features)) {
                return Err("invalid model label".into());
            }
        }
        Ok(())
    }
}

/// How a file failed to load.
#[derive(Debug, PartialEq)]
pub enum Damage {
    /// Not JSON, truncated, or breaks the format.
    Corrupt(String),
    /// Could not be read now (permissions, I/O error): left where it is, read next time.
    Unreadable(String),
    /// Another format version.
    Foreign(u32),
    /// Not read at all: a symbolic link, a special file, or larger than
    /// [`safe_fs::MAX_READ`]. `tag` names what it was (`symlink`, `special`, `oversized`),
    /// `why` says it (after the file's name).
    Refused {
        /// `symlink`, `special` or `oversized`.
        tag: &'static str,
        /// What it was, said after the file's name.
        why: String,
    },
}

impl From<safe_fs::Error> for Damage {
    fn from(e: safe_fs::Error) -> Damage {
        let tag = match &e {
            safe_fs::Error::Symlink { .. } => "symlink",
            safe_fs::Error::NotRegular(_) | safe_fs::Error::NotDirectory(_) => "special",
            safe_fs::Error::TooLarge { .. } => "oversized",
            safe_fs::Error::Io { err, .. } if err.kind() == std::io::ErrorKind::InvalidData => {
                return Damage::Corrupt(format!("cannot read it: {err}"))
            }
            safe_fs::Error::Io { err, .. } => return Damage::Unreadable(err.to_string()),
            _ => return Damage::Unreadable(e.reason()),
        };
        Damage::Refused { tag, why: e.reason() }
    }
}

/// Reads and checks the file `name` of `dir` (at most [`safe_fs::MAX_READ`] bytes, never
/// through a link).
pub fn read_file_in(dir: &Dir, name: &str) -> Result<DataFile, Damage> {
    parse(&dir.read(name, safe_fs::MAX_READ)?)
}

/// Reads and checks one file (see [`read_file_in`]).
pub fn read_file(path: &Path) -> Result<DataFile, Damage> {
    parse(&safe_fs::read_file(path, safe_fs::MAX_READ)?)
}

fn parse(bytes: &[u8]) -> Result<DataFile, Damage> {
    let text = std::str::from_utf8(bytes).map_err(|e| Damage::Corrupt(format!("not UTF-8 text: {e}")))?;
    // The whole file first: the header alone is read only when it does not parse (a newer
    // version whose body changed is recognised by it), not as a second pass over every file
    // a run loads.
    let f: DataFile = match serde_json::from_str(text) {
        Ok(f) => f,
        Err(e) => return Err(foreign(text).unwrap_or_else(|| Damage::Corrupt(e.to_string()))),
    };
    if f.format == FORMAT && f.version != VERSION {
        return Err(Damage::Foreign(f.version));
    }
    f.validate().map_err(Damage::Corrupt)?;
    Ok(f)
}

/// [`Damage::Foreign`] when `text`'s header names this format with another version.
fn foreign(text: &str) -> Option<Damage> {
    let h = serde_json::from_str::<Header>(text).ok()?;
    let v = h.version.filter(|&v| v != VERSION)?;
    (h.format.as_deref() == Some(FORMAT)).then_some(Damage::Foreign(v))
}
