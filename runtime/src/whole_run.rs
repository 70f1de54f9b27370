//! Whole-run trials: a trained program keeps its labels only where whole runs with them are
//! faster than whole runs of the program as written.
//!
//! Every other comparison the runtime makes is of one region's executions: exploration
//! alternates variants execution by execution, rechecks and control runs (see
//! [`crate::control`]) compare one vector's means. None of them sees what a variant does to the
//! code around it. Measured here: PolyBench durbin's `threads=1` labels were not slower than
//! `serial` in their own trial, yet the team they woke spun beside the other vectors' serial
//! executions and the whole run went from 1.049 to 1.146 of stock's time; LULESH's µs-scale
//! `serial` labels between the team's executions left its trained runs at 1.096 of stock's with
//! every stored mean consistent; the wavefront sweep sometimes trains into an all-`serial`
//! state at 1.6x stock's time that no per-vector rule catches (all its labels are under
//! 100 µs). The scale of those effects is the run, so the trial is a run.
//!
//! The program's own variant everywhere (`threads=1`, `gpu`: [`crate::region::own_variant`])
//! *is* stock's behaviour, so a run with it costs nothing against stock: it is the control.
//! Once a run finds every region trained, the runs of one *signature* (the same command line,
//! OpenMP team settings and usable CPUs) alternate: [`FIRST_LABELLED`] runs with the labels,
//! then own runs and labelled runs until each side has [`ENOUGH`]. Then the medians of the
//! last [`WINDOW`] of each decide: the labels stay only if they are faster by more than
//! [`MARGIN`] (the 2 %: a smaller gain is inside this machine's noise and not worth
//! leaving the program's own code for); otherwise every run of the signature runs the own
//! variant. Either verdict is re-tested: after [`REFRESH`] runs of one side, one run of the
//! other, so that a verdict follows the machine and the program's inputs as they change.
//!
//! A run counts only when it is *clean*: every region ran the stored model without exploring,
//! re-measuring, rechecking or a control trial, and the regions executed as often as the runs
//! compared with it (the *fingerprint*: each region's executions). Labelled runs count only
//! against the labels they ran (the *generation*: every region's labels); a retrained model
//! starts a new trial, while own runs stay valid (they do not depend on the labels).
//! Regions without an own variant (explicit variant lists, Apollo's policies) decide as usual
//! on both sides. Off with `OMPADAPT_WHOLE_RUN=0`, in frozen runs and when a variant is
//! pinned.
//!
//! Records go to `.whole-runs` in the program's store folder, rewritten atomically under the
//! folder's lock (at most [`KEEP`] lines): concurrent or killed writers never lose or double a
//! record, and a damaged line is skipped.

use std::sync::OnceLock;
use std::time::Instant;

use crate::safe_fs::Dir;
use crate::stats::FeatureKey;

/// Labelled runs before the first own run: a newly trained program runs its labels first.
pub const FIRST_LABELLED: usize = 2;
/// Clean runs of each side before a verdict.
pub const ENOUGH: usize = 3;
/// The most recent runs of each side the medians are taken over.
pub const WINDOW: usize = 5;
/// The labels' median must be faster than the own runs' by more than this fraction.
pub const MARGIN: f64 = 0.02;
/// Runs of one side after which one run of the other side re-tests the verdict.
pub const REFRESH: usize = 9;
/// Records kept in the file (all signatures together), the newest.
pub const KEEP: usize = 64;
/// The records' file in the program's store folder (a dot file: not a region's folder).
pub const FILE: &str = ".whole-runs";

/// What a run runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The trained decisions.
    Labels,
    /// The program's own variant in every region that has one: the control.
    Own,
}

impl Side {
    /// Its name in the JSON report.
    pub fn key(self) -> &'static str {
        match self {
            Side::Labels => "labels",
            Side::Own => "own",
        }
    }
}

/// Why a run runs its side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Not enough clean runs of both sides yet.
    Trial,
    /// The verdict.
    Verdict,
    /// The other side's turn to re-test the verdict.
    Refresh,
}

impl Why {
    /// Its name in the JSON report.
    pub fn key(self) -> &'static str {
        match self {
            Why::Trial => "trial",
            Why::Verdict => "verdict",
            Why::Refresh => "refresh",
        }
    }
}

/// One clean run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// The command line, team settings and CPUs it ran with.
    pub signature: u64,
    /// Each region's executions.
    pub fingerprint: u64,
    /// The labels in force.
    pub generation: u64,
    /// What it ran.
    pub side: Side,
    /// From the first region to the exit, ns.
    pub wall_ns: u64,
}

impl Record {
    /// The record's line in the file.
    pub fn line(&self) -> String {
        let side = if self.side == Side::Own { 'O' } else { 'L' };
        format!("1 {:016x} {:016x} {:016x} {side} {}\n", self.signature, self.fingerprint, self.generation, self.wall_ns)
    }

    /// A line of the file (None: damaged, or of another format).
    pub fn parse(line: &str) -> Option<Record> {
        let mut w = line.split_ascii_whitespace();
        if w.next()? != "1" {
            return None;
        }
        let hex = |s: Option<&str>| s.and_then(|s| u64::from_str_radix(s, 16).ok());
        let (signature, fingerprint, generation) = (hex(w.next())?, hex(w.next())?, hex(w.next())?);
        let side = match w.next()? {
            "L" => Side::Labels,
            "O" => Side::Own,
            _ => return None,
        };
        let wall_ns = w.next()?.parse().ok()?;
        w.next().is_none().then_some(Record { signature, fingerprint, generation, side, wall_ns })
    }
}

/// The records of a file's text, oldest first, damaged lines skipped.
pub fn parse_all(text: &str) -> Vec<Record> {
    text.lines().filter_map(Record::parse).collect()
}

/// What the records say of a run's side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// What the run runs.
    pub side: Side,
    /// Why.
    pub why: Why,
    /// Medians of the last [`WINDOW`] labelled and own runs, ns, once both sides have
    /// [`ENOUGH`].
    pub medians: Option<(f64, f64)>,
}

/// The side of the next run of a signature from its clean runs (oldest first): the latest
/// run's fingerprint, and the latest labelled run's generation, stand for this run's (checked
/// at its exit; own runs load no labels).
pub fn plan(records: &[Record]) -> Plan {
    let labels_first = Plan { side: Side::Labels, why: Why::Trial, medians: None };
    let Some(last) = records.last() else { return labels_first };
    let alike: Vec<&Record> = records.iter().filter(|r| r.fingerprint == last.fingerprint).collect();
    let Some(generation) = alike.iter().rev().find(|r| r.side == Side::Labels).map(|r| r.generation) else { return labels_first };
    let own: Vec<u64> = alike.iter().filter(|r| r.side == Side::Own).map(|r| r.wall_ns).collect();
    let labels: Vec<u64> = alike.iter().filter(|r| r.side == Side::Labels && r.generation == generation).map(|r| r.wall_ns).collect();
    if labels.len() < FIRST_LABELLED {
        return labels_first;
    }
    if own.len() < ENOUGH || labels.len() < ENOUGH {
        let side = if own.len() < labels.len() { Side::Own } else { Side::Labels };
        return Plan { side, why: Why::Trial, medians: None };
    }
    let recent = |v: &[u64]| crate::stats::median(&v[v.len().saturating_sub(WINDOW)..]).unwrap_or(f64::NAN);
    let (l, o) = (recent(&labels), recent(&own));
    let side = if l < o * (1.0 - MARGIN) { Side::Labels } else { Side::Own };
    // runs of the verdict's side since the other side last ran
    let run = alike.iter().rev().take_while(|r| r.side == side).count();
    let (side, why) =
        if run >= REFRESH { (if side == Side::Own { Side::Labels } else { Side::Own }, Why::Refresh) } else { (side, Why::Verdict) };
    Plan { side, why, medians: Some((l, o)) }
}

/// When the first region was created, and the plan and signature of this run (unset: the run
/// does not take part).
static RUN: OnceLock<(Instant, u64, Plan)> = OnceLock::new();

/// Whether this run runs the program's own variant in every region that has one.
#[inline]
pub fn own_run() -> bool {
    RUN.get().is_some_and(|r| r.2.side == Side::Own)
}

/// This run's plan, when it takes part.
pub fn this_run() -> Option<Plan> {
    RUN.get().map(|r| r.2)
}

/// Decides this run's side from the store (`folder`: the program's folder; None: no store to
/// read, the labels run). Called once, when the process's registry is made, before any
/// region decides.
pub fn start(folder: Option<Dir>) {
    let signature = signature();
    let records = folder.map(|d| read(&d)).unwrap_or_default();
    let mine: Vec<Record> = records.into_iter().filter(|r| r.signature == signature).collect();
    let _ = RUN.set((Instant::now(), signature, plan(&mine)));
}

/// What a run that took part did, for the report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// This run's plan.
    pub this: Plan,
    /// The record written (None: the run was not clean, or the store could not be written).
    pub recorded: Option<Record>,
    /// What the next run of the signature will do, as the records now say.
    pub next: Plan,
}

static OUTCOME: OnceLock<Outcome> = OnceLock::new();

/// The outcome of this run, once [`finish`] ran (None: the run did not take part).
pub fn outcome() -> Option<Outcome> {
    OUTCOME.get().copied()
}

/// What one region's run says to the trial.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegionRun {
    /// Not compared (a broken, held or associated region: the same in every run).
    Apart,
    /// It explored, re-measured, was rechecked or trained in this run.
    Unclean,
    /// It executed `executions` times, deciding by labels hashed to `labels`
    /// ([`labels_hash`]).
    Clean {
        /// Executions in this run.
        executions: u64,
        /// Its labels' hash.
        labels: u64,
    },
}

/// A region's labels hashed, whatever their order.
pub fn labels_hash(labels: &[(FeatureKey, usize)]) -> u64 {
    labels.iter().fold(0u64, |acc, (k, l)| acc.wrapping_add(mix(k.hash64() ^ (*l as u64) << 56)))
}

/// At exit, before anything trains or saves: records this run in `folder` if every region
/// (by name) was clean. Returns what it did (None: the run did not take part).
pub fn finish(regions: &[(&str, RegionRun)], folder: impl FnOnce() -> Option<Dir>) -> Option<Outcome> {
    let &(t0, signature, this) = RUN.get()?;
    let wall_ns = t0.elapsed().as_nanos() as u64;
    let rec = fingerprint_and_generation(regions).map(|(fingerprint, generation)| Record {
        signature,
        fingerprint,
        generation,
        side: this.side,
        wall_ns,
    });
    let (recorded, mine) = match (rec, folder()) {
        (Some(rec), Some(dir)) => match write(&dir, rec) {
            Some(all) => (Some(rec), all),
            None => (None, read(&dir)),
        },
        (None, Some(dir)) => (None, read(&dir)),
        (_, None) => (None, Vec::new()),
    };
    let mine: Vec<Record> = mine.into_iter().filter(|r| r.signature == signature).collect();
    let o = Outcome { this, recorded, next: plan(&mine) };
    let _ = OUTCOME.set(o);
    Some(o)
}

fn read(dir: &Dir) -> Vec<Record> {
    dir.read_to_string(FILE, 1 << 20).map(|t| parse_all(&t)).unwrap_or_default()
}

/// Adds `rec` to the file under the folder's lock, keeping the newest [`KEEP`]; returns them.
fn write(dir: &Dir, rec: Record) -> Option<Vec<Record>> {
    let _lock = dir.lock(true).ok()?;
    let mut all = read(dir);
    all.push(rec);
    let all = all.split_off(all.len().saturating_sub(KEEP));
    let text: String = all.iter().map(Record::line).collect();
    dir.write_atomic_unsynced(FILE, text.as_bytes()).ok()?;
    Some(all)
}

/// The report's line on the trial.
pub fn describe(o: &Outcome) -> String {
    let side = |s: Side| if s == Side::Own { "the program's own variant" } else { "the trained labels" };
    let why = |p: &Plan| if p.why == Why::Refresh { "re-test of the verdict" } else { p.why.key() };
    let recorded = match o.recorded {
        Some(r) => format!("recorded ({:.3} s)", r.wall_ns as f64 * 1e-9),
        None => "not recorded (some region explored, re-measured or was not trained from the store)".to_owned(),
    };
    let medians = o.next.medians.map_or(String::new(), |(l, w)| format!("; medians: labels {:.3} s, own {:.3} s", l * 1e-9, w * 1e-9));
    format!(
        "whole-run trial: this run ran {} ({}), {recorded}; the next runs {} ({}){medians}\n",
        side(o.this.side),
        why(&o.this),
        side(o.next.side),
        why(&o.next)
    )
}

/// Each region's executions and labels, hashed; None when some region was not clean (see the
/// module's documentation) or none ran.
fn fingerprint_and_generation(regions: &[(&str, RegionRun)]) -> Option<(u64, u64)> {
    let mut sorted: Vec<&(&str, RegionRun)> = regions.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let (mut fingerprint, mut generation, mut any) = (crate::stats::fnv1a("whole-run"), 0u64, false);
    for (name, run) in sorted {
        let (executions, labels) = match run {
            RegionRun::Apart => continue,
            RegionRun::Unclean => return None,
            RegionRun::Clean { executions, labels } => (*executions, *labels),
        };
        let n = crate::stats::fnv1a(name);
        fingerprint = mix(fingerprint ^ n ^ mix(executions));
        generation = mix(generation ^ n ^ labels);
        any = true;
    }
    any.then_some((fingerprint, generation))
}

/// A 64-bit finaliser (splitmix64's).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The command line, the OpenMP settings that shape teams and work, and the CPUs this process
/// may use: runs that differ in any of these are not compared.
fn signature() -> u64 {
    let mut text = std::fs::read("/proc/self/cmdline").map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    for v in ["OMP_NUM_THREADS", "OMP_THREAD_LIMIT", "OMP_PROC_BIND", "OMP_PLACES", "OMP_DYNAMIC", "OMP_SCHEDULE", "OMP_DEFAULT_DEVICE"] {
        text.push('\0');
        text.push_str(&crate::env::var(v).unwrap_or_default());
    }
    text.push('\0');
    text.push_str(&crate::team::max_threads().unwrap_or(0).to_string());
    crate::stats::fnv1a(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record; own runs load no labels (generation 0).
    fn rec(side: Side, ms: u64) -> Record {
        Record { signature: 1, fingerprint: 2, generation: if side == Side::Own { 0 } else { 3 }, side, wall_ns: ms * 1_000_000 }
    }

    fn sides(records: &[Record]) -> Side {
        plan(records).side
    }

    #[test]
    fn lines_round_trip_and_damage_is_skipped() {
        let r = rec(Side::Own, 412);
        assert_eq!(Record::parse(&r.line()), Some(r));
        let text = format!("{}garbage\n1 zz 2 3 L 5\n{}1 0 0 0 L", r.line(), rec(Side::Labels, 5).line());
        assert_eq!(parse_all(&text), vec![r, rec(Side::Labels, 5)], "a torn last line is no record");
    }

    #[test]
    fn a_trial_alternates_then_the_medians_decide() {
        use Side::*;
        let mut rs = Vec::new();
        let mut seen = Vec::new();
        // labels 100 ms, own 120 ms: the labels are faster
        for _ in 0..6 {
            let s = sides(&rs);
            seen.push(s);
            rs.push(rec(s, if s == Labels { 100 } else { 120 }));
        }
        assert_eq!(seen, [Labels, Labels, Own, Own, Labels, Own]);
        assert_eq!(plan(&rs), Plan { side: Labels, why: Why::Verdict, medians: Some((100e6, 120e6)) });
        // the verdict holds for REFRESH runs, then the own side runs once
        for _ in 0..REFRESH - 1 {
            rs.push(rec(Labels, 100));
            assert_eq!(sides(&rs), Labels);
        }
        rs.push(rec(Labels, 100));
        assert_eq!(plan(&rs).why, Why::Refresh);
        assert_eq!(sides(&rs), Own);
    }

    #[test]
    fn labels_within_the_margin_give_the_own_variant() {
        use Side::*;
        let rs = [rec(Labels, 99), rec(Labels, 100), rec(Own, 100), rec(Own, 101), rec(Labels, 99), rec(Own, 100)];
        assert_eq!(plan(&rs).side, Own, "1 % faster is inside the margin");
        let slower = [rec(Labels, 110), rec(Labels, 109), rec(Own, 100), rec(Own, 101), rec(Labels, 111), rec(Own, 99)];
        assert_eq!(plan(&slower).side, Own);
    }

    #[test]
    fn new_labels_start_again_and_other_inputs_are_apart() {
        use Side::*;
        let mut rs = vec![rec(Labels, 100), rec(Labels, 100), rec(Own, 120), rec(Own, 120), rec(Labels, 100), rec(Own, 120)];
        // a retrained model: its labels have no runs yet, the own runs still count
        rs.push(Record { generation: 9, ..rec(Labels, 130) });
        assert_eq!(plan(&rs), Plan { side: Labels, why: Why::Trial, medians: None });
        rs.push(Record { generation: 9, ..rec(Labels, 130) });
        rs.push(Record { generation: 9, ..rec(Labels, 130) });
        assert_eq!(plan(&rs).side, Own, "three runs of the new labels against the three own ones: 130 > 120");
        // a run whose regions executed differently (another input) compares with nothing yet
        rs.push(Record { fingerprint: 7, ..rec(Labels, 10) });
        assert_eq!(plan(&rs), Plan { side: Labels, why: Why::Trial, medians: None });
    }
}
