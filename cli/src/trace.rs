//! `ompadapt trace FILE...`: what a timeline the runtime recorded (`OMPADAPT_TRACE=FILE`,
//! Chrome trace-event JSON) says, per region: executions, total and mean time (the mean of the
//! warm executions: each variant's first in a process, cold, is counted apart), per variant
//! (count, time, cold executions, share of the region's time), exploring and decided executions and the time
//! exploration took, threads, and dropped events. Several files (the per-process traces of one
//! run, `%p` in the name; or a directory of them) are read together. `--html OUT` also draws
//! them as one self-contained page, a group of lanes per process (see [`html`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use ompadapt_rt::report::fmt_ns;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::show;

mod html;

/// The file as written: events and `otherData`.
#[derive(Deserialize)]
struct RawFile {
    #[serde(rename = "traceEvents")]
    events: Vec<RawEvent>,
    #[serde(rename = "otherData", default)]
    other: Option<Value>,
}

#[derive(Deserialize)]
struct RawEvent {
    #[serde(default)]
    name: String,
    #[serde(default)]
    ph: String,
    #[serde(default)]
    ts: f64,
    #[serde(default)]
    dur: f64,
    #[serde(default)]
    tid: i64,
    #[serde(default)]
    pid: Option<i64>,
    #[serde(default)]
    args: RawArgs,
}

#[derive(Deserialize, Default)]
struct RawArgs {
    variant: Option<String>,
    mode: Option<String>,
    decision: Option<String>,
    features: Option<Map<String, Value>>,
    cold: Option<bool>,
    device: Option<i64>,
    /// Metadata events: a thread's name, its place.
    name: Option<String>,
    sort_index: Option<i64>,
}

/// One execution.
pub struct Execution {
    /// Index in [`Trace::regions`].
    pub region: usize,
    pub variant: Option<String>,
    /// Start and duration, µs.
    pub ts: f64,
    pub dur: f64,
    pub tid: i64,
    /// None: exploring; else what decided (`trained`, `explored`, `fixed`).
    pub decided: Option<String>,
    pub cold: bool,
    pub device: Option<i64>,
    pub features: Vec<(String, Value)>,
}

/// A thread's lane.
pub struct Thread {
    pub tid: i64,
    pub name: String,
    pub sort: i64,
}

/// A trace read back.
pub struct Trace {
    pub program: String,
    /// The process that wrote it (from its events).
    pub pid: Option<i64>,
    /// When its clock's zero was, Unix ns (lines up the traces of several processes).
    pub started_unix_ns: Option<u64>,
    /// Region names, in the order the runtime lists them (then as met).
    pub regions: Vec<String>,
    /// Per region: its variants as declared (when the file lists them).
    pub declared: HashMap<String, Vec<String>>,
    pub threads: Vec<Thread>,
    pub executions: Vec<Execution>,
    pub dropped: u64,
    pub max_events: Option<u64>,
}

impl Trace {
    /// Reads a trace the runtime wrote.
    pub fn read(path: &Path) -> Result<Trace> {
        let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let raw: RawFile =
            serde_json::from_slice(&bytes).with_context(|| format!("{} is not a trace (Chrome trace-event JSON)", path.display()))?;
        let mut t = Trace::from_other_data(raw.other.as_ref());
        let mut index: HashMap<String, usize> = t.regions.iter().enumerate().map(|(i, r)| (r.clone(), i)).collect();
        let mut names: BTreeMap<i64, (String, i64)> = BTreeMap::new();
        for e in raw.events {
            t.pid = t.pid.or(e.pid);
            match e.ph.as_str() {
                "X" => {
                    let x = t.execution(e, &mut index);
                    t.executions.push(x);
                }
                "M" if e.name == "thread_name" => {
                    names.entry(e.tid).or_insert((String::new(), i64::MAX)).0 = e.args.name.unwrap_or_default()
                }
                "M" if e.name == "thread_sort_index" => {
                    names.entry(e.tid).or_insert((String::new(), i64::MAX)).1 = e.args.sort_index.unwrap_or(i64::MAX)
                }
                _ => {}
            }
        }
        for x in &t.executions {
            names.entry(x.tid).or_insert((String::new(), i64::MAX));
        }
        t.threads = names
            .into_iter()
            .map(|(tid, (name, sort))| Thread { tid, name: if name.is_empty() { format!("thread {tid}") } else { name }, sort })
            .collect();
        t.threads.sort_by_key(|th| (th.sort, th.tid));
        if t.executions.is_empty() && t.regions.is_empty() {
            bail!("{}: no region executions in this trace", path.display());
        }
        Ok(t)
    }

    fn from_other_data(other: Option<&Value>) -> Trace {
        let o = other.cloned().unwrap_or(Value::Null);
        let regions: Vec<(String, Vec<String>)> = o["regions"]
            .as_array()
            .map(|rs| {
                rs.iter()
                    .filter_map(|r| {
                        let vs = r["variants"].as_array().map(|v| v.iter().filter_map(|x| x.as_str().map(String::from)).collect());
                        Some((r["name"].as_str()?.to_owned(), vs.unwrap_or_default()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Trace {
            program: o["program"].as_str().unwrap_or("?").to_owned(),
            pid: None,
            started_unix_ns: o["started_unix_ns"].as_u64(),
            regions: regions.iter().map(|(n, _)| n.clone()).collect(),
            declared: regions.into_iter().collect(),
            threads: Vec::new(),
            executions: Vec::new(),
            dropped: o["dropped"].as_u64().unwrap_or(0),
            max_events: o["max_events"].as_u64(),
        }
    }

    fn execution(&mut self, e: RawEvent, index: &mut HashMap<String, usize>) -> Execution {
        let region = *index.entry(e.name.clone()).or_insert_with(|| {
            self.regions.push(e.name.clone());
            self.regions.len() - 1
        });
        let a = e.args;
        Execution {
            region,
            variant: a.variant,
            ts: e.ts,
            dur: e.dur,
            tid: e.tid,
            decided: if a.mode.as_deref() == Some("decided") { Some(a.decision.unwrap_or_else(|| "?".into())) } else { None },
            cold: a.cold.unwrap_or(false),
            device: a.device,
            features: a.features.map(|m| m.into_iter().collect()).unwrap_or_default(),
        }
    }

    /// The variant's name as the summary shows it.
    pub fn variant_name(x: &Execution) -> &str {
        x.variant.as_deref().unwrap_or("(none)")
    }
}

/// What the trace says about one variant of a region.
#[derive(Serialize, Debug, Default)]
pub struct VariantSummary {
    pub variant: String,
    pub executions: u64,
    pub total_us: f64,
    /// Mean time of its warm executions (cold ones left out; only cold ones: theirs).
    pub mean_us: f64,
    /// Its cold executions (its first in each process) and their time, µs.
    pub cold: u64,
    pub cold_us: f64,
    /// Share of the region's time.
    pub share: f64,
}

/// What the trace says about one region.
#[derive(Serialize, Debug, Default)]
pub struct RegionSummary {
    pub region: String,
    pub executions: u64,
    pub total_us: f64,
    /// Mean time of its warm executions (cold ones left out; only cold ones: theirs).
    pub mean_us: f64,
    /// Cold executions (each variant's first in the process) and their time, µs.
    pub cold: u64,
    pub cold_us: f64,
    pub exploring: u64,
    pub decided: u64,
    /// Time of the exploring executions, µs: what exploration cost.
    pub exploring_us: f64,
    /// Decided executions by what decided: trained, explored, fixed.
    pub decided_by: BTreeMap<String, u64>,
    pub threads: usize,
    pub variants: Vec<VariantSummary>,
}

/// The whole summary (`--json` prints it).
#[derive(Serialize, Debug)]
pub struct Summary {
    pub program: String,
    pub executions: u64,
    pub dropped: u64,
    pub max_events: Option<u64>,
    pub threads: usize,
    /// From the first start to the last end, µs.
    pub span_us: f64,
    /// Time in regions (the regions' totals summed), and the part of it spent exploring, µs.
    pub region_us: f64,
    pub exploring_us: f64,
    pub regions: Vec<RegionSummary>,
}

/// Sums the trace per region and variant.
pub fn summarize(t: &Trace) -> Summary {
    let mut regions: Vec<RegionSummary> = t.regions.iter().map(|r| RegionSummary { region: r.clone(), ..Default::default() }).collect();
    let mut threads: Vec<BTreeSet<i64>> = vec![BTreeSet::new(); regions.len()];
    let mut variants: Vec<BTreeMap<String, VariantSummary>> = t
        .regions
        .iter()
        .map(|r| {
            t.declared
                .get(r)
                .into_iter()
                .flatten()
                .map(|v| (v.clone(), VariantSummary { variant: v.clone(), ..Default::default() }))
                .collect()
        })
        .collect();
    for x in &t.executions {
        let r = &mut regions[x.region];
        r.executions += 1;
        r.total_us += x.dur;
        if x.cold {
            r.cold += 1;
            r.cold_us += x.dur;
        }
        match &x.decided {
            None => {
                r.exploring += 1;
                r.exploring_us += x.dur;
            }
            Some(by) => {
                r.decided += 1;
                *r.decided_by.entry(by.clone()).or_default() += 1;
            }
        }
        threads[x.region].insert(x.tid);
        let name = Trace::variant_name(x);
        let v =
            variants[x.region].entry(name.to_owned()).or_insert_with(|| VariantSummary { variant: name.to_owned(), ..Default::default() });
        v.executions += 1;
        v.total_us += x.dur;
        if x.cold {
            v.cold += 1;
            v.cold_us += x.dur;
        }
    }
    for (i, r) in regions.iter_mut().enumerate() {
        r.mean_us = warm_mean(r.executions, r.total_us, r.cold, r.cold_us);
        r.threads = threads[i].len();
        let declared = t.declared.get(&r.region);
        let mut vs: Vec<VariantSummary> = std::mem::take(&mut variants[i]).into_values().collect();
        // the directive's order, then the others (none ran) by name
        vs.sort_by_key(|v| declared.and_then(|d| d.iter().position(|n| *n == v.variant)).unwrap_or(usize::MAX));
        for v in &mut vs {
            v.mean_us = warm_mean(v.executions, v.total_us, v.cold, v.cold_us);
            v.share = if r.total_us > 0.0 { v.total_us / r.total_us } else { 0.0 };
        }
        r.variants = vs;
    }
    let start = t.executions.iter().map(|x| x.ts).fold(f64::INFINITY, f64::min);
    let end = t.executions.iter().map(|x| x.ts + x.dur).fold(f64::NEG_INFINITY, f64::max);
    Summary {
        program: t.program.clone(),
        executions: t.executions.len() as u64,
        dropped: t.dropped,
        max_events: t.max_events,
        threads: t.threads.len(),
        span_us: if end > start { end - start } else { 0.0 },
        region_us: regions.iter().map(|r| r.total_us).sum(),
        exploring_us: regions.iter().map(|r| r.exploring_us).sum(),
        regions,
    }
}

/// The mean of the warm executions (`executions` taking `total` µs, `cold` of them `cold_us`);
/// with only cold ones, theirs; 0 without any.
fn warm_mean(executions: u64, total: f64, cold: u64, cold_us: f64) -> f64 {
    match (executions, executions - cold.min(executions)) {
        (0, _) => 0.0,
        (n, 0) => total / n as f64,
        (_, warm) => (total - cold_us).max(0.0) / warm as f64,
    }
}

fn us(x: f64) -> String {
    fmt_ns(x * 1000.0)
}

/// What exploration cost: `exploration: X of Y region time (Z %)`.
fn exploration(exploring_us: f64, total_us: f64) -> String {
    let share = if total_us > 0.0 { 100.0 * exploring_us / total_us } else { 0.0 };
    format!("exploration: {} of {} region time ({share:.1} %)", us(exploring_us), us(total_us))
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The summary as text.
pub fn to_text(file: &Path, s: &Summary) -> String {
    let mut out = format!(
        "{}: program '{}', {} on {} over {}, {} dropped\n",
        file.display(),
        s.program,
        plural(s.executions as usize, "execution"),
        plural(s.threads, "thread"),
        us(s.span_us),
        s.dropped
    );
    if s.dropped > 0 {
        let cap = s.max_events.map(|m| format!(" (OMPADAPT_TRACE_MAX={m})")).unwrap_or_default();
        out.push_str(&format!(
            "dropped: {} executions past the cap{cap} were not recorded; the counts below are of the recorded ones\n",
            s.dropped
        ));
    }
    out.push_str(&format!("{}, all regions\n", exploration(s.exploring_us, s.region_us)));
    for r in &s.regions {
        let by: Vec<String> = r.decided_by.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let by = if by.is_empty() { String::new() } else { format!(" ({})", by.join(", ")) };
        out.push_str(&format!(
            "\nregion '{}': {}, total {}, mean {}{}; exploring {}, decided {}{by}; {}\n",
            r.region,
            plural(r.executions as usize, "execution"),
            us(r.total_us),
            us(r.mean_us),
            cold_note(r.cold, r.executions),
            r.exploring,
            r.decided,
            plural(r.threads, "thread")
        ));
        out.push_str(&format!("  {}\n", exploration(r.exploring_us, r.total_us)));
        let mut rows = vec![["variant", "executions", "total", "mean", "cold", "share"].map(String::from).to_vec()];
        for v in &r.variants {
            rows.push(vec![
                v.variant.clone(),
                v.executions.to_string(),
                us(v.total_us),
                us(v.mean_us),
                if v.cold > 0 { format!("{} ({})", v.cold, us(v.cold_us)) } else { String::new() },
                format!("{:.1} %", 100.0 * v.share),
            ]);
        }
        out.push_str(&show::table(&rows, 2));
    }
    out
}

/// What a mean leaves out: ` (without 2 cold)`, or ` (all cold)` when nothing is warm.
fn cold_note(cold: u64, executions: u64) -> String {
    match cold {
        0 => String::new(),
        c if c >= executions => " (all cold)".into(),
        c => format!(" (without {c} cold)"),
    }
}

/// The files named: a directory stands for the `.json` files in it (the per-process traces
/// of one run), in name order.
fn expand(files: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for f in files {
        if f.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(f)
                .with_context(|| format!("cannot read {}", f.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
                .collect();
            if inside.is_empty() {
                bail!("{}: no .json traces in this directory", f.display());
            }
            inside.sort();
            out.extend(inside);
        } else {
            out.push(f.clone());
        }
    }
    Ok(out)
}

/// `ompadapt trace FILE... [--html OUT]`: each file's summary (one file: as it always was;
/// several: one after another, then the exploration over all), and one page for all.
pub fn run(files: &[PathBuf], html_out: Option<&Path>, max_boxes: usize, as_json: bool) -> Result<()> {
    let files = expand(files)?;
    let traces = files.iter().map(|f| Trace::read(f)).collect::<Result<Vec<_>>>()?;
    let summaries: Vec<Summary> = traces.iter().map(summarize).collect();
    let (explored, total) = summaries.iter().fold((0.0, 0.0), |(e, t), s| (e + s.exploring_us, t + s.region_us));
    if as_json && files.len() == 1 {
        println!("{}", serde_json::to_string_pretty(&summaries[0])?);
    } else if as_json {
        let each: Vec<Value> =
            files.iter().zip(&summaries).map(|(f, s)| serde_json::json!({"file": f.display().to_string(), "summary": s})).collect();
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({"traces": each, "region_us": total, "exploring_us": explored}))?);
    } else {
        let texts: Vec<String> = files.iter().zip(&summaries).map(|(f, s)| to_text(f, s)).collect();
        print!("{}", texts.join("\n"));
        if files.len() > 1 {
            println!("\n{} traces: {}, all processes", files.len(), exploration(explored, total));
        }
    }
    if let Some(out) = html_out {
        let sources: Vec<html::Source> =
            files.iter().zip(&traces).zip(&summaries).map(|((file, trace), summary)| html::Source { file, trace, summary }).collect();
        let page = html::page(&sources, max_boxes);
        ompadapt_rt::safe_fs::write_file_atomic(out, page.as_bytes())
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.display()))?;
        if !as_json {
            println!("\ntimeline drawn in {}", out.display());
        }
    }
    Ok(())
}
