//! A region directory's merged view kept in one binary file, `.snapshot`, so that a run's
//! start reads one small file instead of parsing the JSON of `merged.json` and of every part
//! (one more per trained run, until compaction).
//!
//! The snapshot is a cache, never the data: it names the files it was merged from (`merged.json`
//! by inode, size and modification time, since compaction replaces it; parts by name, since a
//! part is never rewritten) and is used only while each of them is still there unchanged. The
//! parts written since (by name: not among those) are read as usual and merged after it, and
//! only when every one of them is newer than the newest file it holds, so the view is exactly
//! the one reading every file in order gives; anything else (a compaction, a part moved aside,
//! an older part that appeared late, a damaged or foreign snapshot, other features) reads
//! every file. It is written atomically without fsync by the run that read the files, and by
//! a run's exit with the part it wrote merged in ([`Loaded::add_own_part`]: only a part of
//! execution counts newer than every file the view holds), under the shared lock (a
//! compaction, which changes what it names, takes the exclusive one), and never moved aside: a
//! torn one fails its checksum and is written again. It also keeps the assessment of its data
//! the run made at start ([`Settled`]), restored by the next run where its inputs hash the same.

use std::collections::HashSet;

use super::format::{DataFile, LabelRecord, ModelRecord, UnavailableRecord, Writer};
use super::is_part;
use super::merge::{read_dir, refused, DirReader, Merged, MonitoredData, PairData};
use crate::measurements::Settled;
use crate::safe_fs::{Dir, Kind, MAX_READ};

/// The snapshot's file name (neither `merged.json` nor a part: other readers never see it).
pub(super) const NAME: &str = ".snapshot";
/// Version 2: the header and the model's labels in binary (their JSON was 0.37 M
/// instructions of a 61-vector region's start).
const MAGIC: &[u8; 8] = b"OMPASNP2";

/// What identifies `merged.json`: compaction replaces it by a rename (a new inode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FileId {
    ino: u64,
    size: u64,
    mtime_ns: i128,
}

impl FileId {
    /// `name`'s identity in `dir` (None: missing, or not a plain file).
    pub(super) fn of(dir: &Dir, name: &str) -> Option<FileId> {
        match dir.kind(name)? {
            (Kind::File, st) => Some(FileId {
                ino: st.st_ino as u64,
                size: st.st_size as u64,
                mtime_ns: st.st_mtime as i128 * 1_000_000_000 + st.st_mtime_nsec as i128,
            }),
            _ => None,
        }
    }
}

/// A snapshot: the files it was merged from, and the view.
pub(super) struct Snapshot {
    /// The features the files were read with.
    pub features: Vec<String>,
    /// `merged.json` as it was (None: there was none).
    pub merged: Option<FileId>,
    /// The parts merged, and the parts `merged.json` contains (skipped).
    pub parts: Vec<String>,
    pub skip: Vec<String>,
    /// The newest file merged: (written_unix_ns, name).
    pub newest: (u64, String),
    pub view: Merged,
    /// What assessing the view's data decided in the run that left it (see [`Settled`]).
    pub settled: Option<Settled>,
}

/// The parts of the view JSON holds well (small, and of types that have their own formats);
/// the header and the model's labels, larger and plain, are binary.
#[derive(serde::Deserialize)]
struct Meta {
    definitions: Vec<(String, Vec<String>, Vec<String>)>,
    model: Option<ModelRecord>,
    files: Vec<String>,
    teams: Vec<crate::team::TeamRecord>,
    unavailable: Vec<UnavailableRecord>,
}

/// [`Meta`] as written: borrowed from the view (the model's labels taken out).
#[derive(serde::Serialize)]
struct MetaOut<'a> {
    definitions: Vec<(&'a str, &'a [String], &'a [String])>,
    model: Option<&'a ModelRecord>,
    files: &'a [String],
    teams: &'a [crate::team::TeamRecord],
    unavailable: &'a [UnavailableRecord],
}

#[derive(Default)]
struct Out(Vec<u8>);

impl Out {
    fn u64(&mut self, x: u64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    fn f64s(&mut self, xs: &[f64]) {
        self.u64(xs.len() as u64);
        for x in xs {
            self.u64(x.to_bits());
        }
    }
    fn opt(&mut self, x: Option<u32>) {
        self.u64(x.map_or(u64::MAX, u64::from));
    }
    fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
    fn strs(&mut self, ss: &[String]) {
        self.u64(ss.len() as u64);
        for s in ss {
            self.str(s);
        }
    }
}

struct In<'a>(&'a [u8]);

impl In<'_> {
    fn bytes(&mut self, n: usize) -> Option<&[u8]> {
        (n <= self.0.len()).then(|| {
            let (a, b) = self.0.split_at(n);
            self.0 = b;
            a
        })
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }
    /// A length, at most what is left (so that a damaged one allocates nothing huge).
    fn len(&mut self) -> Option<usize> {
        let n = self.u64()?;
        (n <= self.0.len() as u64).then_some(n as usize)
    }
    fn opt(&mut self) -> Option<Option<u32>> {
        match self.u64()? {
            u64::MAX => Some(None),
            x => Some(Some(u32::try_from(x).ok()?)),
        }
    }
    fn f64s(&mut self) -> Option<Vec<f64>> {
        let n = self.len()?;
        (0..n).map(|_| self.u64().map(f64::from_bits)).collect()
    }
    fn str(&mut self) -> Option<String> {
        let n = self.len()?;
        String::from_utf8(self.bytes(n)?.to_vec()).ok()
    }
    fn strs(&mut self) -> Option<Vec<String>> {
        let n = self.len()?;
        (0..n).map(|_| self.str()).collect()
    }
}

impl Snapshot {
    /// The snapshot `bytes` hold (None: not one, or damaged).
    pub fn decode(bytes: &[u8]) -> Option<Snapshot> {
        let body = bytes.strip_prefix(MAGIC.as_slice())?;
        let (sum, body) = body.split_at_checked(8)?;
        if u64::from_le_bytes(sum.try_into().ok()?) != checksum(body) {
            return None;
        }
        let mut i = In(body);
        let features = i.strs()?;
        let has_merged = i.u64()? == 1;
        let (ino, size) = (i.u64()?, i.u64()?);
        let mtime_ns = i128::from_le_bytes(i.bytes(16)?.try_into().ok()?);
        let merged = has_merged.then_some(FileId { ino, size, mtime_ns });
        let (parts, skip) = (i.strs()?, i.strs()?);
        let newest = (i.u64()?, i.str()?);
        let header = decode_header(&mut i)?;
        let labels = decode_labels(&mut i)?;
        let meta: Meta = serde_json::from_str(&i.str()?).ok()?;
        let mut view = Merged {
            header,
            definitions: meta
                .definitions
                .into_iter()
                .map(|(loc, features, variants)| super::Definition { loc, features, variants })
                .collect(),
            model: meta.model.map(|m| ModelRecord { labels, ..m }),
            files: meta.files,
            teams: meta.teams,
            unavailable: meta.unavailable,
            ..Merged::default()
        };
        decode_data(&mut i, &mut view)?;
        let settled = decode_settled(&mut i)?;
        i.0.is_empty().then_some(Snapshot { features, merged, parts, skip, newest, view, settled })
    }

    /// Reads `dir`'s snapshot (None: none there, or not usable).
    pub fn read(dir: &Dir) -> Option<Snapshot> {
        Snapshot::decode(&dir.read(NAME, MAX_READ).ok()?)
    }
}

/// A snapshot of `v` (see [`Snapshot`]) as bytes: magic, checksum of the body, body.
fn encode(
    features: &[String],
    merged: Option<FileId>,
    parts: &[String],
    skip: &[String],
    newest: &(u64, String),
    v: &mut Merged,
    settled: Option<&Settled>,
) -> Option<Vec<u8>> {
    let mut o = Out::default();
    o.strs(&features);
    let m = merged.unwrap_or(FileId { ino: 0, size: 0, mtime_ns: -1 });
    o.u64(merged.is_some() as u64);
    o.u64(m.ino);
    o.u64(m.size);
    o.0.extend_from_slice(&m.mtime_ns.to_le_bytes());
    o.strs(parts);
    o.strs(skip);
    o.u64(newest.0);
    o.str(&newest.1);
    // the labels are binary: out of the model while it is written as JSON (not cloned)
    let labels = v.model.as_mut().map(|m| std::mem::take(&mut m.labels)).unwrap_or_default();
    let meta = MetaOut {
        definitions: v.definitions.iter().map(|d| (d.loc.as_str(), &d.features[..], &d.variants[..])).collect(),
        model: v.model.as_ref(),
        files: &v.files,
        teams: &v.teams,
        unavailable: &v.unavailable,
    };
    let json = serde_json::to_string(&meta);
    encode_header(&mut o, v.header.as_ref());
    o.u64(labels.len() as u64);
    for l in &labels {
        o.f64s(&l.features);
        o.str(&l.variant);
    }
    if let Some(m) = v.model.as_mut() {
        m.labels = labels;
    }
    o.str(&json.ok()?);
    o.u64(v.samples.len() as u64);
    for ((f, name), p) in &v.samples {
        o.f64s(f);
        o.str(name);
        o.u64(p.count);
        o.u64(p.superseded);
        o.f64s(&p.warm);
        o.f64s(&p.cold);
    }
    o.u64(v.monitored.len() as u64);
    for ((f, name), m) in &v.monitored {
        o.f64s(f);
        o.str(name);
        o.u64(m.count);
        o.u64(m.timed);
        o.u64(m.sum_ns);
    }
    o.u64(v.runs.len() as u64);
    for ((run, f, name), (total, n)) in &v.runs {
        o.str(run);
        o.f64s(f);
        o.str(name);
        o.u64(*total);
        o.u64(*n);
    }
    encode_settled(&mut o, settled);
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&checksum(&o.0).to_le_bytes());
    out.extend_from_slice(&o.0);
    Some(out)
}

/// What a run loaded of a region directory: the view, and what identifies the files it holds
/// (None where no snapshot of it may be left: a file could not be read, or was of other
/// features), so that the run's exit can leave the next run a snapshot holding the part it
/// writes ([`Loaded::add_own_part`]).
#[derive(Debug, Default)]
pub struct Loaded {
    pub view: Merged,
    held: Option<Held>,
    /// The assessment the snapshot kept (see [`Settled`]); after start-up, this run's.
    pub settled: Option<Settled>,
}

#[derive(Debug)]
struct Held {
    features: Vec<String>,
    merged: Option<FileId>,
    skip: Vec<String>,
}

/// What a run loads of `dir`: `read_dir` under the shared lock, through the directory's
/// snapshot where it is current, leaving one for the next run where it read files.
pub fn load(dir: &Dir, region: &str, features: &[String]) -> Loaded {
    match dir.lock(false) {
        Ok(_lock) => read_through_snapshot(dir, region, features),
        Err(e) => {
            refused(&e, "its data is not loaded");
            Loaded::default()
        }
    }
}

/// `read_dir` through the snapshot where it is current (its files all there, unchanged, and
/// every part written since newer than them): the snapshot's view and those parts. Leaves a
/// snapshot of what it read when it read any file.
fn read_through_snapshot(dir: &Dir, region: &str, features: &[String]) -> Loaded {
    let Ok(entries) = dir.entries() else { return Loaded::default() };
    let names: Vec<String> = entries.into_iter().filter(|(_, k)| *k != Kind::Dir).map(|(n, _)| n).collect();
    let snap = names.iter().any(|n| n == NAME).then(|| Snapshot::read(dir)).flatten();
    if let Some(mut s) = snap.filter(|s| s.features == features) {
        let (merged, skip, settled) = (s.merged, s.skip.clone(), s.settled.take());
        if let Some((mut m, read)) = after_snapshot(dir, region, features, &names, s) {
            if read {
                leave_snapshot(dir, features, &mut m, merged, &skip, None);
            }
            return Loaded { settled, ..Loaded::holding(m, features, merged, skip) };
        }
    }
    let mut m = read_dir(dir, region, Some(features));
    let merged = match m.files.first() {
        Some(f) if f == "merged.json" => match FileId::of(dir, f) {
            Some(id) => Some(id),
            None => return Loaded { view: m, ..Loaded::default() },
        },
        _ => None,
    };
    let skip = m.leftovers.clone();
    leave_snapshot(dir, features, &mut m, merged, &skip, None);
    Loaded::holding(m, features, merged, skip)
}

impl Loaded {
    fn holding(view: Merged, features: &[String], merged: Option<FileId>, skip: Vec<String>) -> Loaded {
        let usable = view.unreadable.is_empty() && view.stale_files.is_empty();
        let held = usable.then(|| Held { features: features.to_vec(), merged, skip });
        Loaded { view, held, settled: None }
    }

    /// The run's own assessment of the loaded data, for the snapshot its exit leaves.
    pub fn with_settled(self, settled: Option<Settled>) -> Loaded {
        Loaded { settled, ..self }
    }

    /// After the run wrote part `name` holding `f` to `dir`: leaves the snapshot of the view
    /// with it merged, so that the next run parses no file (nor writes a snapshot at its
    /// start). Only for a part that reads back as it is in memory (execution counts of finite
    /// vectors of these features, the kind a trained run writes) and is newer than every file
    /// the view holds; otherwise, or when `compacted` (the files it names changed), nothing is
    /// written and the view is dropped (the next run reads the part, and leaves the snapshot).
    pub fn add_own_part(&mut self, dir: &Dir, name: &str, f: &DataFile, compacted: bool) {
        let Some(held) = self.held.take() else { return };
        let plain = f.samples.is_empty()
            && f.runs.is_empty()
            && f.model_trained.is_none()
            && f.teams.is_empty()
            && f.unavailable.is_empty()
            && f.monitored.iter().all(|m| m.features.iter().all(|x| x.is_finite()))
            && f.features == held.features
            && f.validate().is_ok();
        let newest = self.view.header.as_ref().zip(self.view.files.last()).map(|(h, n)| (h.written_unix_ns, n.as_str()));
        if compacted || !plain || newest.is_some_and(|n| (f.written_unix_ns, name) <= n) {
            self.view = Merged::default();
            return;
        }
        self.view.extend(vec![(name.to_owned(), f.clone())]);
        if let Ok(_lock) = dir.lock(false) {
            // its part adds execution counts only: the next run's assessment reads what this
            // run's did, and restores it
            leave_snapshot(dir, &held.features, &mut self.view, held.merged, &held.skip, self.settled.as_ref());
        }
        self.held = Some(held);
    }
}

/// The view of snapshot `s` and the parts written since, if `s` is current in `dir` (whose
/// entries are `names`), and whether any part was read.
fn after_snapshot(dir: &Dir, region: &str, features: &[String], names: &[String], s: Snapshot) -> Option<(Merged, bool)> {
    let has_merged = names.iter().any(|n| n == "merged.json");
    if has_merged != s.merged.is_some() || (has_merged && FileId::of(dir, "merged.json") != s.merged) {
        return None;
    }
    let on_disk: HashSet<&str> = names.iter().map(String::as_str).collect();
    if !s.parts.iter().all(|p| on_disk.contains(p.as_str())) {
        return None; // a part it holds was merged into another merged.json, or moved aside
    }
    let covered: HashSet<&str> = s.parts.iter().chain(&s.skip).map(String::as_str).collect();
    let mut reader = DirReader::new(dir, region, features);
    let mut parts: Vec<(String, DataFile)> = names
        .iter()
        .filter(|n| is_part(n) && !covered.contains(n.as_str()))
        .filter_map(|n| reader.load(n).map(|f| (n.clone(), f)))
        .collect();
    parts.sort_by(|a, b| (a.1.written_unix_ns, &a.0).cmp(&(b.1.written_unix_ns, &b.0)));
    if parts.first().is_some_and(|(n, f)| (f.written_unix_ns, n) <= (s.newest.0, &s.newest.1)) {
        return None; // written before a part it holds: merged in order, every file is read
    }
    let read = !parts.is_empty();
    let mut m = s.view;
    if read {
        m.extend(parts);
    }
    m.leftovers = names.iter().filter(|n| is_part(n) && s.skip.contains(n)).cloned().collect();
    m.unreadable = reader.unreadable;
    m.stale_files = reader.stale;
    m.stale_measurements = reader.stale_measurements;
    Some((m, read))
}

/// Writes the snapshot of `m` as read with `features`, `merged.json` being `merged`
/// (containing the parts `skip`); none where a file could not be read now or was of other
/// features (the next run reads every file, as this one did).
fn leave_snapshot(dir: &Dir, features: &[String], m: &mut Merged, merged: Option<FileId>, skip: &[String], settled: Option<&Settled>) {
    if !m.unreadable.is_empty() || !m.stale_files.is_empty() {
        return;
    }
    let (Some(header), Some(last)) = (m.header.as_ref(), m.files.last()) else { return };
    let newest = (header.written_unix_ns, last.clone());
    let parts: Vec<String> = m.files.iter().filter(|n| is_part(n)).cloned().collect();
    if let Some(bytes) = encode(features, merged, &parts, skip, &newest, m, settled) {
        let _ = dir.write_atomic_unsynced(NAME, &bytes);
    }
}

/// The view's header (the newest file's, its data left out: see `Merged::add_header`).
fn encode_header(o: &mut Out, h: Option<&DataFile>) {
    let Some(h) = h else { return o.u64(0) };
    o.u64(1);
    for s in [&h.format, &h.program, &h.program_id, &h.model, &h.loc, &h.writer.host, &h.writer.run] {
        o.str(s);
    }
    o.strs(&h.features);
    o.strs(&h.variants);
    o.strs(&h.merged_parts);
    o.u64(h.version as u64);
    o.u64(h.written_unix_ns);
    o.u64(h.writer.pid as u64);
    o.opt(h.writer.rank);
    o.opt(h.writer.size);
    o.u64(h.reset as u64);
}

fn decode_header(i: &mut In<'_>) -> Option<Option<DataFile>> {
    if i.u64()? == 0 {
        return Some(None);
    }
    let mut s = || i.str();
    let (format, program, program_id, model, loc, host, run) = (s()?, s()?, s()?, s()?, s()?, s()?, s()?);
    let (features, variants, merged_parts) = (i.strs()?, i.strs()?, i.strs()?);
    let version = u32::try_from(i.u64()?).ok()?;
    let written_unix_ns = i.u64()?;
    let pid = u32::try_from(i.u64()?).ok()?;
    let (rank, size) = (i.opt()?, i.opt()?);
    let reset = i.u64()? == 1;
    let writer = Writer { host, pid, rank, size, run };
    Some(Some(DataFile {
        format,
        version,
        program,
        program_id,
        model,
        loc,
        features,
        variants,
        written_unix_ns,
        writer,
        reset,
        merged_parts,
        ..DataFile::default()
    }))
}

/// The model's labels (empty without a model).
fn decode_labels(i: &mut In<'_>) -> Option<Vec<LabelRecord>> {
    let n = i.len()?;
    (0..n).map(|_| Some(LabelRecord { features: i.f64s()?, variant: i.str()? })).collect()
}

/// The view's measurements, executions and run totals.
fn decode_data(i: &mut In<'_>, view: &mut Merged) -> Option<()> {
    let n = i.len()?;
    for _ in 0..n {
        let (f, name) = (i.f64s()?, i.str()?);
        let (count, superseded) = (i.u64()?, i.u64()?);
        let (warm, cold) = (i.f64s()?, i.f64s()?);
        view.samples.push(((f, name), PairData { count, warm, cold, superseded }));
    }
    let n = i.len()?;
    for _ in 0..n {
        let (f, name) = (i.f64s()?, i.str()?);
        view.monitored.push(((f, name), MonitoredData { count: i.u64()?, timed: i.u64()?, sum_ns: i.u64()? }));
    }
    let n = i.len()?;
    for _ in 0..n {
        let (run, f, name) = (i.str()?, i.f64s()?, i.str()?);
        view.runs.push(((run, f, name), (i.u64()?, i.u64()?)));
    }
    Some(())
}

/// The assessment kept (see [`Settled`]), if any.
fn encode_settled(o: &mut Out, settled: Option<&Settled>) {
    let Some(s) = settled else { return o.u64(0) };
    o.u64(1);
    for x in [s.inputs, s.counted, s.decided_n, s.decisions, s.extras] {
        o.u64(x);
    }
    o.u64(s.decided.len() as u64);
    for (&d, &a) in s.decided.iter().zip(&s.alive) {
        o.u64(d as u64);
        o.u64(a);
    }
    o.u64(s.want.len() as u64);
    o.0.extend_from_slice(&s.want);
}

fn decode_settled(i: &mut In<'_>) -> Option<Option<Settled>> {
    if i.u64()? == 0 {
        return Some(None);
    }
    let (inputs, counted, decided_n, decisions, extras) = (i.u64()?, i.u64()?, i.u64()?, i.u64()?, i.u64()?);
    let n = i.len()?;
    let (mut decided, mut alive) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        decided.push(u16::try_from(i.u64()?).ok()?);
        alive.push(i.u64()?);
    }
    let n = i.len()?;
    let want = i.bytes(n)?.to_vec();
    Some(Some(Settled { inputs, decided, alive, want, counted, decided_n, decisions, extras }))
}

/// A checksum of `bytes` (FNV-1a over 8-byte words): catches a torn or damaged snapshot.
fn checksum(bytes: &[u8]) -> u64 {
    let mut chunks = bytes.chunks_exact(8);
    let mut h = (&mut chunks).fold(0xcbf2_9ce4_8422_2325u64 ^ bytes.len() as u64, |h, w| {
        (h ^ u64::from_le_bytes(w.try_into().unwrap_or_default())).wrapping_mul(0x100_0000_01b3)
    });
    for &b in chunks.remainder() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// What tests write as a snapshot (a run writes the view it read, [`leave_snapshot`]).
#[cfg(test)]
impl Snapshot {
    /// The snapshot as bytes: magic, checksum of the body, body.
    pub fn encode(&self) -> Option<Vec<u8>> {
        encode(&self.features, self.merged, &self.parts, &self.skip, &self.newest, &mut self.view.clone(), self.settled.as_ref())
    }

    /// Writes it as `dir`'s snapshot; a failure (a store this user may only read) is no
    /// failure of the run: the files are read again next time.
    pub fn write(&self, dir: &Dir) {
        if let Some(bytes) = self.encode() {
            let _ = dir.write_atomic_unsynced(NAME, &bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::format::{MonitoredRecord, SampleRecord, FORMAT, VERSION};
    use super::super::merge::compact_in;
    use super::*;

    fn file(t: u64, f: f64, variant: &str, supersedes: bool) -> DataFile {
        DataFile {
            format: FORMAT.into(),
            version: VERSION,
            model: "m".into(),
            features: vec!["N".into()],
            variants: vec!["cpu".into(), "gpu".into()],
            written_unix_ns: t,
            samples: vec![SampleRecord {
                features: vec![f],
                variant: variant.into(),
                count: 2,
                times_ns: vec![t as f64, t as f64 + 1.0],
                cold_ns: vec![],
                supersedes,
            }],
            monitored: vec![MonitoredRecord { features: vec![f], variant: variant.into(), count: 3, sum_ns: t, timed: Some(1) }],
            ..Default::default()
        }
    }

    fn put(d: &Dir, name: &str, f: &DataFile) {
        d.write_atomic(name, &serde_json::to_vec(f).unwrap()).unwrap();
    }

    /// Reading through the snapshot gives what reading every file gives, at every step: a
    /// new part, a part older than the snapshot's newest file, a compaction, a damaged
    /// snapshot; and a current snapshot is what is read.
    #[test]
    fn the_snapshot_reads_as_every_file_does() {
        let root = std::env::temp_dir().join(format!("ompadapt-snapshot-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let d = Dir::open(&root, true).unwrap();
        let feats = vec!["N".to_owned()];
        let same = |what: &str| assert_eq!(load(&d, "m", &feats).view, read_dir(&d, "m", Some(&feats)), "{what}");
        put(&d, "part-a-0.json", &file(10, 1.0, "cpu", false));
        put(&d, "part-b-0.json", &file(20, 2.0, "gpu", false));
        same("no snapshot yet");
        let s = Snapshot::read(&d).expect("a snapshot was left");
        assert_eq!((s.parts.len(), s.newest.0), (2, 20));
        // the snapshot is what a run reads while current: a changed view shows
        let mut changed = Snapshot::read(&d).unwrap();
        changed.view.samples[0].1.count += 100;
        changed.write(&d);
        assert_eq!(load(&d, "m", &feats).view.samples[0].1.count, 102);
        s.write(&d);
        put(&d, "part-c-0.json", &file(30, 1.0, "cpu", true));
        same("a newer part, superseding");
        assert_eq!(Snapshot::read(&d).unwrap().parts.len(), 3, "a new snapshot holds it");
        same("current");
        put(&d, "part-d-0.json", &file(15, 3.0, "gpu", false));
        same("an older part");
        compact_in(&d, "m", Some(&feats)).unwrap();
        same("compacted");
        put(&d, "part-e-0.json", &file(40, 2.0, "cpu", false));
        same("after the compaction");
        d.write_atomic(NAME, b"OMPASNP1 torn").unwrap();
        same("a damaged snapshot");
        let other = vec!["M".to_owned()];
        assert!(load(&d, "m", &other).view.samples.is_empty(), "other features: every file read (and set aside)");
        let _ = std::fs::remove_dir_all(&root);
    }

    /// A part of execution counts, as a trained run writes at exit.
    fn counts(t: u64, f: f64) -> DataFile {
        DataFile { samples: vec![], ..file(t, f, "gpu", false) }
    }

    /// The snapshot a run leaves at exit with its own part in it reads as every file does, and
    /// is what the next run reads; a part it cannot hold as written, an own part older than
    /// the view, a compaction, a part another run wrote meanwhile or a writer killed before
    /// the snapshot all leave the next run reading what every file says (nothing lost, nothing
    /// counted twice).
    #[test]
    fn the_exit_snapshot_holds_the_runs_own_part() {
        let root = std::env::temp_dir().join(format!("ompadapt-snapshot-exit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let d = Dir::open(&root, true).unwrap();
        let feats = vec!["N".to_owned()];
        let same = |what: &str| assert_eq!(load(&d, "m", &feats).view, read_dir(&d, "m", Some(&feats)), "{what}");
        let parts = || Snapshot::read(&d).map(|s| s.parts.len());
        put(&d, "part-a-0.json", &file(10, 1.0, "cpu", false));
        let mut run = load(&d, "m", &feats);
        let own = |run: &mut Loaded, name: &str, f: &DataFile, compacted: bool| {
            put(&d, name, f);
            run.add_own_part(&d, name, f, compacted);
        };
        own(&mut run, "part-b-0.json", &counts(20, 1.0), false);
        assert_eq!(parts(), Some(2), "the exit's snapshot holds its part");
        same("the own part");
        // the snapshot is what the next run reads: nothing parsed, nothing written at its start
        let mut changed = Snapshot::read(&d).unwrap();
        changed.view.monitored[0].1.count += 100;
        changed.write(&d);
        assert_eq!(load(&d, "m", &feats).view.monitored[0].1.count, 103);
        changed.view.monitored[0].1.count -= 100;
        changed.write(&d);
        let mut next2 = load(&d, "m", &feats);
        // a later save of the same run adds its next part
        own(&mut next2, "part-c-0.json", &counts(30, 2.0), false);
        own(&mut next2, "part-c-1.json", &counts(31, 1.0), false);
        assert_eq!(parts(), Some(4));
        same("two own parts");
        // another run's part written meanwhile, older than the own part: read, not lost
        let mut a = load(&d, "m", &feats);
        put(&d, "part-x-0.json", &counts(40, 1.0));
        own(&mut a, "part-d-0.json", &counts(50, 1.0), false);
        same("a part another run wrote meanwhile");
        // measurements are not held (their times are what the file says); nor an older part
        let mut b = load(&d, "m", &feats);
        let held = parts();
        own(&mut b, "part-e-0.json", &file(60, 3.0, "cpu", false), false);
        assert_eq!(parts(), held, "a part with measurements is read next time");
        same("measurements");
        let held = parts();
        own(&mut b, "part-f-0.json", &counts(70, 1.0), false);
        assert_eq!(parts(), held, "the view was dropped with the part it could not hold");
        let mut c = load(&d, "m", &feats);
        own(&mut c, "part-g-0.json", &counts(5, 1.0), false);
        same("an own part older than the view");
        // a killed writer: its part is there, no snapshot holds it
        let _ = load(&d, "m", &feats);
        put(&d, "part-h-0.json", &counts(80, 2.0));
        same("killed before the snapshot");
        // a compaction at the save
        let mut e = load(&d, "m", &feats);
        put(&d, "part-i-0.json", &counts(90, 1.0));
        compact_in(&d, "m", Some(&feats)).unwrap();
        e.add_own_part(&d, "part-i-0.json", &counts(90, 1.0), true);
        same("compacted at the save");
        let _ = std::fs::remove_dir_all(&root);
    }
}
