//! What a region learned, kept across runs: per program and region, versioned JSON, written so
//! that any number of processes (MPI ranks, parallel test runs) can save at once without
//! losing a sample.
//!
//! # Layout
//!
//! ```text
//! $OMPADAPT_DIR/<program>/<region>/            (default ./.ompadapt; names sanitised)
//!     part-<run>-<seq>.json    what one process added in one save (the "delta")
//!     merged.json              parts merged by compaction
//!     .lock                    flock(2) lock file
//!     .tmp-*                   files being written (never read)
//!     *.corrupt-<t>, *.foreign-<t>, *.stale-<t>   files moved aside (never read, never deleted)
//! ```
//! A version-1 file of the first runtime (`<dir>/<program>/<region>.json`) is converted once
//! into `part-imported-v1.json` and renamed `<file>.imported-<t>`.
//! `<run>` is `<unix time ns>-<host>-<pid>` plus `-r<rank>` under MPI, so two processes never
//! write the same name; `<seq>` counts the saves of one process (the explicit `ompadapt_save`
//! and the exit handler each write only what is new since the previous save).
//!
//! # Why per-process files plus a lock (and not one file under a lock)
//! A writer never waits for another and never rewrites anybody's data: it writes a temporary
//! file in the same directory, fsyncs it and renames it to its unique name (atomic: a reader
//! sees the whole file or nothing). Loading reads `merged.json` and every part. Parts pile up,
//! so once a region has `OMPADAPT_COMPACT_AFTER` of them, the saving process takes the
//! exclusive lock, merges everything into a new `merged.json` (atomically, listing the parts
//! it contains in `merged_parts`), and only then deletes those parts. Loading takes the shared
//! lock, so it never sees a half-done compaction; a crash between the rename and the deletes
//! leaves parts that `merged_parts` tells the loader to skip. Parts written during a
//! compaction were not listed by it and stay. Nothing is ever lost or counted twice.
//!
//! # Format (version 2)
//! See [`DataFile`]. Variants are stored by name (adding or reordering variants keeps the
//! others' data). `samples` are exploration measurements (labels are computed from them),
//! `monitored` aggregates of executions the model chose, `runs` coarse-mode run totals, `model`
//! the training set of the last model trained (what `OMPADAPT_FROZEN=1` uses). `reset: true`
//! means the region drifted in that run: everything ordered before that part is obsolete.
//! `ompadapt-export` prints the merged view of a directory.
//!
//! # Damaged files
//! A file that does not parse (corrupt, truncated), has another format version, or breaks the
//! format's invariants is reported once (one stderr line naming the file and what to do),
//! renamed aside (not loaded, not deleted) and the program carries on without it. A file
//! recorded with other feature names is moved aside the same way (`.stale-`).

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::diag;
use crate::explore::KEEP;
use crate::region::{Origin, Region};
use crate::stats::FKey;

/// `"format"` of every data file.
pub const FORMAT: &str = "ompadapt-samples";
/// `"version"` written and read by this runtime.
pub const VERSION: u32 = 2;

#[derive(Deserialize)]
struct Header {
    format: Option<String>,
    version: Option<u32>,
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
    /// The region drifted: data ordered before this file is obsolete.
    #[serde(default)]
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
}

/// The process that wrote a file.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Writer {
    pub host: String,
    pub pid: u32,
    /// MPI world rank and size, when run under MPI with more than one process.
    pub rank: Option<u32>,
    pub size: Option<u32>,
    /// Run id (unique per process).
    pub run: String,
}

/// Measurements of one variant on one feature vector.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SampleRecord {
    pub features: Vec<f64>,
    pub variant: String,
    /// Measurements (≥ `times_ns.len()`: older ones may have been dropped).
    pub count: u64,
    /// The most recent measurements, oldest first.
    pub times_ns: Vec<f64>,
}

/// Executions of one variant on one feature vector chosen by the model.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct MonitoredRecord {
    pub features: Vec<f64>,
    pub variant: String,
    pub count: u64,
    pub sum_ns: u64,
}

/// Coarse mode: one run's total time of the region on one feature vector.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RunRecord {
    pub run: String,
    pub features: Vec<f64>,
    pub variant: String,
    pub total_ns: u64,
    pub executions: u64,
}

/// A trained model's training set (and its text, for people).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ModelRecord {
    /// e.g. `decision tree (max depth 2)`.
    pub kind: String,
    pub trained_unix_ns: u64,
    pub labels: Vec<LabelRecord>,
    pub text: String,
}

/// One training row: a feature vector and its fastest variant.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LabelRecord {
    pub features: Vec<f64>,
    pub variant: String,
}

impl DataFile {
    /// Checks the invariants serde cannot.
    fn validate(&self) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!("format is '{}', not '{FORMAT}'", self.format));
        }
        let feats_ok = |f: &[f64]| f.len() <= crate::ctx::MAX_FEATURES && f.iter().all(|x| x.is_finite());
        for s in &self.samples {
            if !feats_ok(&s.features) || (s.count as usize) < s.times_ns.len() || s.times_ns.iter().any(|t| !(*t >= 0.0)) {
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

// ---- paths ----------------------------------------------------------------------------------

/// `<dir>/<program>/<model>/`.
pub fn region_dir(dir: &Path, program: &str, model: &str) -> PathBuf {
    dir.join(sanitize(program)).join(sanitize(model))
}

fn sanitize(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' })
        .collect();
    if t.is_empty() || t.starts_with('.') {
        format!("_{t}")
    } else {
        t
    }
}

fn unix_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is writable for its length; gethostname NUL-terminates on success.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) } == 0;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(0);
    let h = if ok { String::from_utf8_lossy(&buf[..end]).into_owned() } else { String::new() };
    if h.is_empty() { "host".into() } else { sanitize(&h) }
}

/// MPI rank and size of this process, for file names (None outside MPI).
fn mpi_rank() -> Option<(u32, u32)> {
    #[cfg(feature = "mpi")]
    {
        crate::mpi::persist_rank()
    }
    #[cfg(not(feature = "mpi"))]
    {
        None
    }
}

fn is_part(name: &str) -> bool {
    name.starts_with("part-") && name.ends_with(".json")
}

// ---- locking --------------------------------------------------------------------------------

/// An flock(2) lock on `<region dir>/.lock`, released on drop.
struct Lock(fs::File);

impl Lock {
    fn take(dir: &Path, exclusive: bool) -> std::io::Result<Lock> {
        let f = fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(".lock"))?;
        let op = if exclusive { libc::LOCK_EX } else { libc::LOCK_SH };
        loop {
            // SAFETY: a valid open descriptor.
            if unsafe { libc::flock(f.as_raw_fd(), op) } == 0 {
                return Ok(Lock(f));
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // SAFETY: a valid open descriptor (closing it would release the lock too).
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

// ---- reading --------------------------------------------------------------------------------

/// How a file failed to load.
#[derive(Debug, PartialEq)]
pub enum Damage {
    /// Not JSON, truncated, or breaks the format.
    Corrupt(String),
    /// Another format version.
    Foreign(u32),
}

/// Reads and checks one file.
pub fn read_file(path: &Path) -> Result<DataFile, Damage> {
    let text = fs::read_to_string(path).map_err(|e| Damage::Corrupt(format!("cannot read it: {e}")))?;
    // The header first, so that a newer version is recognised even if its body changed.
    if let Ok(h) = serde_json::from_str::<Header>(&text) {
        if h.format.as_deref() == Some(FORMAT) {
            if let Some(v) = h.version.filter(|&v| v != VERSION) {
                return Err(Damage::Foreign(v));
            }
        }
    }
    let f: DataFile = serde_json::from_str(&text).map_err(|e| Damage::Corrupt(e.to_string()))?;
    f.validate().map_err(Damage::Corrupt)?;
    Ok(f)
}

/// Renames `path` aside with `tag` and says so once. Silent if another process moved it first.
fn move_aside(path: &Path, tag: &str, what: &str, todo: &str) {
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".{tag}-{}", unix_ns()));
    let aside = PathBuf::from(aside);
    match fs::rename(path, &aside) {
        Ok(()) => {
            diag::warn_once(
                &format!("aside:{}", path.display()),
                &format!("{} {what}; moved to {} and not loaded; {todo}", path.display(), aside.display()),
            );
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            diag::warn_once(
                &format!("aside:{}", path.display()),
                &format!("{} {what}; it could not be moved aside ({e}) and is ignored; {todo}", path.display()),
            );
        }
    }
}

/// Everything a region directory holds, merged (see [`Merged::merge`]).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Merged {
    /// The parts of the first file read, for the output's header.
    pub header: Option<DataFile>,
    /// (features, variant) → (count, recent times).
    pub samples: Vec<((Vec<f64>, String), (u64, Vec<f64>))>,
    pub monitored: Vec<((Vec<f64>, String), (u64, u64))>,
    /// (run, features, variant) → (total, executions).
    pub runs: Vec<((String, Vec<f64>, String), (u64, u64))>,
    pub model: Option<ModelRecord>,
    /// Files merged (names).
    pub files: Vec<String>,
    /// Any file said the region drifted.
    pub reset_seen: bool,
}

fn fkey_bits(f: &[f64]) -> Vec<u64> {
    FKey::new(f).padded()[..f.len().min(crate::ctx::MAX_FEATURES)].iter().map(|x| x.to_bits()).collect()
}

impl Merged {
    /// Merges `files` (already in order: merged.json first, then parts by time).
    pub fn merge(files: Vec<(String, DataFile)>) -> Merged {
        let mut m = Merged::default();
        let mut si: HashMap<(Vec<u64>, String), usize> = HashMap::new();
        let mut mi: HashMap<(Vec<u64>, String), usize> = HashMap::new();
        let mut ri: HashMap<(String, Vec<u64>, String), usize> = HashMap::new();
        for (name, f) in files {
            if f.reset {
                m.samples.clear();
                m.monitored.clear();
                m.runs.clear();
                m.model = None;
                si.clear();
                mi.clear();
                ri.clear();
                m.reset_seen = true;
            }
            for s in f.samples {
                let k = (fkey_bits(&s.features), s.variant.clone());
                let i = *si.entry(k).or_insert_with(|| {
                    m.samples.push(((s.features.clone(), s.variant.clone()), (0, Vec::new())));
                    m.samples.len() - 1
                });
                let e = &mut m.samples[i].1;
                e.0 += s.count;
                e.1.extend(s.times_ns);
                if e.1.len() > KEEP {
                    e.1.drain(..e.1.len() - KEEP);
                }
            }
            for s in f.monitored {
                let k = (fkey_bits(&s.features), s.variant.clone());
                let i = *mi.entry(k).or_insert_with(|| {
                    m.monitored.push(((s.features.clone(), s.variant.clone()), (0, 0)));
                    m.monitored.len() - 1
                });
                m.monitored[i].1 .0 += s.count;
                m.monitored[i].1 .1 += s.sum_ns;
            }
            for r in f.runs {
                let k = (r.run.clone(), fkey_bits(&r.features), r.variant.clone());
                let i = *ri.entry(k).or_insert_with(|| {
                    m.runs.push(((r.run.clone(), r.features.clone(), r.variant.clone()), (0, 0)));
                    m.runs.len() - 1
                });
                m.runs[i].1 .0 += r.total_ns;
                m.runs[i].1 .1 += r.executions;
            }
            if f.model_trained.is_some() {
                m.model = f.model_trained;
            }
            if m.header.is_none() {
                m.header = Some(DataFile { samples: vec![], monitored: vec![], runs: vec![], model_trained: None, ..f });
            }
            m.files.push(name);
        }
        m
    }

    /// Total measurements in `samples`.
    pub fn sample_count(&self) -> u64 {
        self.samples.iter().map(|(_, (c, _))| c).sum()
    }

    /// As one data file (what compaction writes).
    pub fn to_file(&self, writer: Writer, parts: Vec<String>) -> DataFile {
        let h = self.header.clone().unwrap_or_default();
        DataFile {
            format: FORMAT.into(),
            version: VERSION,
            written_unix_ns: unix_ns(),
            writer,
            reset: false,
            merged_parts: parts,
            samples: self
                .samples
                .iter()
                .map(|((f, v), (c, t))| SampleRecord { features: f.clone(), variant: v.clone(), count: *c, times_ns: t.clone() })
                .collect(),
            monitored: self
                .monitored
                .iter()
                .map(|((f, v), (c, s))| MonitoredRecord { features: f.clone(), variant: v.clone(), count: *c, sum_ns: *s })
                .collect(),
            runs: self
                .runs
                .iter()
                .map(|((r, f, v), (t, e))| RunRecord {
                    run: r.clone(),
                    features: f.clone(),
                    variant: v.clone(),
                    total_ns: *t,
                    executions: *e,
                })
                .collect(),
            model_trained: self.model.clone(),
            ..h
        }
    }
}

/// Reads a region directory: `merged.json`, then the parts it does not contain, by time.
/// Damaged files are moved aside (and reported once); files recorded with other feature
/// names than `features` (when given) are moved aside as stale. The caller holds a lock.
pub fn read_dir(dir: &Path, region: &str, features: Option<&[String]>) -> Merged {
    read_dir_with(dir, region, features, true)
}

/// [`read_dir`]; with `move_damaged == false` damaged files are skipped (and reported) but
/// left where they are (the export tool reads without changing anything).
pub fn read_dir_with(dir: &Path, region: &str, features: Option<&[String]>, move_damaged: bool) -> Merged {
    let move_aside = |path: &Path, tag: &str, what: &str, todo: &str| {
        if move_damaged {
            move_aside(path, tag, what, todo);
        } else {
            diag::warn_once(&format!("skip:{}", path.display()), &format!("{} {what}; skipped", path.display()));
        }
    };
    let Ok(rd) = fs::read_dir(dir) else { return Merged::default() };
    let names: Vec<String> = rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    let mut files: Vec<(String, DataFile)> = Vec::new();
    let load = |name: &str| -> Option<DataFile> {
        let path = dir.join(name);
        match read_file(&path) {
            Ok(f) => {
                if let Some(want) = features {
                    let same = f.features.len() == want.len() && f.features.iter().zip(want).all(|(a, b)| a.trim() == b.trim());
                    if !same {
                        move_aside(
                            &path,
                            "stale",
                            &format!(
                                "was recorded with features ({}) but region '{region}' now has ({})",
                                f.features.join(", "),
                                want.join(", ")
                            ),
                            "the region starts without it",
                        );
                        return None;
                    }
                }
                Some(f)
            }
            Err(Damage::Corrupt(why)) => {
                move_aside(
                    &path,
                    "corrupt",
                    &format!("is corrupt or truncated ({why})"),
                    &format!("region '{region}' goes on without it (inspect or delete the moved file)"),
                );
                None
            }
            Err(Damage::Foreign(v)) => {
                move_aside(
                    &path,
                    "foreign",
                    &format!("has data format version {v}, this runtime reads version {VERSION}"),
                    &format!("region '{region}' goes on without it (read it with the runtime that wrote it, or delete it)"),
                );
                None
            }
        }
    };
    let mut skip: Vec<String> = Vec::new();
    if names.iter().any(|n| n == "merged.json") {
        if let Some(f) = load("merged.json") {
            skip = f.merged_parts.clone();
            files.push(("merged.json".into(), f));
        }
    }
    let mut parts: Vec<(String, DataFile)> = names
        .iter()
        .filter(|n| is_part(n) && !skip.contains(n))
        .filter_map(|n| load(n).map(|f| (n.clone(), f)))
        .collect();
    parts.sort_by(|a, b| (a.1.written_unix_ns, &a.0).cmp(&(b.1.written_unix_ns, &b.0)));
    files.extend(parts);
    Merged::merge(files)
}

/// [`read_dir`] under the shared lock (creates nothing if the directory does not exist).
pub fn load_dir(dir: &Path, region: &str, features: Option<&[String]>) -> Merged {
    if !dir.is_dir() {
        return Merged::default();
    }
    let _lock = Lock::take(dir, false);
    read_dir(dir, region, features)
}

/// The merged view of every region of every program under `root` (the export tool): one
/// [`DataFile`] per region, nothing moved or written.
pub fn export(root: &Path, program: Option<&str>, region: Option<&str>) -> Vec<DataFile> {
    let list = |d: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = fs::read_dir(d).map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect()).unwrap_or_default();
        v.sort();
        v
    };
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut out = Vec::new();
    for pdir in list(root).into_iter().filter(|p| program.is_none_or(|want| name(p) == sanitize(want))) {
        for rdir in list(&pdir).into_iter().filter(|r| region.is_none_or(|want| name(r) == sanitize(want))) {
            let _lock = Lock::take(&rdir, false);
            let m = read_dir_with(&rdir, &name(&rdir), None, false);
            if m.files.is_empty() {
                continue;
            }
            let mut f = m.to_file(m.header.as_ref().map(|h| h.writer.clone()).unwrap_or_default(), m.files.clone());
            f.written_unix_ns = m.header.as_ref().map_or(0, |h| h.written_unix_ns);
            out.push(f);
        }
    }
    out
}

// ---- writing --------------------------------------------------------------------------------

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path.parent().ok_or("no parent directory")?;
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let name = path.file_name().ok_or("no file name")?.to_string_lossy();
    let tmp = dir.join(format!(".tmp-{name}-{}-{}", std::process::id(), unix_ns()));
    let write = || -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        // make the rename itself durable (best effort: not every filesystem allows it)
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

/// Merges a region directory's files into `merged.json` and deletes the merged parts, under
/// the exclusive lock. Returns the number of parts merged.
pub fn compact(dir: &Path, region: &str) -> Result<usize, String> {
    let _lock = Lock::take(dir, true).map_err(|e| format!("cannot lock {}: {e}", dir.display()))?;
    let merged = read_dir(dir, region, None);
    let parts: Vec<String> = merged.files.iter().filter(|n| is_part(n)).cloned().collect();
    if parts.is_empty() {
        return Ok(0);
    }
    let file = merged.to_file(writer(), parts.clone());
    let json = serde_json::to_vec_pretty(&file).map_err(|e| e.to_string())?;
    write_atomic(&dir.join("merged.json"), &json)?;
    for p in &parts {
        let _ = fs::remove_file(dir.join(p));
    }
    // temporary files of writers that died long ago
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            let old = e.metadata().and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok()).is_some_and(|a| a.as_secs() > 3600);
            if e.file_name().to_string_lossy().starts_with(".tmp-") && old {
                let _ = fs::remove_file(e.path());
            }
        }
    }
    Ok(parts.len())
}

fn run_id() -> &'static str {
    static RUN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    RUN.get_or_init(|| format!("{}-{}-{}", unix_ns(), hostname(), std::process::id()))
}

fn writer() -> Writer {
    let rank = mpi_rank();
    Writer {
        host: hostname(),
        pid: std::process::id(),
        rank: rank.map(|r| r.0),
        size: rank.map(|r| r.1),
        run: run_id().to_owned(),
    }
}

// ---- a region's binding ---------------------------------------------------------------------

/// A region's persistence state (in `Region::persist`).
#[derive(Debug)]
pub struct Binding {
    /// The region's directory.
    pub dir: PathBuf,
    pub program: String,
    compact_after: usize,
    /// This run's id for coarse-mode run totals (the process's run id; a region is attached
    /// once per process).
    run: String,
    monitored_base: HashMap<(FKey, usize), (u64, u64)>,
    saved_epoch: u64,
    /// What was loaded at start-up (for the report).
    pub loaded_samples: u64,
    pub loaded_files: usize,
}

/// Version 1 (the first runtime's single file per region, `<dir>/<program>/<model>.json`).
#[derive(Deserialize)]
struct V1File {
    format: String,
    version: u32,
    #[serde(default)]
    program: String,
    #[serde(default)]
    loc: String,
    #[serde(default)]
    features: Vec<String>,
    #[serde(default)]
    variants: Vec<String>,
    samples: Vec<V1Sample>,
}

#[derive(Deserialize)]
struct V1Sample {
    features: Vec<f64>,
    variant: String,
    count: u64,
    recent_ns: Vec<u64>,
}

/// Converts a version-1 file of `model` into a part file of its region directory, once: the old
/// file is renamed `<file>.imported-<t>` afterwards (a damaged one is moved aside as usual).
fn import_v1(dir: &Path, program: &str, model: &str, rdir: &Path) {
    let old = dir.join(sanitize(program)).join(format!("{}.json", sanitize(model)));
    if !old.is_file() {
        return;
    }
    let text = match fs::read_to_string(&old) {
        Ok(t) => t,
        Err(_) => return,
    };
    let v1 = match serde_json::from_str::<V1File>(&text) {
        Ok(f) if f.format == FORMAT && f.version == 1 => f,
        Ok(_) | Err(_) => {
            if let Ok(h) = serde_json::from_str::<Header>(&text) {
                if h.format.as_deref() == Some(FORMAT) && h.version != Some(1) {
                    return; // not ours to judge here (a newer runtime's file)
                }
            }
            return move_aside(&old, "corrupt", "is corrupt (a version-1 data file that does not parse)", "the region starts without it");
        }
    };
    let file = DataFile {
        format: FORMAT.into(),
        version: VERSION,
        program: v1.program,
        model: model.to_owned(),
        loc: v1.loc,
        features: v1.features,
        variants: v1.variants,
        written_unix_ns: 0, // older than anything this runtime writes
        writer: Writer { host: hostname(), pid: std::process::id(), rank: None, size: None, run: "imported-v1".into() },
        samples: v1
            .samples
            .into_iter()
            .filter(|s| s.count >= s.recent_ns.len() as u64 && s.features.len() <= crate::ctx::MAX_FEATURES)
            .map(|s| SampleRecord { features: s.features, variant: s.variant, count: s.count, times_ns: s.recent_ns.iter().map(|&t| t as f64).collect() })
            .collect(),
        ..Default::default()
    };
    let Ok(json) = serde_json::to_vec_pretty(&file) else { return };
    if write_atomic(&rdir.join("part-imported-v1.json"), &json).is_ok() {
        let mut done = old.as_os_str().to_owned();
        done.push(format!(".imported-{}", unix_ns()));
        let _ = fs::rename(&old, PathBuf::from(done));
    }
}

/// Binds `region` to its directory and loads what earlier runs saved: measurements, coarse
/// run totals, and (frozen runs) the stored model; trains if the data suffices.
pub fn attach(region: &Region, dir: &Path, program: &str, compact_after: usize) {
    let rdir = region_dir(dir, program, &region.spec.model);
    import_v1(dir, program, &region.spec.model, &rdir);
    let merged = load_dir(&rdir, &region.spec.model, Some(&region.spec.features));
    let variant = |name: &str| region.spec.variants.iter().position(|n| n == name);
    for ((f, v), (count, times)) in &merged.samples {
        if let Some(v) = variant(v) {
            region.absorb(&FKey::new(f), v, (*count).min(u32::MAX as u64) as u32, times);
        }
    }
    for ((_, f, v), (total, _)) in &merged.runs {
        if let Some(v) = variant(v) {
            region.absorb(&FKey::new(f), v, 1, &[*total as f64]);
        }
    }
    let stored_labels = || -> Vec<(FKey, usize)> {
        merged.model.iter().flat_map(|m| &m.labels).filter_map(|l| variant(&l.variant).map(|v| (FKey::new(&l.features), v))).collect()
    };
    if region.mode.frozen {
        if !region.install(stored_labels(), Origin::Frozen) {
            diag::warn_once(
                &format!("frozen:{}", region.spec.model),
                &format!(
                    "region '{}': OMPADAPT_FROZEN=1 but no stored model in {}; always running its first variant '{}'",
                    region.spec.model,
                    rdir.display(),
                    region.spec.variants[0]
                ),
            );
            region.set_fixed_variant(Some(0));
        }
    } else if !region.train_if_ready() && !region.is_trained() && !region.mode.coarse {
        region.install(stored_labels(), Origin::Loaded);
    }
    let binding = Binding {
        dir: rdir,
        program: program.to_owned(),
        compact_after: compact_after.max(1),
        run: {
            static ATTACHED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
            let n = ATTACHED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if n == 0 { run_id().to_owned() } else { format!("{}.{n}", run_id()) }
        },
        monitored_base: HashMap::new(),
        saved_epoch: region.trained().map_or(0, |t| t.epoch),
        loaded_samples: merged.sample_count(),
        loaded_files: merged.files.len(),
    };
    *region.persist.lock().unwrap_or_else(|e| e.into_inner()) = Some(binding);
}

/// Writes what `region` learned since its last save as a new part file (nothing if nothing is
/// new), then compacts if parts piled up. Returns the file written.
pub fn save(region: &Region) -> Result<Option<PathBuf>, String> {
    let mut guard = region.persist.lock().unwrap_or_else(|e| e.into_inner());
    let Some(b) = guard.as_mut() else { return Ok(None) };
    let spec = &region.spec;
    let vname = |v: usize| spec.variants[v].clone();

    // exploration measurements newer than the last save
    let (samples, reset) = region.with_store(|st| {
        let out: Vec<SampleRecord> = st
            .take_unsaved()
            .into_iter()
            .filter(|(k, ..)| k.values().iter().all(|x| x.is_finite()))
            .map(|(k, v, count, times)| SampleRecord { features: k.values(), variant: vname(v), count: count as u64, times_ns: times })
            .collect();
        (out, std::mem::take(&mut st.reset_unsaved))
    });
    // model-chosen executions since the last save (coarse mode: this run's totals)
    let mut monitored = Vec::new();
    let mut runs = Vec::new();
    for (k, per) in region.monitored() {
        let features = k.values();
        if features.iter().any(|x| !x.is_finite()) {
            continue;
        }
        for (v, &(c, s)) in per.iter().enumerate() {
            let base = b.monitored_base.entry((k, v)).or_insert((0, 0));
            let (dc, ds) = (c.saturating_sub(base.0), s.saturating_sub(base.1));
            *base = (c, s);
            if dc == 0 {
                continue;
            }
            if region.mode.coarse {
                runs.push(RunRecord { run: b.run.clone(), features: features.clone(), variant: vname(v), total_ns: ds, executions: dc });
            } else {
                monitored.push(MonitoredRecord { features: features.clone(), variant: vname(v), count: dc, sum_ns: ds });
            }
        }
    }
    let model_trained = region.trained().filter(|t| t.epoch != b.saved_epoch).and_then(|t| {
        b.saved_epoch = t.epoch;
        matches!(t.origin, Origin::Online | Origin::Explicit | Origin::Pooled(_)).then(|| ModelRecord {
            kind: t.choice.describe(),
            trained_unix_ns: unix_ns(),
            labels: t.labels.iter().map(|(k, v)| LabelRecord { features: k.values(), variant: vname(*v) }).collect(),
            text: t.predictor.render(&|i| spec.feature_name(i), &|v| vname(v), 0),
        })
    });
    if samples.is_empty() && monitored.is_empty() && runs.is_empty() && model_trained.is_none() && !reset {
        return Ok(None);
    }
    let w = writer();
    let file = DataFile {
        format: FORMAT.into(),
        version: VERSION,
        program: b.program.clone(),
        model: spec.model.clone(),
        loc: spec.loc.clone(),
        features: spec.features.clone(),
        variants: spec.variants.clone(),
        written_unix_ns: unix_ns(),
        reset,
        merged_parts: Vec::new(),
        samples,
        monitored,
        runs,
        model_trained,
        writer: w.clone(),
    };
    let rank = w.rank.map(|r| format!("-r{r}")).unwrap_or_default();
    // one sequence per process: names stay unique even for two bindings of one region
    static SEQ: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = b.dir.join(format!("part-{}{rank}-{seq}.json", run_id()));
    let json = serde_json::to_vec_pretty(&file).map_err(|e| e.to_string())?;
    write_atomic(&path, &json)?;
    let parts = fs::read_dir(&b.dir).map(|rd| rd.flatten().filter(|e| is_part(&e.file_name().to_string_lossy())).count()).unwrap_or(0);
    if parts >= b.compact_after {
        compact(&b.dir, &spec.model)?;
    }
    Ok(Some(path))
}

#[cfg(test)]
mod tests;
