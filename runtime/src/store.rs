//! What a region learned, kept across runs: per program and region, versioned JSON, written so
//! that any number of processes (MPI ranks, parallel test runs) can save at once without
//! losing a sample.
//!
//! # Layout
//!
//! ```text
//! $OMPADAPT_DIR/<program>-<id>/<region>/       (default ./.ompadapt; names sanitised)
//!     part-<run>-<seq>.json    what one process added in one save (the "delta")
//!     merged.json              parts merged by compaction
//!     .snapshot                the merged view of the files a run read, binary (a cache)
//!     .lock                    flock(2) lock file
//!     .tmp-*                   files being written (never read)
//!     *.corrupt-<t>, *.foreign-<t>, *.stale-<t>   files moved aside (never read, never deleted)
//! ```
//!
//! # Program identity
//! `<program>` is the executable's file name and `<id>` 16 hex digits of a hash of the
//! program's identity: its executable's canonical path (or `OMPADAPT_PROGRAM`). Two programs
//! that are both called `main` (every HeCBench binary) live in different folders and never
//! share or move aside each other's data; a program rebuilt in place keeps its folder and
//! what it learned (regions are matched by model name, variants by name, and data recorded
//! with other feature names is moved aside as stale: the rule is [`definition`]'s). A copy of
//! the program at another path
//! starts afresh unless `OMPADAPT_PROGRAM` names one identity for both. Every file records
//! `program_id`; `ompadapt list` shows it.
//!
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
//! leaves parts that `merged_parts` tells the loader to skip, and the next compaction lists
//! them again in its own `merged_parts` before deleting them. Parts written during a
//! compaction were not listed by it and stay. Nothing is ever lost or counted twice (tested
//! by killing processes at random during saves and compactions).
//!
//! A run does not parse all that JSON at its start: the first run to read the files leaves
//! their merged view in `.snapshot` (binary, unsynced: a cache, never the data), and a later
//! run reads it and only the parts written since, as long as every file it names is there
//! unchanged; otherwise it reads every file (module `snapshot`). A trained run's exit leaves
//! the snapshot with its own part of execution counts merged in, and with the assessment of
//! the data its start made, so the next run neither parses a part nor assesses again. Readers
//! other than a run's start (compaction, export, the command) read the files themselves.
//!
//! A save that fails (a full disk, a file size limit) marks nothing saved: the next save
//! writes those measurements. A part that was written but whose compaction failed is saved
//! (one line says the compaction failed). A file that cannot be read now (permissions, an I/O
//! error) is left where it is and read once it can be.
//!
//! # Format (version 2)
//! See [`DataFile`]. Variants are stored by name (adding or reordering variants keeps the
//! others' data). `samples` are exploration measurements (warm `times_ns`, cold `cold_ns`;
//! labels are computed from them; a record with `supersedes` was re-measured after a drift and
//! replaces the pair's earlier measurements for labelling), `monitored` aggregates of
//! executions the model chose (one in `OMPADAPT_SAMPLE` timed), `runs` coarse-mode run totals,
//! `model` the last model trained — by a run, online or at its exit, or by `ompadapt train` —
//! with its kind, parameters, training set, variants, origin and the fingerprint of the data it
//! was trained on (a run whose loaded data has that fingerprint loads it and trains nothing:
//! [`ModelRecord::trained_on`]),
//! `teams` what a host region's team-size variants resolved to in the runs (a measurement of
//! one counts for the variants that ran the same team in every recorded run:
//! [`crate::team::TeamRecord::stand_ins`]), `unavailable` the variants a run could not run, and
//! why. Merging keeps the distinct `teams` and `unavailable` records of every file.
//! The newest file's features, variants and location are the region's definition as last saved.
//! Counts add up saturating. `ompadapt export` archives the merged view of a directory
//! (`store::export`).
//!
//! # Damaged files
//! A file that does not parse (corrupt, truncated), has another format version, or breaks the
//! format's invariants is reported once (one stderr line naming the file and what to do),
//! renamed aside (not loaded, not deleted) and the program carries on without it. A file
//! recorded with other feature names is moved aside the same way (`.stale-`).
//!
//! # Shared folders
//! The store may live where other users write (a group's directory, `/tmp`). Every file and
//! directory below the root is opened relative to its parent's descriptor without following
//! links ([`crate::safe_fs`]): a program or region directory that is a symbolic link is
//! refused (one line; the region runs without saved data), a data file that is a link, a FIFO
//! or larger than [`crate::safe_fs::MAX_READ`] is moved aside unread (`.symlink-`,
//! `.special-`, `.oversized-`). Files and directories are created never writable by others.
//!
//! Submodules: `format` (the file format, reading one file), `files` (atomic writes, the
//! lock, moving aside), `merge` (a directory's merged view, compaction, export), `snapshot`
//! (that view kept for the next run's start), `definition`
//! (a region's features, variants and location, and what saved data of another definition is
//! used for), `fault` (where crash tests stop a process).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Deserialize;

use crate::diag;
use crate::measurements::Settled;
use crate::model::{self, ModelChoice};
use crate::region::{Monitored, Origin, Region, StoredFacts, Trained};
use crate::safe_fs::{self, Dir, Kind};
use crate::stats::FeatureKey;

pub mod assessment;
pub mod definition;
pub mod fault;
mod files;
mod format;
mod merge;
mod snapshot;

pub use assessment::{Assessment, View};
pub use definition::Definition;
pub use files::write_atomic;
use files::{move_aside, write_error};
use format::Header;
pub use format::{
    read_file, read_file_in, Damage, DataFile, LabelRecord, ModelRecord, MonitoredRecord, RunRecord, SampleRecord, UnavailableRecord,
    Writer, FORMAT, MAX_UNAVAILABLE, OFFLINE, VERSION,
};
pub(crate) use merge::refused;
pub use merge::{compact, compact_in, export, export_merged, load, load_dir, read_dir, read_dir_with, Merged, MonitoredData, PairData};

// ---- paths ----------------------------------------------------------------------------------

/// A program as the store knows it: its name and what identifies it (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The executable's file name.
    pub name: String,
    /// Its identity: the executable's canonical path, or `OMPADAPT_PROGRAM`.
    pub id: String,
}

impl Program {
    /// A program named `name` identified by `id`.
    pub fn new(name: &str, id: &str) -> Program {
        Program { name: name.to_owned(), id: id.to_owned() }
    }

    /// The store folder of the program: `<name>-<16 hex digits of the identity's hash>`.
    pub fn folder(&self) -> String {
        format!("{}-{:016x}", sanitize(&self.name), crate::stats::fnv1a(&self.id))
    }

    /// The running program, as configured.
    pub fn of(c: &crate::config::Config) -> Program {
        Program::new(&c.program, &c.program_id)
    }
}

/// `<dir>/<program folder>/<model>/`.
pub fn region_dir(dir: &Path, program: &Program, model: &str) -> PathBuf {
    dir.join(program.folder()).join(sanitize(model))
}

/// Opens `<dir>/<program folder>/`, creating what is missing when `create` is set; the
/// program directory is never reached through a link.
fn open_program(dir: &Path, program: &Program, create: bool) -> Result<Dir, safe_fs::Error> {
    Dir::open(dir, create)?.sub(&program.folder(), create)
}

/// A program or region name as a directory name (what the store calls it on disk).
pub use ompadapt_abi::store::file_name as sanitize;

pub(crate) fn unix_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is writable for its length; gethostname NUL-terminates on success.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) } == 0;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(0);
    let h = if ok { String::from_utf8_lossy(&buf[..end]).into_owned() } else { String::new() };
    if h.is_empty() {
        "host".into()
    } else {
        sanitize(&h)
    }
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

pub(crate) fn is_part(name: &str) -> bool {
    name.starts_with("part-") && name.ends_with(".json")
}

fn run_id() -> &'static str {
    static RUN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    RUN.get_or_init(|| format!("{}-{}-{}", unix_ns(), hostname(), std::process::id()))
}

pub(crate) fn writer() -> Writer {
    let rank = mpi_rank();
    Writer { host: hostname(), pid: std::process::id(), rank: rank.map(|r| r.0), size: rank.map(|r| r.1), run: run_id().to_owned() }
}

// ---- a region's binding ---------------------------------------------------------------------

/// A region's persistence state (kept by the registry beside the region).
#[derive(Debug)]
pub struct Binding {
    /// The region's directory (`root/<program folder>/<region>`).
    pub dir: PathBuf,
    /// The store's root directory.
    pub root: PathBuf,
    /// The program the data belongs to.
    pub program: Program,
    compact_after: usize,
    /// This run's id for coarse-mode run totals (the process's run id; a region is attached
    /// once per process).
    run: String,
    /// Trained executions already saved, per pair.
    monitored_base: HashMap<(FeatureKey, usize), Monitored>,
    saved_epoch: u64,
    /// Files loaded at start-up.
    pub loaded_files: usize,
    /// Unavailability and team records already in the store (loaded, or saved by this
    /// process): a save writes only new ones, so that a trained run's part of execution
    /// counts stays statistics (written without fsyncs) and no record is repeated per run.
    stored_unavailable: Vec<UnavailableRecord>,
    stored_teams: Vec<crate::team::TeamRecord>,
    /// The view loaded at start-up, kept so that the exit leaves the next run a snapshot with
    /// this run's part in it (see `snapshot::Loaded::add_own_part`).
    loaded: snapshot::Loaded,
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
/// Version-1 files lived in `<dir>/<program>/` (the executable's name alone).
fn import_v1(pdir: &Dir, target: &Dir, model: &str, program_id: &str) {
    let old = format!("{}.json", sanitize(model));
    if pdir.kind(&old).is_none() {
        return;
    }
    let text = match pdir.read_to_string(&old, safe_fs::MAX_READ) {
        Ok(t) => t,
        Err(e) if e.is_refusal() => {
            let tag = format::Damage::from(e);
            if let format::Damage::Refused { tag, why } = tag {
                move_aside(pdir, &old, tag, &why, "the region starts without it");
            }
            return;
        }
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
            return move_aside(
                pdir,
                &old,
                "corrupt",
                "is corrupt (a version-1 data file that does not parse)",
                "the region starts without it",
            );
        }
    };
    let file = DataFile {
        format: FORMAT.into(),
        version: VERSION,
        program: v1.program,
        program_id: program_id.to_owned(),
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
            .map(|s| SampleRecord {
                features: s.features,
                variant: s.variant,
                count: s.count,
                times_ns: s.recent_ns.iter().map(|&t| t as f64).collect(),
                cold_ns: Vec::new(),
                supersedes: false,
            })
            .collect(),
        ..Default::default()
    };
    let Ok(json) = serde_json::to_vec_pretty(&file) else { return };
    let Ok(rdir) = target.sub(&sanitize(model), true) else { return };
    if rdir.write_atomic("part-imported-v1.json", &json).is_ok() {
        let _ = pdir.rename(&old, &format!("{old}.imported-{}", unix_ns()));
    }
}

/// The consequence of a refused link, said once per link by whoever meets it first.
pub(crate) const LINK_REFUSED: &str = "saved data there is neither loaded nor written";

/// What earlier runs saved for `model` under `dir` (empty when nothing was saved, or when the
/// store is refused: a link where a directory should be; one line says so).
fn load_saved(dir: &Path, program: &Program, model: &str, features: &[String]) -> snapshot::Loaded {
    let rdir = open_program(dir, program, false).and_then(|pdir| {
        // a version-1 file sits in the folder named after the executable alone
        if let Ok(old) = Dir::open(dir, false).and_then(|d| d.sub(&sanitize(&program.name), false)) {
            import_v1(&old, &pdir, model, &program.id);
        }
        pdir.sub(&sanitize(model), false)
    });
    match rdir {
        Ok(rdir) => snapshot::load(&rdir, model, features),
        Err(e) if e.is_not_found() => {
            // nothing of this program yet: a version-1 file may still be waiting
            if let (Ok(old), Ok(pdir)) = (
                Dir::open(dir, false).and_then(|d| d.sub(&sanitize(&program.name), false)),
                Dir::open(dir, false).and_then(|d| d.sub(&program.folder(), false).or_else(|_| d.sub(&program.folder(), true))),
            ) {
                if old.kind(&format!("{}.json", sanitize(model))).is_some() {
                    import_v1(&old, &pdir, model, &program.id);
                    if let Ok(rdir) = pdir.sub(&sanitize(model), false) {
                        return snapshot::load(&rdir, model, features);
                    }
                }
            }
            snapshot::Loaded::default()
        }
        Err(e) => {
            // a planted link is neither read nor written: this line says all; any other
            // unusable store is said again by the first save, with what it could not save
            refused(&e, if e.is_link() { LINK_REFUSED } else { "nothing saved there is loaded" });
            snapshot::Loaded::default()
        }
    }
}

/// Loads what earlier runs saved for `region` under `dir` and binds it to its directory:
/// measurements of its variants (the region continues exploring where they stopped), trained
/// executions (the vectors they name recur), coarse run totals, and the stored model (nothing
/// is trained here: see [`start_learning`] and [`start_coarse`]). Saved data of another definition is treated as
/// [`definition`] says; one line says what changed.
pub fn attach(region: &Region, dir: &Path, program: &Program, compact_after: usize) -> Binding {
    let rdir = region_dir(dir, program, &region.spec.model);
    let loaded = load_saved(dir, program, &region.spec.model, &region.spec.features);
    let merged = &loaded.view;
    let saved = assessment::assess(&Definition::of_region(&region.spec), merged);
    let settled = absorb_saved_cached(region, merged, loaded.settled.as_ref());
    start_model(region, &saved, &rdir);
    let means = monitored_means(merged);
    schedule_rechecks(region, merged, &means);
    give_control_verdicts(region, &means);
    Binding {
        dir: rdir,
        root: dir.to_path_buf(),
        program: program.clone(),
        compact_after: compact_after.max(1),
        run: {
            static ATTACHED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
            let n = ATTACHED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if n == 0 {
                run_id().to_owned()
            } else {
                format!("{}.{n}", run_id())
            }
        },
        monitored_base: HashMap::new(),
        // a model trained at start-up (`Region::train_if_ready`) is saved with this run's data;
        // a loaded or a frozen run's model is on disk already
        saved_epoch: region.trained().filter(|t| t.origin.key().is_none()).map_or(0, |t| t.epoch),
        loaded_files: merged.files.len(),
        stored_unavailable: merged.unavailable.clone(),
        stored_teams: merged.teams.clone(),
        loaded: loaded.with_settled(settled),
    }
}

/// Gives `region` what `merged` holds of its variants (matched by name): measurements, coarse
/// run totals, and the vectors model-chosen executions name (they recur). Measurements of
/// variants it no longer has are left out.
pub fn absorb_saved(region: &Region, merged: &Merged) {
    absorb_saved_cached(region, merged, None);
}

/// [`absorb_saved`], restoring the assessment `cache` (the snapshot's) where it was made from
/// exactly this data; returns what the assessment decided, for the snapshot the exit leaves.
fn absorb_saved_cached(region: &Region, merged: &Merged, cache: Option<&Settled>) -> Option<Settled> {
    let variant = |name: &str| region.spec.variants.iter().position(|n| n == name);
    for ((f, v), p) in &merged.samples {
        if let Some(v) = variant(v) {
            region.absorb(&FeatureKey::new(f), v, p.count, &p.warm, &p.cold, false);
        }
    }
    for ((_, f, v), (total, _)) in &merged.runs {
        if let Some(v) = variant(v) {
            region.absorb(&FeatureKey::new(f), v, 1, &[*total as f64], &[], false);
        }
    }
    for ((f, v), m) in &merged.monitored {
        if m.count > 0 && variant(v).is_some() {
            region.note_seen(&FeatureKey::new(f));
        }
    }
    region.settle_cached(cache)
}

/// Stored trained executions per (vector, variant name) with any timed: (mean ns, timed).
type MonitoredMeans<'a> = HashMap<(FeatureKey, &'a str), (f64, u64)>;

fn monitored_means(merged: &Merged) -> MonitoredMeans<'_> {
    let timed = merged.monitored.iter().filter(|(_, m)| m.timed > 0);
    timed.map(|((f, name), m)| ((FeatureKey::new(f), name.as_str()), (m.sum_ns as f64 / m.timed as f64, m.timed))).collect()
}

/// Schedules a recheck of every label that earlier runs' trained executions contradict (see
/// [`crate::recheck`]), except pairs measured afresh already (after a drift or a recheck).
fn schedule_rechecks(region: &Region, merged: &Merged, means: &MonitoredMeans) {
    let variant = |name: &str| region.spec.variants.iter().position(|n| n == name);
    let remeasured: std::collections::HashSet<(FeatureKey, &str)> =
        merged.samples.iter().filter(|(_, p)| p.superseded > 0).map(|((f, v), _)| (FeatureKey::new(f), v.as_str())).collect();
    for (&(key, name), &(mean, timed)) in means {
        let Some(v) = variant(name) else { continue };
        if timed < crate::recheck::MIN_TIMED || remeasured.contains(&(key, name)) {
            continue;
        }
        region.recheck_if_contradicted(&key, v, mean, timed);
    }
}

/// Judges every measured vector's label against the program's own variant from the stored
/// trained executions of both (see [`crate::control`]).
fn give_control_verdicts(region: &Region, by_pair: &MonitoredMeans) {
    let mut keys: Vec<FeatureKey> = by_pair.keys().map(|(k, _)| *k).collect();
    keys.sort_by(|a, b| a.values().partial_cmp(&b.values()).unwrap_or(std::cmp::Ordering::Equal));
    keys.dedup();
    for key in keys {
        region.control(&key, |v| by_pair.get(&(key, region.spec.variants[v].as_str())).copied());
    }
}

/// The training set of the stored model `m`, as `region`'s variants.
fn stored_labels(region: &Region, m: &ModelRecord) -> Vec<(FeatureKey, usize)> {
    let variant = |name: &str| region.spec.variants.iter().position(|n| n == name);
    m.labels.iter().filter_map(|l| variant(&l.variant).map(|v| (FeatureKey::new(&l.features), v))).collect()
}

/// Makes the stored model `m` decide `region` as a frozen run does: its parameters as trained
/// when it has them for the region's variants, else (older files) its training set refitted
/// with the model it records (else the region's own, said once). The `ompadapt` command
/// decides with the same call.
pub fn install_stored(region: &Region, m: &ModelRecord) -> bool {
    install_as(region, m, Origin::Frozen(m.origin.clone()))
}

/// What the stored model `m` records besides its decision function.
fn stored_facts(m: &ModelRecord) -> StoredFacts {
    StoredFacts {
        trained_on: m.trained_on.as_deref().and_then(|h| u64::from_str_radix(h, 16).ok()),
        estimate: m.estimate.clone(),
        note: m.note.clone(),
    }
}

/// [`install_stored`] with the origin the report gives it, and the judgement of the rule of
/// the program's own variant the model was stored with.
fn install_as(region: &Region, m: &ModelRecord, origin: Origin) -> bool {
    let installed = install_model(region, m, origin);
    if let (true, Some(j), Some(t)) = (installed, &m.own_variant, region.trained()) {
        region.adopt_judgement(&t, j);
    }
    installed
}

/// Installs the stored model `m`'s decision function (see [`install_stored`]).
fn install_model(region: &Region, m: &ModelRecord, origin: Origin) -> bool {
    let choice = ModelChoice::from_description(&m.kind);
    if let Some(p) = &m.parameters {
        let name = &region.spec.model;
        match model::stored::check(p, region.spec.variants.len()) {
            Ok(()) if m.variants == region.spec.variants => {
                let chosen = choice.unwrap_or_else(|| region.settings().choice);
                return region.install_trained(stored_labels(region, m), origin, chosen, p.clone(), stored_facts(m));
            }
            // the same variants in another order: the labels name them, the parameters count them
            Ok(()) => {}
            Err(e) => {
                diag::warn_once(
                    &format!("stored-parameters:{name}"),
                    &format!("region '{name}': its stored model's parameters are damaged ({e}); its training set is refitted"),
                );
            }
        }
    }
    if choice.is_none() {
        diag::warn_once(
            &format!("stored-kind:{}", region.spec.model),
            &format!(
                "region '{}': its stored model is a '{}', which this runtime does not know; its training set is refitted as {}",
                region.spec.model,
                m.kind,
                region.settings().choice.describe()
            ),
        );
    }
    region.install(stored_labels(region, m), origin, choice, stored_facts(m))
}

/// What decides `region` first, given its saved data: in a frozen run the stored model of its
/// variants, else its first variant (one line says why); in coarse mode what [`start_coarse`]
/// says; otherwise what [`start_learning`] says. One line says what
/// changed when its variants did.
fn start_model(region: &Region, saved: &Assessment, rdir: &Path) {
    let name = &region.spec.model;
    let change = saved.change(&Definition::of_region(&region.spec));
    if let Some(c) = &change {
        region.note_saved_data(c);
    }
    if region.mode.frozen {
        if saved.model.as_ref().is_some_and(|m| install_stored(region, m)) {
            if let Some(c) = &change {
                diag::warn_once(&format!("definition:{name}"), &format!("region '{name}': {c}"));
            }
            return;
        }
        let first = &region.spec.variants[0];
        let why = match &change {
            Some(c) => format!(
                "region '{name}': {c}; OMPADAPT_FROZEN=1 and no stored model of its current variants in {}: always running its first variant '{first}'",
                rdir.display()
            ),
            None => format!(
                "region '{name}': OMPADAPT_FROZEN=1 but no stored model in {}; always running its first variant '{first}'",
                rdir.display()
            ),
        };
        diag::warn_once(&format!("frozen:{name}"), &why);
        region.set_fixed_variant(Some(0));
        return;
    }
    if let Some(c) = &change {
        diag::warn_once(&format!("definition:{name}"), &format!("region '{name}': {c}"));
    }
    if region.mode.coarse {
        start_coarse(region, saved.model.as_ref());
        return;
    }
    start_learning(region, saved.model.as_ref());
}

/// Coarse mode: the stored model decides each vector's variant for the whole run (current or
/// not: run totals change every run, and the model the previous run trained at exit on them
/// is current); without one, each vector runs its least-run variant. Nothing is trained at
/// start-up: every run that executes trains at exit on the totals it saves
/// ([`Region::train_at_exit`]).
fn start_coarse(region: &Region, stored: Option<&ModelRecord>) {
    let now = format!("{:016x}", region.data_fingerprint());
    let current = stored.is_some_and(|m| m.trained_on.as_deref() == Some(now.as_str()));
    let installed = stored.is_some_and(|m| install_as(region, m, Origin::Stored { origin: m.origin.clone(), current }));
    region.note_startup(match (installed, current) {
        (true, true) => "coarse mode: loaded the stored model, trained on exactly the saved run totals: nothing trained at start-up",
        (true, false) => {
            "coarse mode: loaded the stored model, trained before the newest saved run totals: it decides this run \
             (nothing trained at start-up; a model is trained at exit)"
        }
        (false, _) => {
            "coarse mode: no stored model of its variants: each vector runs its least-run variant this run \
             (nothing trained at start-up; a model is trained at exit once the totals suffice)"
        }
    });
}

/// Nothing is trained on the start-up path of a learning region: the stored model of its
/// variants decides as it was trained (its parameters; a file without them has its decisions
/// refitted), *current* when it was trained on exactly the measurements loaded (its
/// fingerprint, [`ModelRecord::trained_on`], is theirs). Where the data changed since, or no
/// stored model is there, training waits for the exit ([`Region::train_at_exit`]: the next run
/// loads what it trains); meanwhile the stored model decides, or the measured table. The
/// report says which ([`Region::startup_note`]).
fn start_learning(region: &Region, stored: Option<&ModelRecord>) {
    let now = format!("{:016x}", region.data_fingerprint());
    let current = stored.is_some_and(|m| m.trained_on.as_deref() == Some(now.as_str()));
    let installed = stored.is_some_and(|m| install_as(region, m, Origin::Stored { origin: m.origin.clone(), current }));
    if region.settings().explore_only {
        return; // data collection: never trains
    }
    let deferred = region.start_on_saved();
    let note = match (installed, current) {
        (true, true) => "loaded the stored model, trained on exactly the saved measurements: nothing trained at start-up",
        (true, false) => {
            "loaded the stored model, trained before the newest saved measurements: it decides until a model \
             trained at exit replaces it (nothing trained at start-up)"
        }
        (false, _) if deferred => {
            "no stored model of its variants: the measured table decides (each measured vector its best variant) \
             until a model is trained, at exit at the latest (nothing trained at start-up)"
        }
        (false, _) => return,
    };
    region.note_startup(note);
}

/// Exploration measurements newer than the last save, as records.
fn sample_records(unsaved: &[crate::measurements::Unsaved], vname: &dyn Fn(usize) -> String) -> Vec<SampleRecord> {
    unsaved
        .iter()
        .filter(|u| u.key.values().iter().all(|x| x.is_finite()))
        .map(|u| SampleRecord {
            features: u.key.values(),
            variant: vname(u.variant),
            count: u.count as u64,
            times_ns: u.warm.clone(),
            cold_ns: u.cold.clone(),
            supersedes: u.fresh,
        })
        .collect()
}

/// The variants unavailable in this run, and why, as records (distinct, at most
/// [`MAX_UNAVAILABLE`]).
fn unavailable_records(region: &Region) -> Vec<UnavailableRecord> {
    let mut out: Vec<UnavailableRecord> = Vec::new();
    for u in region.unavailable() {
        let r = UnavailableRecord { variant: region.spec.variants[u.variant].clone(), reason: u.reason };
        if out.len() < MAX_UNAVAILABLE && !out.contains(&r) {
            out.push(r);
        }
    }
    out
}

/// Model-chosen executions since the last save (coarse mode: this run's totals), and the
/// totals they were counted from (the next save's base once this one is written).
#[derive(Default)]
struct Executions {
    monitored: Vec<MonitoredRecord>,
    runs: Vec<RunRecord>,
    bases: Vec<((FeatureKey, usize), Monitored)>,
}

fn execution_records(region: &Region, b: &Binding, vname: &dyn Fn(usize) -> String) -> Executions {
    let mut out = Executions::default();
    for (k, per) in region.monitored() {
        let features = k.values();
        if features.iter().any(|x| !x.is_finite()) {
            continue;
        }
        for (v, m) in per.iter().enumerate() {
            let base = b.monitored_base.get(&(k, v)).copied().unwrap_or_default();
            let d = Monitored {
                count: m.count.saturating_sub(base.count),
                timed: m.timed.saturating_sub(base.timed),
                sum_ns: m.sum_ns.saturating_sub(base.sum_ns),
            };
            if d.count == 0 {
                continue;
            }
            out.bases.push(((k, v), *m));
            if region.mode.coarse {
                out.runs.push(RunRecord {
                    run: b.run.clone(),
                    features: features.clone(),
                    variant: vname(v),
                    total_ns: d.sum_ns,
                    executions: d.count,
                });
            } else {
                out.monitored.push(MonitoredRecord {
                    features: features.clone(),
                    variant: vname(v),
                    count: d.count,
                    sum_ns: d.sum_ns,
                    timed: Some(d.timed),
                });
            }
        }
    }
    out
}

/// The model trained in this process since the last save, as a record: trained in the run or
/// at its start-up (a frozen run's model is on disk already, a fixed variant is no model).
/// What a trained model stores. A model whose learner failed (a constant stand-in) stores
/// nothing: the model stored before stays the one later runs load.
fn model_record(region: &Region, t: &Trained, vname: &dyn Fn(usize) -> String) -> Option<ModelRecord> {
    if t.fallback.is_some() {
        return None;
    }
    let parameters = model::stored::parameters(&t.predictor.compiled());
    t.origin.key().map(|origin| ModelRecord {
        parameters,
        trained_on: t.trained_on.map(|f| format!("{f:016x}")),
        estimate: t.estimate.clone().filter(model::Estimate::is_finite),
        note: t.note.clone(),
        own_variant: region.own_judgement(t),
        kind: t.chosen.describe(),
        trained_unix_ns: unix_ns(),
        labels: t.labels.iter().map(|(k, v)| LabelRecord { features: k.values(), variant: vname(*v) }).collect(),
        text: t.predictor.render(&|i| region.spec.feature_name(i), vname, 0),
        variants: region.spec.variants.clone(),
        origin: origin.to_owned(),
    })
}

/// Writes `file` as a new part file of the region's folder; returns the folder (None: the
/// store is refused, said once) and the file's path.
fn write_part(b: &Binding, file: &DataFile) -> Result<Option<(Dir, PathBuf)>, String> {
    let rank = file.writer.rank.map(|r| format!("-r{r}")).unwrap_or_default();
    // one sequence per process: names stay unique even for two bindings of one region
    static SEQ: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = format!("part-{}{rank}-{seq}.json", run_id());
    let path = b.dir.join(&name);
    let json = serde_json::to_vec(file).map_err(|e| e.to_string())?;
    if json.len() as u64 > safe_fs::MAX_READ {
        return Err(format!(
            "{} MiB to save, more than the {} MiB ompadapt reads back from one stored file",
            json.len() >> 20,
            safe_fs::MAX_READ >> 20
        ));
    }
    let rdir = match open_program(&b.root, &b.program, true).and_then(|p| p.sub(&sanitize(&file.model), true)) {
        Ok(d) => d,
        Err(e) if e.is_refusal() => {
            refused(&e, LINK_REFUSED);
            return Ok(None);
        }
        Err(e) => return Err(write_error(&path, e)),
    };
    // A part with nothing but model-chosen execution counts (a trained run that measured
    // nothing, trained nothing and lost no variant) is statistics: written atomically, without
    // the two fsyncs, which on a busy disk can cost more than the run itself.
    let statistics = file.samples.is_empty() && file.runs.is_empty() && file.model_trained.is_none() && file.unavailable.is_empty();
    let written = if statistics { rdir.write_atomic_unsynced(&name, &json) } else { rdir.write_atomic(&name, &json) };
    written.map_err(|e| write_error(&path, e))?;
    fault::hook(fault::Point::AfterPartWrite);
    Ok(Some((rdir, path)))
}

/// Merges the region's part files once `compact_after` of them piled up. A failure does not
/// make the save fail: the data is written (one line says so). Returns whether it tried
/// (the files a snapshot names may have changed).
fn compact_if_due(rdir: &Dir, model: &str, features: &[String], compact_after: usize) -> bool {
    let parts = rdir.entries().map(|es| es.iter().filter(|(n, k)| *k == Kind::File && is_part(n)).count()).unwrap_or(0);
    if parts < compact_after {
        return false;
    }
    if let Err(e) = merge::compact_in(rdir, model, Some(features)) {
        diag::warn_once(
            &format!("compact:{}", rdir.path().display()),
            &format!("region '{model}': its data was saved, but merging its files failed: {e}; they are merged later"),
        );
    }
    true
}

/// What a save of `region` would write now: measurements, model-chosen executions, and
/// whether a newly trained model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pending {
    /// Measurements not saved yet.
    pub measurements: u64,
    /// Model-chosen executions not saved yet.
    pub executions: u64,
    /// Whether a model trained since the last save.
    pub model: bool,
}

impl Pending {
    /// Nothing to save.
    pub fn is_empty(&self) -> bool {
        *self == Pending::default()
    }

    /// Adds `other`'s counts.
    pub fn add(&mut self, other: Pending) {
        self.measurements += other.measurements;
        self.executions += other.executions;
        self.model |= other.model;
    }

    /// "12 measurements, 300 model-chosen executions and a trained model".
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.measurements > 0 {
            parts.push(format!("{} measurement{}", self.measurements, if self.measurements == 1 { "" } else { "s" }));
        }
        if self.executions > 0 {
            parts.push(format!("{} model-chosen execution{}", self.executions, if self.executions == 1 { "" } else { "s" }));
        }
        if self.model {
            parts.push("a trained model".to_owned());
        }
        match parts.len() {
            0 => "nothing".to_owned(),
            1 => parts.remove(0),
            _ => {
                let last = parts.pop().unwrap_or_default();
                format!("{} and {last}", parts.join(", "))
            }
        }
    }
}

/// What [`save`] would write for `region` now.
pub fn pending(region: &Region, b: &Binding) -> Pending {
    let measurements = region.with_measurements(|st| st.unsaved()).iter().map(|u| u.count as u64).sum();
    let vname = |v: usize| region.spec.variants[v].clone();
    let ex = execution_records(region, b, &vname);
    let executions = ex.monitored.iter().map(|m| m.count).chain(ex.runs.iter().map(|r| r.executions)).sum();
    let model = region.trained().filter(|t| t.epoch != b.saved_epoch).is_some_and(|t| model_record(region, &t, &vname).is_some());
    Pending { measurements, executions, model }
}

/// Opens (creating it if needed) the folder of `program` in the store `root`: the check a save
/// makes first, so that an unusable store is said once for the whole process.
pub fn open_store(root: &Path, program: &Program) -> Result<(), safe_fs::Error> {
    open_program(root, program, true).map(drop)
}

/// The program's folder of the store, for files of the whole program (see
/// [`crate::whole_run`]); created with `create`. None where it cannot be opened.
pub fn program_folder(root: &Path, program: &Program, create: bool) -> Option<Dir> {
    open_program(root, program, create).ok()
}

/// Whether the store can take this program's data: its folder opens (created if need be) and
/// may be written. Checked when the first region attaches, so that a long job learns at its
/// start — not at its exit — that what it learns will not be saved.
pub fn check_writable(root: &Path, program: &Program) -> Result<(), safe_fs::Error> {
    open_program(root, program, true)?.writable()
}

/// Writes what `region` learned since its last save as a new part file (nothing if nothing is
/// new), then compacts if parts piled up. Returns the file written. Nothing is marked saved
/// unless the file was written: after a failure the next save writes it all. A compaction
/// that fails after the part was written does not make the save fail (one line says so).
pub fn save(region: &Region, b: &mut Binding) -> Result<Option<PathBuf>, String> {
    let spec = &region.spec;
    let vname = |v: usize| spec.variants[v].clone();
    let unsaved = region.with_measurements(|st| st.unsaved());
    let samples = sample_records(&unsaved, &vname);
    let executions = execution_records(region, b, &vname);
    let trained = region.trained().filter(|t| t.epoch != b.saved_epoch);
    let model_trained = trained.as_ref().and_then(|t| model_record(region, t, &vname));
    if samples.is_empty() && executions.monitored.is_empty() && executions.runs.is_empty() && model_trained.is_none() {
        if let Some(t) = trained {
            b.saved_epoch = t.epoch;
        }
        return Ok(None);
    }
    let file = DataFile {
        format: FORMAT.into(),
        version: VERSION,
        program: b.program.name.clone(),
        program_id: b.program.id.clone(),
        model: spec.model.clone(),
        loc: spec.loc.clone(),
        features: spec.features.clone(),
        variants: spec.variants.clone(),
        written_unix_ns: unix_ns(),
        reset: false,
        merged_parts: Vec::new(),
        samples,
        monitored: executions.monitored,
        runs: executions.runs,
        model_trained,
        writer: writer(),
        teams: region.teams.get().filter(|t| !b.stored_teams.contains(t)).cloned().into_iter().collect(),
        unavailable: unavailable_records(region).into_iter().filter(|u| !b.stored_unavailable.contains(u)).collect(),
    };
    let Some((rdir, path)) = write_part(b, &file)? else { return Ok(None) };
    b.stored_teams.extend(file.teams.iter().cloned());
    b.stored_unavailable.extend(file.unavailable.iter().cloned());
    // written: only now is it saved
    region.with_measurements(|st| st.mark_saved(&unsaved));
    b.monitored_base.extend(executions.bases);
    if let Some(t) = trained {
        b.saved_epoch = t.epoch;
    }
    let compacted = compact_if_due(&rdir, &spec.model, &spec.features, b.compact_after);
    if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
        b.loaded.add_own_part(&rdir, name, &file, compacted);
    }
    Ok(Some(path))
}

#[cfg(test)]
mod tests;
