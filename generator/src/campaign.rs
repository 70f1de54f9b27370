//! A campaign: N programs per language from one seed, each checked, each difference reduced
//! and saved as a reproducer folder, and one table (TSV and Markdown) of what happened.

use crate::ast::*;
use crate::check::{check, write_sources, Checked, Difference};
use crate::random::program;
use crate::reduce::reduce;
use crate::toolchain::Build;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub struct Options {
    pub seed: u64,
    pub c: u64,
    pub fortran: u64,
    pub out: PathBuf,
    pub reduce: bool,
    /// Time the reducer may spend on one difference.
    pub reduce_budget: Duration,
    /// Only this case (of each language asked for).
    pub only: Option<u64>,
    /// Every this-many-th case also runs with 3 threads.
    pub three_every: u64,
    /// The first case of each language (a long campaign continued in parts: `--from`).
    pub from: u64,
    /// Cases checked at once (each builds and runs its own programs in its own folder).
    pub jobs: usize,
}

/// One program's row of the table.
#[derive(Debug, Clone)]
pub struct Row {
    pub lang: Lang,
    pub case: u64,
    pub blocks: usize,
    pub regions: u32,
    pub features: String,
    pub verdict: String,
    pub runs: usize,
    /// Regions the runtime reported, per adaptive build.
    pub adaptive: Vec<(Build, usize)>,
    pub remarks: (usize, usize),
    pub differences: usize,
    pub reproducer: Option<String>,
    pub diagnosis: String,
    pub seconds: f64,
}

/// The features a program combines, for the table.
pub fn features(p: &Program) -> String {
    let mut f: Vec<&str> = Vec::new();
    for b in &p.blocks {
        f.push(match &b.kind {
            BlockKind::Loop(l) if l.reductions.iter().any(|r| r.update == Update::Wrong) => "loop(wrong-op)",
            BlockKind::Loop(_) => "loop",
            BlockKind::Team(_) => "parallel",
            BlockKind::Tasks(_) => "tasks",
            BlockKind::Threadprivate(_) => "threadprivate",
            BlockKind::Target(t) if t.global.is_some() || t.dt_call => "target(declare-target)",
            BlockKind::Target(_) => "target",
        });
    }
    if p.has_second_unit() {
        f.push("2TU");
    }
    f.join(",")
}

/// Which of the holes known to be under repair a (reduced) difference has the shape of.
pub fn known_shape(p: &Program, d: &Difference) -> Option<&'static str> {
    let wrong_op = p.blocks.iter().any(|b| matches!(&b.kind, BlockKind::Loop(l) if l.reductions.iter().any(|r| r.update == Update::Wrong)));
    let declare_target = p.blocks.iter().any(|b| matches!(&b.kind, BlockKind::Target(t) if t.global.is_some() || t.dt_call));
    let num_threads = p.blocks.iter().any(|b| match &b.kind {
        BlockKind::Loop(l) => l.team.num_threads.is_some(),
        BlockKind::Team(t) => t.team.num_threads.is_some(),
        _ => false,
    });
    if declare_target && p.has_target() && p.blocks.len() == 1 {
        return Some("known hole 1: a kernel writes or reads a declare-target global under the cpu variant (host copy vs device copy)");
    }
    if wrong_op && p.blocks.len() == 1 {
        return Some("known hole 2: a reduction's private copy updated by another operator than the reduction's");
    }
    if p.lang == Lang::Fortran && num_threads && p.blocks.len() == 1 && d.build == Build::Pass {
        return Some("known hole 3: flang's num_threads push emitted before the fork");
    }
    None
}

fn save_reproducer(out: &Path, p: &Program, reduced: &Program, d: &Difference, tests: usize) -> PathBuf {
    let dir = out.join("reproducers").join(format!("{}-s{}-c{}", p.lang.name(), p.seed, p.case));
    let _ = std::fs::remove_dir_all(&dir);
    write_sources(p, &dir.join("original"));
    write_sources(reduced, &dir.join("reduced"));
    let mut s = format!(
        "# {} case {} of seed {}: {} at OMP_NUM_THREADS={} ({})\n",
        p.lang.name(),
        p.case,
        p.seed,
        d.build.name(),
        d.team,
        d.mode.describe()
    );
    writeln!(s, "# reduced in {tests} tests; regenerate: ompadapt-generate --seed {} --only {} --lang {}", p.seed, p.case, p.lang.name())
        .unwrap();
    writeln!(s, "# the original's failing run:\n# {}\n", d.command).unwrap();
    let check = crate::check::check(reduced, &dir.join("reduced-build"), &[d.team]);
    for b in &check.builds {
        writeln!(s, "{b}").unwrap();
    }
    if let Some(rd) = check.differences.iter().find(|x| x.build == d.build && x.mode == d.mode).or(check.differences.first()) {
        writeln!(
            s,
            "# stock printed:\n{}\n# the adaptive run ({}):\n{}",
            comment(&rd.stock.stdout),
            rd.got.status(),
            comment(&rd.got.stdout)
        )
        .unwrap();
        writeln!(s, "{}", rd.command).unwrap();
    }
    std::fs::write(dir.join("repro.sh"), s).expect("repro.sh");
    std::fs::write(dir.join("difference.txt"), describe(d)).expect("difference.txt");
    dir
}

fn comment(text: &str) -> String {
    text.lines().map(|l| format!("#   {l}")).collect::<Vec<_>>().join("\n")
}

pub fn describe(d: &Difference) -> String {
    let mut s = format!("{} build, OMP_NUM_THREADS={}, {}\n", d.build.name(), d.team, d.mode.describe());
    writeln!(s, "stock: {}\nadaptive: {}\n--- first differing lines (stock | adaptive)", d.stock.status(), d.got.status()).unwrap();
    let (a, b): (Vec<&str>, Vec<&str>) = (d.stock.stdout.lines().collect(), d.got.stdout.lines().collect());
    for k in 0..a.len().max(b.len()) {
        if a.get(k) != b.get(k) {
            writeln!(s, "{} | {}", a.get(k).unwrap_or(&"<none>"), b.get(k).unwrap_or(&"<none>")).unwrap();
        }
    }
    writeln!(
        s,
        "--- stderr of the adaptive run\n{}\n--- command\n{}",
        d.got.stderr.lines().take(20).collect::<Vec<_>>().join("\n"),
        d.command
    )
    .unwrap();
    s
}

fn verdict(c: &Checked) -> String {
    if let Some(why) = &c.stock_failed {
        return format!("generator-bug: {}", why.lines().next().unwrap_or(""));
    }
    if c.stock_nondeterministic {
        return "generator-bug: stock nondeterministic".into();
    }
    match (c.build_failures.len(), c.differences.len()) {
        (0, 0) => "same".into(),
        (0, n) => format!("DIFFERENT ({n} runs)"),
        (n, _) => format!("BUILD FAILED ({n} builds)"),
    }
}

/// Checks case `case` of `lang` and reduces its first difference.
pub fn run_case(o: &Options, lang: Lang, case: u64, seen: &std::sync::Mutex<Vec<(String, String)>>) -> Row {
    let start = Instant::now();
    let p = program(lang, o.seed, case);
    let dir = o.out.join("cases").join(format!("{}-{case}", lang.name()));
    let _ = std::fs::remove_dir_all(&dir);
    let teams: Vec<u32> = if o.three_every > 0 && case % o.three_every == 0 { vec![2, 3] } else { vec![2] };
    let c = check(&p, &dir, &teams);
    let mut row = Row {
        lang,
        case,
        blocks: p.blocks.len(),
        regions: p.regions(),
        features: features(&p),
        verdict: verdict(&c),
        runs: c.runs,
        adaptive: c.adaptive.iter().map(|(b, n)| (*b, *n)).collect(),
        remarks: c.remarks.values().fold((0, 0), |a, r| (a.0.max(r.0), a.1.max(r.1))),
        differences: c.differences.len() + c.build_failures.len(),
        reproducer: None,
        diagnosis: String::new(),
        seconds: 0.0,
    };
    if let Some((b, why)) = c.build_failures.first() {
        row.diagnosis = format!("{} build failed: {}", b.name(), why.lines().last().unwrap_or(""));
        write_sources(&p, &o.out.join("reproducers").join(format!("{}-s{}-c{case}-build", lang.name(), o.seed)));
    }
    if let Some(d) = c.differences.first() {
        let first = seen.lock().unwrap().iter().find(|(s, _)| *s == crash_signature(&p, d)).map(|(_, f)| f.clone());
        if let Some(first) = first {
            // a crash already reduced: the first reproducer shows it
            row.diagnosis = format!("the same crash as {first}");
            row.reproducer = Some(first);
            row.seconds = start.elapsed().as_secs_f64();
            return row;
        }
        let (reduced, tests) = if o.reduce { reduce(&p, &dir.join("reduce"), d, o.reduce_budget) } else { (p.clone(), 0) };
        let saved = save_reproducer(&o.out, &p, &reduced, d, tests);
        row.reproducer = Some(saved.display().to_string());
        if d.got.code != Some(0) {
            seen.lock().unwrap().push((crash_signature(&p, d), saved.display().to_string()));
        }
        row.diagnosis = known_shape(&reduced, d).unwrap_or("new: see difference.txt").to_string();
    }
    if c.differences.is_empty() && c.build_failures.is_empty() && c.stock_failed.is_none() && !c.stock_nondeterministic {
        // what passed needs no folder; the sources stay regenerable from (seed, case)
        let _ = std::fs::remove_dir_all(&dir);
    }
    row.seconds = start.elapsed().as_secs_f64();
    row
}

/// What makes two crashes the same for the campaign: language, build and how the run ended.
fn crash_signature(p: &Program, d: &Difference) -> String {
    if d.got.code == Some(0) {
        return format!("output:{}:{}", p.seed, p.case);
    }
    format!("{}|{}|{}", p.lang.name(), d.build.name(), d.got.status())
}

/// Runs every case of `o`, C and Fortran interleaved (a campaign cut short still covers both),
/// `o.jobs` cases at a time, calling `each` as cases finish (not necessarily in order; the rows
/// returned are sorted by language and case).
pub fn run_all(o: &Options, mut each: impl FnMut(&Row)) -> Vec<Row> {
    let mut work: Vec<(Lang, u64)> = Vec::new();
    let cases: Vec<u64> = match o.only {
        Some(k) => vec![k],
        None => (o.from..o.c.max(o.fortran)).collect(),
    };
    for case in cases {
        for (lang, count) in [(Lang::C, o.c), (Lang::Fortran, o.fortran)] {
            if o.only.is_some() || case < count {
                work.push((lang, case));
            }
        }
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let seen = std::sync::Mutex::new(Vec::new());
    let (send, receive) = std::sync::mpsc::channel();
    let mut rows = Vec::new();
    std::thread::scope(|s| {
        for _ in 0..o.jobs.max(1) {
            let (send, work, next, seen) = (send.clone(), &work, &next, &seen);
            s.spawn(move || loop {
                let Some(&(lang, case)) = work.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) else { break };
                if send.send(run_case(o, lang, case, seen)).is_err() {
                    break;
                }
            });
        }
        drop(send);
        for row in receive {
            each(&row);
            rows.push(row);
        }
    });
    rows.sort_by_key(|r| (r.lang != Lang::C, r.case));
    rows
}
