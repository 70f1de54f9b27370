//! What a run pays before its first region on saved data (issue 44 item 2), and what training
//! on that data costs wherever it runs.
//!
//! The data is the case: 122 measured (vector, variant) pairs (two agreeing
//! measurements each) of a region with 6 variants over 20
//! feature vectors (every variant measured) plus 2 vectors measured on one variant, features
//! `(n, threads, ops)` of which only `n` varies, and times whose best variant is not a smooth
//! function of `n` (no model beats the measured table there).
//!
//! * `train auto on 122 samples`: `model::train_costs(auto)` (cross-validation of every
//!   candidate, the winner fitted on everything, exceptions), median of 41 fits; then each
//!   candidate's share (one fit on everything, times the folds plus one).
//! * `start-up`: `store::attach` of a fresh region to a store holding that data, median of 21
//!   attaches, (a) without a stored model — and what that run's exit then costs
//!   (`Region::train_at_exit`, median of 11) —, (b) with the model a run trained on exactly that
//!   data.
//!
//! * `coarse mode` (`OMPADAPT_COARSE=1`): the same measurements as two runs' totals per pair
//!   (244 run records), `store::attach` of a fresh coarse region (a) without a stored model —
//!   and that run's exit (`Region::train_at_exit`) —, (b) with the model a run trained on
//!   exactly those totals.
//!
//! * `crossover`: `auto` on the `models` bench's crossover shape (3 variants over `(n, k)`, both
//!   varying) on 10 and 20 vectors, median of 41 fits (`-- crossover [reps]`: that alone, the
//!   fit repeated `reps` times with no timing, for callgrind).
//!
//! Times are the thread's CPU time (medians; `BENCH_CLOCK=wall` for elapsed time), which a
//! loaded machine moves far less than elapsed time.
//!
//! `cargo bench -p ompadapt-benchmarks --bench startup_training`. Prints figures only: timing
//! thresholds are not asserted anywhere (a loaded machine moves them).

use std::path::Path;
use std::time::Instant;

use ompadapt_rt::model::{self, select, ModelChoice, TrainingSet};
use ompadapt_rt::region::{Region, RegionBuilder};
use ompadapt_rt::spec;
use ompadapt_rt::store::{self, DataFile, Program, RunRecord, SampleRecord};

const VARIANTS: [&str; 6] = ["cpu", "gpu", "simd", "tiled", "dynamic", "teams"];
const DESCRIPTOR: &str = "ompadapt1;model=issue44;loc=k.c:9;features=n,threads,ops;variants=cpu,gpu,simd,tiled,dynamic,teams";

/// A reproducible xorshift in [0, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `(features, variant, time ns)` of the 122 measurements.
fn measurements() -> Vec<(Vec<f64>, usize, f64)> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::new();
    for i in 0..22 {
        let n = (1000.0 * 1.5f64.powi(i)).round();
        let variants: Vec<usize> = if i < 20 { (0..VARIANTS.len()).collect() } else { vec![i as usize % VARIANTS.len()] };
        for v in variants {
            // each variant a base cost plus a per-element cost, times a large factor of its own
            // per vector: the best variant jumps between vectors
            let t = (20_000.0 + 3.0 * v as f64 * 1000.0 + n * (0.5 + 0.1 * v as f64)) * (0.4 + 1.6 * rng.next());
            out.push((vec![n, 2.0, 7.0], v, t));
        }
    }
    out
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The calling thread's CPU time, ms: what the work costs, without the time a loaded machine
/// preempts the thread (`BENCH_CLOCK=wall` times elapsed time instead).
fn now_ms() -> f64 {
    if std::env::var("BENCH_CLOCK").is_ok_and(|c| c == "wall") {
        static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        return START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3;
    }
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

fn ms_of(f: &mut dyn FnMut(), reps: usize) -> f64 {
    f(); // warm caches and lazy statics
    median(
        (0..reps)
            .map(|_| {
                let t = now_ms();
                f();
                now_ms() - t
            })
            .collect(),
    )
}

fn training(data: &TrainingSet) {
    let fit = model::train_costs(ModelChoice::Auto, data, 1).expect("auto trains");
    let ms = ms_of(&mut || drop(model::train_costs(ModelChoice::Auto, data, 1).unwrap()), 41);
    let clock = if std::env::var("BENCH_CLOCK").is_ok_and(|c| c == "wall") { "elapsed" } else { "thread CPU time" };
    println!("train auto on 122 samples ({} vectors x {} variants): {ms:.2} ms median, {clock} (target <= 5 ms)", data.n(), data.k);
    let est = fit.estimate.as_ref().map_or("none".to_owned(), |e| format!("{:.1} %", e.mean_regret * 100.0));
    println!("  chosen: {}, cross-validated mean regret {est}, {} exceptions", fit.chosen.describe(), fit.model.exceptions().len());
    let (_, _, all) = select::select(ModelChoice::Auto, data, 1);
    let folds = all.first().map_or(0, |(_, e)| e.folds);
    println!(
        "  {} candidates cross-validated over {folds} folds; per candidate, one fit on all the data x (folds + 1) \
         (the cost forms of one family share one growth in the selection):",
        all.len()
    );
    for (cand, e) in &all {
        let one = ms_of(&mut || drop(model::fit_training_set(*cand, data, 1)), 5);
        println!("    {:<55} {:>7.2} ms  (regret {:.1} %)", cand.describe(), one * (folds + 1) as f64, e.mean_regret * 100.0);
    }
}

fn region() -> Region {
    RegionBuilder::new().warmup(false).build(spec::parse(DESCRIPTOR).expect("descriptor").descriptor)
}

fn coarse_region() -> Region {
    RegionBuilder::new().warmup(false).coarse(true).build(spec::parse(DESCRIPTOR).expect("descriptor").descriptor)
}

/// Writes the measurements as one part file of the region's folder in `root`: as samples, or
/// (`coarse`) as two runs' totals per pair.
fn write_store(root: &Path, program: &Program, data: &[(Vec<f64>, usize, f64)], coarse: bool) {
    let runs = |r: usize| {
        data.iter().map(move |(f, v, t)| RunRecord {
            run: format!("run-{r}-{v}"),
            features: f.clone(),
            variant: VARIANTS[*v].to_owned(),
            total_ns: (*t * (1.0 + 0.02 * r as f64)) as u64,
            executions: 1,
        })
    };
    let runs = if coarse { runs(0).chain(runs(1)).collect() } else { vec![] };
    let samples = if coarse { vec![] } else { samples(data) };
    let file = DataFile {
        format: store::FORMAT.into(),
        version: store::VERSION,
        program: program.name.clone(),
        program_id: program.id.clone(),
        model: "issue44".into(),
        loc: "k.c:9".into(),
        features: vec!["n".into(), "threads".into(), "ops".into()],
        variants: VARIANTS.iter().map(|v| v.to_string()).collect(),
        written_unix_ns: 1,
        samples,
        runs,
        ..Default::default()
    };
    let dir = store::region_dir(root, program, "issue44");
    std::fs::create_dir_all(&dir).expect("store folder");
    std::fs::write(dir.join("part-bench-0.json"), serde_json::to_vec(&file).unwrap()).expect("part file");
}

fn samples(data: &[(Vec<f64>, usize, f64)]) -> Vec<SampleRecord> {
    data.iter()
        .map(|(f, v, t)| SampleRecord {
            features: f.clone(),
            variant: VARIANTS[*v].to_owned(),
            count: 2,
            times_ns: vec![*t, *t * 1.02],
            cold_ns: vec![],
            supersedes: false,
        })
        .collect()
}

fn attach_ms(root: &Path, program: &Program, make: fn() -> Region) -> (f64, String) {
    let mut origin = String::new();
    let ms = ms_of(
        &mut || {
            let r = make();
            store::attach(&r, root, program, 1000);
            origin = r.trained().map_or("untrained".to_owned(), |t| {
                format!("{:?} on {} vectors, {:.2} ms of training", t.origin, t.labels.len(), t.train_ns as f64 / 1e6)
            });
        },
        21,
    );
    (ms, origin)
}

fn startup(data: &[(Vec<f64>, usize, f64)]) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let program = Program::new("bench", "/bench/startup_training");
    write_store(tmp.path(), &program, data, false);
    let (ms, origin) = attach_ms(tmp.path(), &program, region);
    println!("start-up (attach) on 122 saved samples, no stored model: {ms:.2} ms median [{origin}]");
    // what that run then does at exit (before its report and save): trains on the data
    let mut exit_ms = Vec::new();
    for _ in 0..11 {
        let r = region();
        store::attach(&r, tmp.path(), &program, 1000);
        let t = now_ms();
        assert!(r.train_at_exit(), "trains at exit");
        exit_ms.push(now_ms() - t);
    }
    println!("  at its exit, training on them (Region::train_at_exit): {:.2} ms median", median(exit_ms));
    // a run that trained on exactly that data and saved its model
    let r = region();
    let mut b = store::attach(&r, tmp.path(), &program, 1000);
    r.train_now().expect("trains");
    store::save(&r, &mut b).expect("saves");
    let (ms, origin) = attach_ms(tmp.path(), &program, region);
    println!("start-up (attach) on 122 saved samples and the model trained on them: {ms:.2} ms median [{origin}]");
}

/// Coarse mode on the same measurements as run totals: what start-up and the exit cost.
fn coarse(data: &[(Vec<f64>, usize, f64)]) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let program = Program::new("bench", "/bench/startup_training");
    write_store(tmp.path(), &program, data, true);
    let (ms, origin) = attach_ms(tmp.path(), &program, coarse_region);
    println!("coarse mode: start-up (attach) on 244 saved run totals, no stored model: {ms:.2} ms median [{origin}]");
    let mut exit_ms = Vec::new();
    let mut trained = false;
    for _ in 0..11 {
        let r = coarse_region();
        store::attach(&r, tmp.path(), &program, 1000);
        let t = now_ms();
        trained = r.train_at_exit();
        exit_ms.push(now_ms() - t);
    }
    println!("  at its exit (Region::train_at_exit): {:.2} ms median, trained: {trained}", median(exit_ms));
    let r = coarse_region();
    let mut b = store::attach(&r, tmp.path(), &program, 1000);
    r.train_now().expect("trains");
    store::save(&r, &mut b).expect("saves");
    let (ms, origin) = attach_ms(tmp.path(), &program, coarse_region);
    println!("coarse mode: start-up (attach) on them and the model trained on them: {ms:.2} ms median [{origin}]");
}

/// `auto` on the crossover shape of the `models` bench: timed, or (`reps`) only repeated.
fn crossover(reps: Option<usize>) {
    use ompadapt_evaluate::synthetic::{self, Noise, Shape};
    for n in [10usize, 20] {
        let data = synthetic::generate(Shape::CrossoverNk, n, Noise::NONE, 1).truth;
        if let Some(reps) = reps {
            for _ in 0..reps {
                drop(model::train_costs(ModelChoice::Auto, std::hint::black_box(&data), 1).unwrap());
            }
            continue;
        }
        let fit = model::train_costs(ModelChoice::Auto, &data, 1).expect("auto trains");
        let ms = ms_of(&mut || drop(model::train_costs(ModelChoice::Auto, &data, 1).unwrap()), 41);
        println!(
            "train auto on the crossover shape, {n} vectors x {} variants: {ms:.2} ms median (chosen: {})",
            data.k,
            fit.chosen.describe()
        );
    }
}

fn main() {
    std::env::set_var("OMPADAPT_REPORT", "0");
    let data = measurements();
    assert_eq!(data.len(), 122);
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "crossover") {
        crossover(args.get(i + 1).and_then(|r| r.parse().ok()));
        return;
    }
    // `-- coarse`: coarse mode alone
    if !args.iter().any(|a| a == "coarse") {
        training(&TrainingSet::from_pairs(&data, VARIANTS.len()).expect("training set"));
        startup(&data);
    }
    coarse(&data);
}
