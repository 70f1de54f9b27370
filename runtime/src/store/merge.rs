//! Reading a region directory: merging `merged.json` and the parts, compaction, export.

use std::collections::HashMap;
use std::path::Path;

use super::definition::{same_features, Definition};
use super::fault;
use super::files::{move_aside, write_error};
use super::format::*;
use super::{is_part, sanitize, unix_ns, writer};
use crate::diag;
use crate::explore::KEEP;
use crate::safe_fs::{self, Dir, Kind};
use crate::stats::FeatureKey;

/// `(features, variant)` → what the files say about it.
type ByPair<T> = Vec<((Vec<f64>, String), T)>;
/// `(run, features, variant)` → `(total ns, executions)`.
type ByRun = Vec<((String, Vec<f64>, String), (u64, u64))>;

/// The merged measurements of one (feature vector, variant) pair.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct PairData {
    /// Every measurement ever saved (saturating).
    pub count: u64,
    /// The most recent warm measurements (at most `KEEP`), oldest first, ns; after a drift,
    /// only those taken since.
    pub warm: Vec<f64>,
    /// The most recent cold measurements, likewise.
    pub cold: Vec<f64>,
    /// Measurements superseded by a drift's re-measurement (still in `count`).
    pub superseded: u64,
}

/// The merged trained executions of one pair.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct MonitoredData {
    /// Executions (saturating).
    pub count: u64,
    /// Those timed.
    pub timed: u64,
    /// Sum of the timed ones' times, ns.
    pub sum_ns: u64,
}

/// Everything a region directory holds, merged (see [`Merged::merge`]).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Merged {
    /// The newest file's header (its data left out): the region's definition as last saved
    /// (see [`super::definition`]).
    pub header: Option<DataFile>,
    /// The distinct definitions of the files merged, oldest first (the last is `header`'s).
    pub definitions: Vec<Definition>,
    /// Exploration measurements per (feature vector, variant).
    pub samples: ByPair<PairData>,
    /// Model-chosen executions per (feature vector, variant).
    pub monitored: ByPair<MonitoredData>,
    /// (run, features, variant) → (total, executions).
    pub runs: ByRun,
    /// The model of the last file read that has one.
    pub model: Option<ModelRecord>,
    /// Files merged (names).
    pub files: Vec<String>,
    /// Parts `merged.json` already contains that are still on disk (a compaction stopped
    /// between writing it and deleting them): skipped, deleted by the next compaction.
    pub leftovers: Vec<String>,
    /// A file could not be read now (left in place, see [`Damage::Unreadable`]).
    pub unreadable: Vec<String>,
    /// Files recorded with other feature names (set aside: moved, or only skipped), and the
    /// measurements they hold.
    pub stale_files: Vec<String>,
    /// The measurements those files hold.
    pub stale_measurements: u64,
    /// How team-size variants resolved in the runs merged (distinct records).
    pub teams: Vec<crate::team::TeamRecord>,
    /// Variants found unavailable in those runs, and why (distinct, at most
    /// [`MAX_UNAVAILABLE`]).
    pub unavailable: Vec<UnavailableRecord>,
}

/// Where each pair's merged data is, by its exact feature bits.
struct Index {
    samples: HashMap<(Vec<u64>, String), usize>,
    monitored: HashMap<(Vec<u64>, String), usize>,
    runs: HashMap<(String, Vec<u64>, String), usize>,
}

/// The data of the item `index` finds at `key` in `items`, appended (its key made by `made`,
/// its data the default) where there is none yet: items keep the order they first appeared in.
fn entry<'a, K: std::hash::Hash + Eq, M, T: Default>(
    index: &mut HashMap<K, usize>,
    items: &'a mut Vec<(M, T)>,
    key: K,
    made: impl FnOnce() -> M,
) -> &'a mut T {
    let i = *index.entry(key).or_insert_with(|| {
        items.push((made(), T::default()));
        items.len() - 1
    });
    &mut items[i].1
}

/// Appends the items of `from` that `into` lacks, up to `cap` items in all.
fn add_distinct<T: PartialEq + Clone>(into: &mut Vec<T>, from: &[T], cap: usize) {
    for x in from {
        if into.len() < cap && !into.contains(x) {
            into.push(x.clone());
        }
    }
}

fn fkey_bits(f: &[f64]) -> Vec<u64> {
    FeatureKey::new(f).padded()[..f.len().min(crate::ctx::MAX_FEATURES)].iter().map(|x| x.to_bits()).collect()
}

/// Keeps the newest `KEEP` of `v`.
fn bound(v: &mut Vec<f64>) {
    if v.len() > KEEP {
        v.drain(..v.len() - KEEP);
    }
}

impl Merged {
    /// Merges `files` (already in order: merged.json first, then parts by time). Counts add up
    /// saturating; a record that supersedes replaces the pair's retained measurements.
    pub fn merge(files: Vec<(String, DataFile)>) -> Merged {
        let mut m = Merged::default();
        m.extend(files);
        m
    }

    /// Merges `files`, newer than every file merged so far, into this view (what
    /// [`Merged::merge`] of all of them in order gives).
    pub fn extend(&mut self, files: Vec<(String, DataFile)>) {
        // only the indices the files need: a trained run's part (execution counts) merged into
        // the snapshot at exit indexes no measurement
        let any = |has: fn(&DataFile) -> bool| files.iter().any(|(_, f)| has(f));
        let (samples, monitored, runs) = (any(|f| !f.samples.is_empty()), any(|f| !f.monitored.is_empty()), any(|f| !f.runs.is_empty()));
        let mut ix = Index {
            samples: self
                .samples
                .iter()
                .take(if samples { usize::MAX } else { 0 })
                .enumerate()
                .map(|(i, ((f, v), _))| ((fkey_bits(f), v.clone()), i))
                .collect(),
            monitored: self
                .monitored
                .iter()
                .take(if monitored { usize::MAX } else { 0 })
                .enumerate()
                .map(|(i, ((f, v), _))| ((fkey_bits(f), v.clone()), i))
                .collect(),
            runs: self
                .runs
                .iter()
                .take(if runs { usize::MAX } else { 0 })
                .enumerate()
                .map(|(i, ((r, f, v), _))| ((r.clone(), fkey_bits(f), v.clone()), i))
                .collect(),
        };
        for (name, f) in files {
            self.add(&mut ix, name, f);
        }
    }

    fn add(&mut self, ix: &mut Index, name: String, mut f: DataFile) {
        let m = self;
        let definition = Definition::of(&f);
        for s in std::mem::take(&mut f.samples) {
            let k = (fkey_bits(&s.features), s.variant.clone());
            let e = entry(&mut ix.samples, &mut m.samples, k, || (s.features.clone(), s.variant.clone()));
            if s.supersedes {
                e.superseded = e.superseded.saturating_add((e.warm.len() + e.cold.len()) as u64);
                e.warm.clear();
                e.cold.clear();
            }
            e.count = e.count.saturating_add(s.count);
            e.warm.extend(s.times_ns);
            e.cold.extend(s.cold_ns);
            bound(&mut e.warm);
            bound(&mut e.cold);
        }
        for s in std::mem::take(&mut f.monitored) {
            let k = (fkey_bits(&s.features), s.variant.clone());
            let e = entry(&mut ix.monitored, &mut m.monitored, k, || (s.features.clone(), s.variant.clone()));
            e.count = e.count.saturating_add(s.count);
            e.timed = e.timed.saturating_add(s.timed.unwrap_or(s.count));
            e.sum_ns = e.sum_ns.saturating_add(s.sum_ns);
        }
        for r in std::mem::take(&mut f.runs) {
            let k = (r.run.clone(), fkey_bits(&r.features), r.variant.clone());
            let e = entry(&mut ix.runs, &mut m.runs, k, || (r.run.clone(), r.features.clone(), r.variant.clone()));
            e.0 = e.0.saturating_add(r.total_ns);
            e.1 = e.1.saturating_add(r.executions);
        }
        add_distinct(&mut m.teams, &f.teams, usize::MAX);
        add_distinct(&mut m.unavailable, &f.unavailable, MAX_UNAVAILABLE);
        m.add_header(name, definition, f);
    }

    /// The model, definition and header of file `name` (its data already merged).
    fn add_header(&mut self, name: String, definition: Definition, f: DataFile) {
        let m = self;
        if let Some(mut model) = f.model_trained {
            // a record without its variants decides among its file's
            if model.variants.is_empty() {
                model.variants = f.variants.clone();
            }
            m.model = Some(model);
        }
        if m.definitions.last() != Some(&definition) {
            m.definitions.retain(|d| *d != definition);
            m.definitions.push(definition);
        }
        // the newest file says what the region is now (`ompadapt train` wrote no
        // program_id before it carried the runtime's)
        let program_id = if f.program_id.is_empty() { m.header.as_ref().map(|h| h.program_id.clone()) } else { None };
        let mut header =
            DataFile { samples: vec![], monitored: vec![], runs: vec![], model_trained: None, teams: vec![], unavailable: vec![], ..f };
        if let Some(id) = program_id {
            header.program_id = id;
        }
        m.header = Some(header);
        m.files.push(name);
    }

    /// Total measurements in `samples` (saturating).
    pub fn sample_count(&self) -> u64 {
        self.samples.iter().fold(0u64, |a, (_, p)| a.saturating_add(p.count))
    }

    /// As one data file that keeps the newest file's writer and time (what an archive carries).
    pub fn exported(&self) -> DataFile {
        let mut f = self.to_file(self.header.as_ref().map(|h| h.writer.clone()).unwrap_or_default(), self.files.clone());
        f.written_unix_ns = self.header.as_ref().map_or(0, |h| h.written_unix_ns);
        f
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
                .map(|((f, v), p)| SampleRecord {
                    features: f.clone(),
                    variant: v.clone(),
                    count: p.count,
                    times_ns: p.warm.clone(),
                    cold_ns: p.cold.clone(),
                    supersedes: false,
                })
                .collect(),
            monitored: self
                .monitored
                .iter()
                .map(|((f, v), m)| MonitoredRecord {
                    features: f.clone(),
                    variant: v.clone(),
                    count: m.count,
                    sum_ns: m.sum_ns,
                    timed: Some(m.timed),
                })
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
            teams: self.teams.clone(),
            unavailable: self.unavailable.clone(),
            ..h
        }
    }
}

/// Reads a region directory: `merged.json`, then the parts it does not contain, by time.
/// Damaged files are moved aside (and reported once). Files recorded with other feature
/// names than `features` are moved aside as stale; without `features` (the command, which
/// knows only the store) the newest file's are the region's, and files with others are
/// skipped and counted, never moved. The caller holds a lock.
pub fn read_dir(dir: &Dir, region: &str, features: Option<&[String]>) -> Merged {
    read_dir_with(dir, region, features, true)
}

/// Reads the data files of one region directory, setting aside the ones it cannot use.
pub(super) struct DirReader<'a> {
    dir: &'a Dir,
    region: &'a str,
    features: Option<&'a [String]>,
    move_damaged: bool,
    /// Files that could not be read now (permissions, I/O): read once they can be.
    pub(super) unreadable: Vec<String>,
    /// Files of other features, and their measurements.
    pub(super) stale: Vec<String>,
    pub(super) stale_measurements: u64,
}

/// Measurements a file holds (exploration measurements and coarse run totals).
fn measurements(f: &DataFile) -> u64 {
    f.samples.iter().fold(f.runs.len() as u64, |a, s| a.saturating_add(s.count))
}

impl DirReader<'_> {
    /// A reader of `dir`'s files for a run's region of `features`, moving aside what it
    /// cannot use.
    pub(super) fn new<'a>(dir: &'a Dir, region: &'a str, features: &'a [String]) -> DirReader<'a> {
        DirReader {
            dir,
            region,
            features: Some(features),
            move_damaged: true,
            unreadable: Vec::new(),
            stale: Vec::new(),
            stale_measurements: 0,
        }
    }

    /// Moves a file it cannot use aside (or, when reading without changes, reports it).
    fn set_aside(&self, name: &str, tag: &str, what: &str, todo: &str) {
        if self.move_damaged {
            move_aside(self.dir, name, tag, what, todo);
        } else {
            let path = self.dir.join(name);
            diag::warn_once(&format!("skip:{}", path.display()), &format!("{} {what}; skipped", path.display()));
        }
    }

    /// Counts `f` as recorded with other features.
    fn count_stale(&mut self, name: &str, f: &DataFile) {
        self.stale.push(name.to_owned());
        self.stale_measurements = self.stale_measurements.saturating_add(measurements(f));
    }

    /// Whether `f` was recorded with the region's feature names (else it is set aside as
    /// stale); any file, when the region's features are not known yet.
    fn same_features(&mut self, name: &str, f: &DataFile) -> bool {
        let Some(want) = self.features else { return true };
        let same = same_features(&f.features, want);
        if !same {
            self.count_stale(name, f);
            self.set_aside(
                name,
                "stale",
                &format!(
                    "was recorded with features ({}) but region '{}' now has ({})",
                    f.features.join(", "),
                    self.region,
                    want.join(", ")
                ),
                "the region starts without it",
            );
        }
        same
    }

    fn damaged(&mut self, name: &str, damage: Damage) {
        let region = self.region;
        match damage {
            Damage::Corrupt(why) => self.set_aside(
                name,
                "corrupt",
                &format!("is corrupt or truncated ({why})"),
                &format!("region '{region}' goes on without it (inspect or delete the moved file)"),
            ),
            Damage::Foreign(v) => self.set_aside(
                name,
                "foreign",
                &format!("has data format version {v}, this runtime reads version {VERSION}"),
                &format!("region '{region}' goes on without it (read it with the runtime that wrote it, or delete it)"),
            ),
            Damage::Refused { tag, why } => self.set_aside(name, tag, &why, &format!("region '{region}' goes on without it")),
            Damage::Unreadable(why) => {
                // permissions or an I/O error: not the file's fault; it is read once it can be
                let path = self.dir.join(name);
                diag::warn_once(
                    &format!("unreadable:{}", path.display()),
                    &format!(
                        "{} cannot be read now ({why}); region '{region}' goes on without it and reads it once it can",
                        path.display()
                    ),
                );
                self.unreadable.push(name.to_owned());
            }
        }
    }

    pub(super) fn load(&mut self, name: &str) -> Option<DataFile> {
        match read_file_in(self.dir, name) {
            Ok(f) => self.same_features(name, &f).then_some(f),
            Err(damage) => {
                self.damaged(name, damage);
                None
            }
        }
    }
}

/// [`read_dir`]; with `move_damaged == false` damaged files are skipped (and reported) but
/// left where they are (the export tool reads without changing anything).
pub fn read_dir_with(dir: &Dir, region: &str, features: Option<&[String]>, move_damaged: bool) -> Merged {
    let Ok(entries) = dir.entries() else { return Merged::default() };
    let names: Vec<String> = entries.into_iter().filter(|(_, k)| *k != Kind::Dir).map(|(n, _)| n).collect();
    let mut reader = DirReader { dir, region, features, move_damaged, unreadable: Vec::new(), stale: Vec::new(), stale_measurements: 0 };
    let mut files: Vec<(String, DataFile)> = Vec::new();
    let mut skip: Vec<String> = Vec::new();
    if names.iter().any(|n| n == "merged.json") {
        if let Some(f) = reader.load("merged.json") {
            skip = f.merged_parts.clone();
            files.push(("merged.json".into(), f));
        }
    }
    // a FIFO or socket named like a part is moved aside (or, by the export, reported) unread:
    // anything that is not a directory is offered to `load`, which never blocks
    let mut parts: Vec<(String, DataFile)> =
        names.iter().filter(|n| is_part(n) && !skip.contains(n)).filter_map(|n| reader.load(n).map(|f| (n.clone(), f))).collect();
    parts.sort_by(|a, b| (a.1.written_unix_ns, &a.0).cmp(&(b.1.written_unix_ns, &b.0)));
    files.extend(parts);
    if features.is_none() {
        // the newest file says which features the region has now
        let want = files.last().map(|(_, f)| f.features.clone()).unwrap_or_default();
        let (kept, stale): (Vec<_>, Vec<_>) = files.into_iter().partition(|(_, f)| same_features(&f.features, &want));
        for (name, f) in &stale {
            reader.count_stale(name, f);
        }
        files = kept;
    }
    let mut m = Merged::merge(files);
    m.leftovers = names.iter().filter(|n| is_part(n) && skip.contains(n)).cloned().collect();
    m.unreadable = reader.unreadable;
    m.stale_files = reader.stale;
    m.stale_measurements = reader.stale_measurements;
    m
}

/// [`read_dir`] under the shared lock.
pub fn load(dir: &Dir, region: &str, features: Option<&[String]>) -> Merged {
    match dir.lock(false) {
        Ok(_lock) => read_dir(dir, region, features),
        Err(e) => {
            refused(&e, "its data is not loaded");
            Merged::default()
        }
    }
}

/// [`load`] of the region directory `dir` names (creates nothing; a missing directory is
/// empty). Links in `dir` itself are followed as in any path a user names, unless its last
/// component is another user's link.
pub fn load_dir(dir: &Path, region: &str, features: Option<&[String]>) -> Merged {
    match Dir::open(dir, false) {
        Ok(d) => load(&d, region, features),
        Err(e) if e.is_not_found() => Merged::default(),
        Err(e) => {
            refused(&e, &format!("region '{region}': its data is not loaded"));
            Merged::default()
        }
    }
}

/// Says once per refused path why a store directory is not used.
pub(crate) fn refused(e: &safe_fs::Error, consequence: &str) {
    diag::warn_once(&format!("refused:{}", e.path().display()), &format!("{e}; {consequence}"));
}

/// The merged view of every region of every program under `root` (the export tool): one
/// [`DataFile`] per region, nothing moved or written. Links in the store are skipped (one
/// line each).
pub fn export(root: &Path, program: Option<&str>, region: Option<&str>) -> Vec<DataFile> {
    export_merged(root, program, region).iter().map(Merged::exported).collect()
}

/// What [`export`] reads: every region's data under `root` merged, read with the newest data's
/// features (see [`read_dir`]), nothing moved or written.
pub fn export_merged(root: &Path, program: Option<&str>, region: Option<&str>) -> Vec<Merged> {
    let subdirs = |d: &Dir| -> Vec<Dir> {
        let mut names: Vec<String> =
            d.entries().unwrap_or_default().into_iter().filter(|(n, k)| *k != Kind::File && !n.starts_with('.')).map(|(n, _)| n).collect();
        names.sort();
        names
            .into_iter()
            .filter_map(|n| match d.sub(&n, false) {
                Ok(s) => Some(s),
                Err(e) => {
                    if e.is_refusal() && !matches!(e, safe_fs::Error::NotDirectory(_)) {
                        refused(&e, "skipped");
                    }
                    None
                }
            })
            .collect()
    };
    let name = |d: &Dir| d.path().file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let Ok(root) = Dir::open(root, false).map_err(|e| refused(&e, "nothing exported")) else { return Vec::new() };
    let mut out = Vec::new();
    // a program's folder is `<name>-<16 hex digits>` (or `<name>` in stores of older runtimes)
    let is_program = |folder: &str, want: &str| {
        let want = sanitize(want);
        folder == want
            || folder
                .strip_prefix(&want)
                .and_then(|r| r.strip_prefix('-'))
                .is_some_and(|h| h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    for pdir in subdirs(&root).into_iter().filter(|p| program.is_none_or(|want| is_program(&name(p), want))) {
        for rdir in subdirs(&pdir).into_iter().filter(|r| region.is_none_or(|want| name(r) == sanitize(want))) {
            let _lock = rdir.lock(false);
            let m = read_dir_with(&rdir, &name(&rdir), None, false);
            if !m.files.is_empty() {
                out.push(m);
            }
        }
    }
    out
}

/// [`compact_in`] of the region directory `dir` names.
pub fn compact(dir: &Path, region: &str) -> Result<usize, String> {
    let d = Dir::open(dir, false).map_err(|e| e.to_string())?;
    compact_in(&d, region, None)
}

/// Merges a region directory's files into `merged.json` and deletes the merged parts, under
/// the exclusive lock. Returns the number of parts merged.
///
/// Crash safety: the new `merged.json` lists in `merged_parts` every part it contains —
/// those merged now, and those an earlier compaction merged but did not get to delete (it
/// was killed between its rename and its deletes) — so whatever is deleted and whenever the
/// process dies, no part is ever counted twice or lost. A part that cannot be read now stays
/// a part. When `merged.json` itself cannot be read now, nothing is written (it would be
/// replaced by less). A merged file larger than ompadapt reads back ([`safe_fs::MAX_READ`]) is
/// not written: the parts stay (one line says so).
///
/// Only files of the region's `features` are merged (a run passes its own and moves the others
/// aside, as when it loads; without, the newest file's, and files of other features stay as
/// they are: a `merged.json` of other features is then not replaced).
pub fn compact_in(dir: &Dir, region: &str, features: Option<&[String]>) -> Result<usize, String> {
    let _lock = dir.lock(true).map_err(|e| format!("cannot lock {}: {e}", dir.path().display()))?;
    let merged = read_dir(dir, region, features);
    if merged.unreadable.iter().any(|n| n == "merged.json") {
        return Err(format!("{} cannot be read now; not compacted", dir.join("merged.json").display()));
    }
    if merged.stale_files.iter().any(|n| n == "merged.json") && features.is_none() {
        return Err(format!("{} holds data of other features; not compacted", dir.join("merged.json").display()));
    }
    let parts: Vec<String> = merged.files.iter().filter(|n| is_part(n)).cloned().collect();
    if parts.is_empty() && merged.leftovers.is_empty() {
        return Ok(0);
    }
    let contained: Vec<String> = parts.iter().chain(&merged.leftovers).cloned().collect();
    if !parts.is_empty() {
        let file = merged.to_file(writer(), contained.clone());
        let json = serde_json::to_vec(&file).map_err(|e| e.to_string())?;
        if json.len() as u64 > safe_fs::MAX_READ {
            diag::warn_once(
                &format!("compact-size:{}", dir.path().display()),
                &format!(
                    "region '{region}': its merged data would be {} MiB, more than the {} MiB ompadapt reads from one \
                     stored file; {} is not compacted (its parts are kept and still loaded)",
                    json.len() >> 20,
                    safe_fs::MAX_READ >> 20,
                    dir.path().display()
                ),
            );
            return Ok(0);
        }
        dir.write_atomic("merged.json", &json).map_err(|e| write_error(&dir.join("merged.json"), e))?;
    }
    for p in &contained {
        fault::hook(fault::Point::BeforeUnlink);
        let _ = dir.remove(p);
    }
    // temporary files of writers that died long ago
    for (name, kind) in dir.entries().unwrap_or_default() {
        if name.starts_with(".tmp-") && kind == Kind::File && dir.age_secs(&name).is_some_and(|a| a > 3600) {
            let _ = dir.remove(&name);
        }
    }
    Ok(parts.len())
}
