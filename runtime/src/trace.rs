//! `OMPADAPT_TRACE=<file>`: a timeline of every region execution, written at exit as Chrome
//! trace-event JSON, which Perfetto (ui.perfetto.dev), chrome://tracing and `ompadapt trace`
//! read.
//!
//! Each execution is one complete event (`"ph": "X"`): the region's name, its start (`ts`) and
//! duration (`dur`) in µs from the first region's creation, the process and the OS thread, and
//! in `args` the variant, the feature values, whether it explored or was decided (and what
//! decided it: the model's prediction, the label exploration measured for its vector, or a
//! fixed variant), whether it was its variant's first (cold) execution in the process, and the
//! offload device where the runtime saw the launch's (the `cpu` variant of an offload: the
//! device its launch names). Metadata events name the process and the threads; `otherData`
//! holds the program, the clock, the regions and the counts of recorded and dropped events.
//!
//! Cost: when off, an execution pays one relaxed load and a branch never taken at its start
//! ([`on`]). When on, every execution reads the clock at its start and end (trained ones too,
//! which otherwise read it once in `OMPADAPT_SAMPLE`), and its end appends 48 bytes plus 8 per
//! feature to the calling thread's buffer, under a lock no other thread takes before exit.
//!
//! Bounds: at most `OMPADAPT_TRACE_MAX` events (default [`DEFAULT_MAX`]) are kept. Threads
//! reserve them from one counter in blocks of [`BLOCK`]; an execution that finds none left is
//! counted as dropped, and the file's `otherData` and one line on stderr say how many. The file
//! takes about 250 bytes per event.
//!
//! The file is written by the registry's exit handler, after the report, through
//! [`crate::safe_fs`] (a new file renamed into place, no link followed). In secure-execution
//! mode the variable is ignored like every other (see [`crate::env`]).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::clock;
use crate::diag;
use crate::safe_fs;
use crate::stats::{FeatureKey, FxBuild};

/// Default of `OMPADAPT_TRACE_MAX`.
pub const DEFAULT_MAX: u64 = 1_000_000;
/// Events a thread reserves from the cap at a time.
pub const BLOCK: u64 = 256;
/// Offload devices a thread keeps for executions that have not ended yet.
const MAX_PENDING_DEVICES: usize = 64;
/// `Event::device` when the launch's device is not known.
const NO_DEVICE: i32 = i32::MIN;

static ON: AtomicBool = AtomicBool::new(false);
static TRACE: OnceLock<Trace> = OnceLock::new();

/// Whether executions are traced: the one check an untraced execution pays.
#[inline(always)]
pub fn on() -> bool {
    ON.load(Relaxed)
}

struct Trace {
    path: PathBuf,
    max: u64,
    /// Events not yet reserved by a thread.
    left: AtomicU64,
    /// The clock's reading when tracing started: time 0 of the file.
    base: u64,
    started_unix_ns: u64,
    logs: Mutex<Vec<Arc<ThreadLog>>>,
}

/// Starts tracing into `path`, keeping at most `max` events (the first call wins).
pub fn start(path: PathBuf, max: u64) {
    let t = Trace {
        path,
        max,
        left: AtomicU64::new(max),
        base: clock::now(),
        started_unix_ns: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64),
        logs: Mutex::new(Vec::new()),
    };
    if TRACE.set(t).is_ok() {
        crate::every_execution::need();
        ON.store(true, Release);
    }
}

/// What chose a decided execution's variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decided {
    /// The trained model's prediction (a vector it was not trained on).
    Trained,
    /// The label exploration measured for the vector (the model was trained on it).
    Explored,
    /// A fixed variant (`OMPADAPT_VARIANT`, the API, a frozen run without a model, coarse
    /// mode's pin for the run).
    Fixed,
}

impl Decided {
    /// How the trace file writes it.
    pub fn name(self) -> &'static str {
        match self {
            Decided::Trained => "trained",
            Decided::Explored => "explored",
            Decided::Fixed => "fixed",
        }
    }
}

/// One ended execution, as a region hands it to the trace.
pub struct Execution<'a> {
    /// The region's address (named at exit by [`RegionInfo::id`]).
    pub region: usize,
    /// Its feature vector.
    pub features: &'a [f64],
    /// The variant (negative: none ran that the region records).
    pub variant: i32,
    /// Clock reading at its start.
    pub start: u64,
    /// Clock reading at its end.
    pub end: u64,
    /// None: exploring.
    pub decided: Option<Decided>,
    /// The variant's first execution in the process (a cold measurement).
    pub cold: bool,
    /// Whether the region recorded it (not: a malformed descriptor, an unavailable variant).
    pub recorded: bool,
    /// The context's address, to match the offload device noted for it.
    pub ctx: usize,
}

/// A region as the trace names it.
#[derive(Clone, Debug)]
pub struct RegionInfo {
    /// The region's address (what [`Execution::region`] holds).
    pub id: usize,
    /// Its name.
    pub name: String,
    /// Where its directive is (`file:line`).
    pub loc: String,
    /// Its variant names.
    pub variants: Vec<String>,
    /// Its feature names.
    pub features: Vec<String>,
}

#[derive(Clone, Copy)]
struct Event {
    region: usize,
    start: u64,
    end: u64,
    /// Where its features start in the thread's feature buffer.
    features: usize,
    nfeatures: u8,
    kind: u8,
    variant: i32,
    device: i32,
}

/// `Event::kind`: the low two bits say what decided (0: exploring, else [`Decided`] + 1).
const KIND_COLD: u8 = 4;
const KIND_UNRECORDED: u8 = 8;

/// One thread's buffer.
struct ThreadLog {
    tid: i64,
    /// Order in which threads first traced an execution.
    order: usize,
    events: Mutex<Events>,
}

#[derive(Default)]
struct Events {
    list: Vec<Event>,
    features: Vec<f64>,
    /// Events reserved from the cap and not yet used.
    reserved: u64,
    dropped: u64,
    /// (context address, device) of offload launches whose executions have not ended.
    devices: Vec<(usize, i32)>,
}

impl Events {
    /// Takes one event from the cap: from this thread's block, or a new block.
    fn reserve(&mut self, left: &AtomicU64) -> bool {
        if self.reserved == 0 {
            let before = left.fetch_update(Relaxed, Relaxed, |n| (n > 0).then(|| n - n.min(BLOCK)));
            self.reserved = before.map_or(0, |n| n.min(BLOCK));
        }
        if self.reserved == 0 {
            return false;
        }
        self.reserved -= 1;
        true
    }

    fn take_device(&mut self, ctx: usize) -> i32 {
        match self.devices.iter().rposition(|&(c, _)| c == ctx) {
            Some(i) => self.devices.remove(i).1,
            None => NO_DEVICE,
        }
    }
}

thread_local! {
    static LOG: RefCell<Option<Arc<ThreadLog>>> = const { RefCell::new(None) };
    /// Per region: the epoch this thread last asked about and what decided under it.
    static DECIDES: RefCell<HashMap<usize, (u64, Decides), FxBuild>> = RefCell::new(HashMap::default());
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Trace {
    fn register(&self) -> Arc<ThreadLog> {
        let mut logs = lock(&self.logs);
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::syscall(libc::SYS_gettid) } as i64;
        let log = Arc::new(ThreadLog { tid, order: logs.len(), events: Mutex::new(Events::default()) });
        logs.push(log.clone());
        log
    }
}

/// Runs `f` on the calling thread's buffer (None: not tracing, or the thread is exiting).
fn with_events<R>(f: impl FnOnce(&Trace, &mut Events) -> R) -> Option<R> {
    let t = TRACE.get()?;
    LOG.try_with(|slot| {
        let mut slot = slot.borrow_mut();
        let log = slot.get_or_insert_with(|| t.register());
        let mut events = lock(&log.events);
        f(t, &mut events)
    })
    .ok()
}

/// Records an ended execution (or counts it as dropped past the cap).
pub fn record(x: &Execution) {
    with_events(|t, ev| {
        let device = ev.take_device(x.ctx);
        if !ev.reserve(&t.left) {
            ev.dropped += 1;
            return;
        }
        let at = ev.features.len();
        ev.features.extend_from_slice(x.features);
        let decided = x.decided.map_or(0, |d| d as u8 + 1);
        let kind = decided | if x.cold { KIND_COLD } else { 0 } | if x.recorded { 0 } else { KIND_UNRECORDED };
        ev.list.push(Event {
            region: x.region,
            start: x.start,
            end: x.end,
            features: at,
            nfeatures: x.features.len() as u8,
            kind,
            variant: x.variant,
            device,
        });
    });
}

/// Notes the device an offload launch on `ctx` names (`ompadapt_host_enter`): its execution's
/// event carries it.
pub fn note_device(ctx: usize, device: i64) {
    with_events(|_, ev| {
        if ev.devices.len() == MAX_PENDING_DEVICES {
            ev.devices.remove(0);
        }
        ev.devices.push((ctx, device.clamp(i32::MIN as i64 + 1, i32::MAX as i64) as i32));
    });
}

/// What decides a region's executions under one epoch.
pub enum Decides {
    /// A fixed variant (or no model: coarse mode's pins).
    Fixed,
    /// A model trained on these feature vectors.
    Model(HashSet<FeatureKey, FxBuild>),
}

/// What decided region `region`'s execution on `key` under `epoch`; `decides` says what decides
/// under that epoch (asked once per thread, region and epoch).
pub fn decided_by(region: usize, epoch: u64, decides: impl FnOnce() -> Decides, key: &FeatureKey) -> Decided {
    DECIDES
        .try_with(|cache| {
            let mut cache = cache.borrow_mut();
            let entry = cache.entry(region).or_insert((u64::MAX, Decides::Fixed));
            if entry.0 != epoch {
                *entry = (epoch, decides());
            }
            match &entry.1 {
                Decides::Fixed => Decided::Fixed,
                Decides::Model(keys) if keys.contains(key) => Decided::Explored,
                Decides::Model(_) => Decided::Trained,
            }
        })
        .unwrap_or(Decided::Trained)
}

/// One thread's events, taken at exit, in order of start.
struct Lane {
    tid: i64,
    order: usize,
    events: Vec<Event>,
    features: Vec<f64>,
    dropped: u64,
}

impl Trace {
    fn take_lanes(&self) -> Vec<Lane> {
        let logs = lock(&self.logs).clone();
        let mut lanes: Vec<Lane> = logs
            .iter()
            .map(|log| {
                let mut ev = lock(&log.events);
                let mut events = std::mem::take(&mut ev.list);
                events.sort_by_key(|e| e.start);
                Lane { tid: log.tid, order: log.order, events, features: std::mem::take(&mut ev.features), dropped: ev.dropped }
            })
            .collect();
        lanes.sort_by_key(|l| (l.tid != std::process::id() as i64, l.order));
        lanes
    }
}

/// Writes the trace (once; the registry's exit handler calls it after the report). Executions
/// that end later are not traced.
pub fn finish(program: &str, regions: &[RegionInfo]) {
    let Some(t) = TRACE.get() else { return };
    if !ON.swap(false, AcqRel) {
        return;
    }
    let lanes = t.take_lanes();
    let recorded: u64 = lanes.iter().map(|l| l.events.len() as u64).sum();
    let dropped: u64 = lanes.iter().map(|l| l.dropped).sum();
    let doc = Document::new(t, program, regions, &lanes);
    let path = file_name(&t.path, std::process::id());
    if let Err(e) = safe_fs::write_file_atomic_with(&path, |w| doc.write(w)) {
        diag::warn(&format!("OMPADAPT_TRACE: {e}"));
        return;
    }
    if dropped > 0 {
        diag::warn(&format!(
            "OMPADAPT_TRACE: {} holds {recorded} region executions; {dropped} more were not recorded (OMPADAPT_TRACE_MAX={})",
            path.display(),
            t.max
        ));
    }
}

/// The file `OMPADAPT_TRACE` names, `%p` replaced by the process id (one file per process
/// when several write traces, e.g. MPI ranks).
fn file_name(path: &std::path::Path, pid: u32) -> PathBuf {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let bytes = path.as_os_str().as_bytes();
    if !bytes.windows(2).any(|w| w == b"%p") {
        return path.to_path_buf();
    }
    let text = String::from_utf8_lossy(bytes).replace("%p", &pid.to_string());
    PathBuf::from(std::ffi::OsString::from_vec(text.into_bytes()))
}

/// A region's names, escaped for JSON once.
struct Names {
    name: String,
    variants: Vec<String>,
    /// Feature names, distinct (`f<i>` where the directive gave none or a repeated one).
    features: Vec<String>,
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into())
}

impl Names {
    fn of(r: &RegionInfo) -> Names {
        let mut seen = HashSet::new();
        let features = (0..crate::ctx::MAX_FEATURES)
            .map(|i| match r.features.get(i).map(|f| f.trim()) {
                Some(f) if !f.is_empty() && seen.insert(f.to_owned()) => quoted(f),
                _ => quoted(&format!("f{i}")),
            })
            .collect();
        Names { name: quoted(&r.name), variants: r.variants.iter().map(|v| quoted(v)).collect(), features }
    }

    fn unknown() -> Names {
        Names {
            name: quoted("?"),
            variants: Vec::new(),
            features: (0..crate::ctx::MAX_FEATURES).map(|i| quoted(&format!("f{i}"))).collect(),
        }
    }
}

/// Writes a number as JSON (non-finite values as null).
fn number(w: &mut dyn Write, x: f64) -> io::Result<()> {
    if x.is_finite() {
        write!(w, "{x}")
    } else {
        w.write_all(b"null")
    }
}

/// Nanoseconds as µs with three decimals (exact).
fn micros(w: &mut dyn Write, ns: u64) -> io::Result<()> {
    write!(w, "{}.{:03}", ns / 1000, ns % 1000)
}

struct Document<'a> {
    trace: &'a Trace,
    program: &'a str,
    regions: &'a [RegionInfo],
    names: HashMap<usize, Names>,
    unknown: Names,
    lanes: &'a [Lane],
    pid: u32,
}

impl<'a> Document<'a> {
    fn new(trace: &'a Trace, program: &'a str, regions: &'a [RegionInfo], lanes: &'a [Lane]) -> Self {
        let names = regions.iter().map(|r| (r.id, Names::of(r))).collect();
        Document { trace, program, regions, names, unknown: Names::unknown(), lanes, pid: std::process::id() }
    }

    fn write(&self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(b"{\"traceEvents\": [\n")?;
        self.write_metadata(w)?;
        for lane in self.lanes {
            for e in &lane.events {
                w.write_all(b",\n")?;
                self.write_event(w, lane, e)?;
            }
        }
        w.write_all(b"\n],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": ")?;
        serde_json::to_writer_pretty(&mut *w, &self.other_data())?;
        w.write_all(b"\n}\n")
    }

    /// The process's name, and each thread's name and place.
    fn write_metadata(&self, w: &mut dyn Write) -> io::Result<()> {
        let pid = self.pid;
        write!(w, r#"{{"name": "process_name", "ph": "M", "pid": {pid}, "tid": {pid}, "args": {{"name": {}}}}}"#, quoted(self.program))?;
        let mut others = 0;
        for (i, lane) in self.lanes.iter().enumerate() {
            let name = if lane.tid == pid as i64 {
                "main thread".to_owned()
            } else {
                others += 1;
                format!("thread {others}")
            };
            let tid = lane.tid;
            write!(
                w,
                ",\n{{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": {pid}, \"tid\": {tid}, \"args\": {{\"name\": {}}}}}",
                quoted(&name)
            )?;
            write!(
                w,
                ",\n{{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": {pid}, \"tid\": {tid}, \"args\": {{\"sort_index\": {i}}}}}"
            )?;
        }
        Ok(())
    }

    fn write_event(&self, w: &mut dyn Write, lane: &Lane, e: &Event) -> io::Result<()> {
        let names = self.names.get(&e.region).unwrap_or(&self.unknown);
        write!(w, "{{\"name\": {}, \"cat\": \"ompadapt\", \"ph\": \"X\", \"ts\": ", names.name)?;
        micros(w, clock::to_ns(e.start.saturating_sub(self.trace.base)))?;
        w.write_all(b", \"dur\": ")?;
        micros(w, clock::to_ns(e.end.saturating_sub(e.start)))?;
        write!(w, ", \"pid\": {}, \"tid\": {}, \"args\": {{\"variant\": ", self.pid, lane.tid)?;
        match usize::try_from(e.variant).ok().and_then(|v| names.variants.get(v)) {
            Some(v) => w.write_all(v.as_bytes())?,
            None => w.write_all(b"null")?,
        }
        w.write_all(b", \"features\": {")?;
        let values = lane.features.get(e.features..e.features + e.nfeatures as usize).unwrap_or(&[]);
        for (i, &x) in values.iter().enumerate() {
            write!(w, "{}{}: ", if i > 0 { ", " } else { "" }, names.features[i])?;
            number(w, x)?;
        }
        w.write_all(b"}")?;
        self.write_kind(w, e)?;
        w.write_all(b"}}")
    }

    /// How the variant was chosen, and the flags an event may carry.
    fn write_kind(&self, w: &mut dyn Write, e: &Event) -> io::Result<()> {
        let decided = [None, Some(Decided::Trained), Some(Decided::Explored), Some(Decided::Fixed)][(e.kind & 3) as usize];
        match decided {
            None => w.write_all(b", \"mode\": \"exploring\"")?,
            Some(d) => write!(w, ", \"mode\": \"decided\", \"decision\": \"{}\"", d.name())?,
        }
        if e.kind & KIND_COLD != 0 {
            w.write_all(b", \"cold\": true")?;
        }
        if e.kind & KIND_UNRECORDED != 0 {
            w.write_all(b", \"recorded\": false")?;
        }
        if e.device != NO_DEVICE {
            write!(w, ", \"device\": {}", e.device)?;
        }
        Ok(())
    }

    fn other_data(&self) -> serde_json::Value {
        let recorded: u64 = self.lanes.iter().map(|l| l.events.len() as u64).sum();
        let dropped: u64 = self.lanes.iter().map(|l| l.dropped).sum();
        let regions: Vec<serde_json::Value> = self
            .regions
            .iter()
            .map(|r| serde_json::json!({"name": r.name, "loc": r.loc, "variants": r.variants, "features": r.features}))
            .collect();
        serde_json::json!({
            "format": "ompadapt-trace",
            "version": 1,
            "program": self.program,
            "clock": clock::source(),
            "started_unix_ns": self.trace.started_unix_ns,
            "events": recorded,
            "dropped": dropped,
            "max_events": self.trace.max,
            "threads": self.lanes.len(),
            "regions": regions,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_reserved_until_the_cap() {
        let left = AtomicU64::new(BLOCK + 3);
        let (mut a, mut b) = (Events::default(), Events::default());
        assert!(a.reserve(&left));
        assert_eq!((a.reserved, left.load(Relaxed)), (BLOCK - 1, 3));
        assert!(b.reserve(&left));
        assert_eq!((b.reserved, left.load(Relaxed)), (2, 0));
        assert!(b.reserve(&left) && b.reserve(&left));
        assert!(!b.reserve(&left), "the cap is reached for b");
        assert!(a.reserve(&left), "a still holds reserved events");
    }

    #[test]
    fn what_decides_is_asked_once_per_thread_region_and_epoch() {
        let (k, other) = (FeatureKey::new(&[1.0]), FeatureKey::new(&[2.0]));
        let asked = std::cell::Cell::new(0);
        let model = || {
            asked.set(asked.get() + 1);
            Decides::Model([k].into_iter().collect())
        };
        assert_eq!(decided_by(7, 1, model, &k), Decided::Explored);
        assert_eq!(decided_by(7, 1, model, &other), Decided::Trained);
        assert_eq!(asked.get(), 1);
        assert_eq!(decided_by(7, 3, || Decides::Fixed, &k), Decided::Fixed);
        assert_eq!(decided_by(8, 3, model, &k), Decided::Explored);
        assert_eq!(asked.get(), 2);
    }

    #[test]
    fn percent_p_is_the_process_id() {
        assert_eq!(file_name(std::path::Path::new("out/t-%p.json"), 42), PathBuf::from("out/t-42.json"));
        assert_eq!(file_name(std::path::Path::new("t.json"), 42), PathBuf::from("t.json"));
    }

    #[test]
    fn devices_are_matched_by_context() {
        let mut ev = Events::default();
        ev.devices.push((1, 0));
        ev.devices.push((2, 3));
        assert_eq!(ev.take_device(2), 3);
        assert_eq!(ev.take_device(2), NO_DEVICE);
        assert_eq!(ev.take_device(1), 0);
    }

    #[test]
    fn numbers_and_times_are_json() {
        let mut out = Vec::new();
        micros(&mut out, 1_234_567).unwrap();
        out.push(b' ');
        micros(&mut out, 5).unwrap();
        out.push(b' ');
        number(&mut out, f64::NAN).unwrap();
        out.push(b' ');
        number(&mut out, 100.0).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "1234.567 0.005 null 100");
    }

    #[test]
    fn feature_names_are_distinct() {
        let r = RegionInfo {
            id: 1,
            name: "m\"x".into(),
            loc: String::new(),
            variants: vec!["a".into()],
            features: vec!["n".into(), "n".into(), " ".into()],
        };
        let n = Names::of(&r);
        assert_eq!(n.name, r#""m\"x""#);
        assert_eq!(&n.features[..4], &[r#""n""#, r#""f1""#, r#""f2""#, r#""f3""#]);
    }
}
