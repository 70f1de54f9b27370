//! The runtime's overhead figures (a trained execution, exploration, memory per stored sample),
//! measured on this machine and printed beside the paper's (Georgakoudis et al., Table 4) and LLNL
//! Apollo 2.0's where measured here; the trained execution against Apollo itself, side by side in
//! one process, is `--bench apollo_side_by_side`.
//!
//! `cargo bench -p ompadapt-benchmarks --bench runtime_figures` (about 20 s). Each timing is the median
//! over 15 batches of its per-iteration time (a batch: tens of thousands of iterations, timed
//! with `Instant`), so one preempted batch on a busy machine does not move it.
//!
//! Definitions:
//! * *one region execution after training*: `ompadapt_begin` with 2 features, read the
//!   variant, `ompadapt_end`, through the C ABI with a per-call-site slot and the context on
//!   the stack, exactly what generated code does, around an empty body; drift monitoring on
//!   (the default). Also without monitoring (`OMPADAPT_DRIFT=0` / frozen).
//! * *exploration*: the same on a region that never trains. A pair's first `repeats`
//!   measurements count towards training ("counted"). Every exploring measurement is
//!   buffered per thread (each thread's view of the pair holds a budget); the one that
//!   completes a pair also takes one atomic step on the region's count of what training
//!   still needs, and the region's lock only if that says it may be ready (never here), or
//!   under successive elimination. Later ones ("settled": the pair already has its
//!   measurements, as in most of an Apollo-style exploration phase) are buffered too.
//!   Both are printed (counted with repeats = 255, so 1 in 255 completes a pair), then the
//!   completing measurements alone (fresh regions of 1000 vectors × 4 variants, repeats 2,
//!   timed after every pair has one measurement), and the average over a whole exploration
//!   phase (fresh region, 10 vectors × 4 variants × 3 repeats, until trained).
//! * *memory per stored sample*: a stored sample is one retained measurement (feature vector,
//!   variant, time) — the row Apollo keeps per execution; bytes are all heap bytes of the
//!   region's sample store (records, sample lists, key and counter arenas, hash index; by
//!   capacity) over the number of retained measurements, with 2 features and 1000 feature
//!   vectors, cross-checked with a counting allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::os::raw::{c_char, c_void};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicIsize, AtomicPtr, Ordering};
use std::time::Instant;

use ompadapt_rt::config::Directive;
use ompadapt_rt::config::{Config, DriftConfig, PerRegion};
use ompadapt_rt::ctx::MAX_FEATURES;
use ompadapt_rt::explore::{Params, Strategy};
use ompadapt_rt::measurements::MeasurementTable;
use ompadapt_rt::model::{self, ModelChoice};
use ompadapt_rt::region::{Region, RegionBuilder};
use ompadapt_rt::stats::{FeatureKey, XorShift};
use ompadapt_rt::{clock, ompadapt_begin, ompadapt_end, registry, spec, Ctx};

/// Live heap bytes (the memory cross-check).
struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        LIVE.fetch_add(n as isize - l.size() as isize, Ordering::Relaxed);
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Median over `batches` of the per-iteration time of `iters` calls of `f`, ns.
fn time_ns(iters: usize, batches: usize, mut f: impl FnMut(usize)) -> f64 {
    let mut t: Vec<f64> = (0..batches)
        .map(|b| {
            let s = Instant::now();
            for i in 0..iters {
                f(b * iters + i);
            }
            s.elapsed().as_nanos() as f64 / iters as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[batches / 2]
}

#[inline(always)]
fn execute(slot: &AtomicPtr<c_void>, spec: &[u8], min_train: i64, f: &[f64; 2]) -> i32 {
    let mut ctx = Ctx::zeroed();
    unsafe {
        ompadapt_begin(slot.as_ptr(), spec.as_ptr() as *const c_char, min_train, -1, -1, f.as_ptr(), 2, &mut ctx);
    }
    let v = black_box(ctx.variant);
    unsafe { ompadapt_end(&mut ctx) };
    v
}

fn rust_region(name: &str, variants: &str, min_train: i64, c: &Config) -> Region {
    let s = spec::parse(&format!("ompadapt1;model={name};features=n,m;variants={variants}")).unwrap().descriptor;
    let d = Directive { min_train: Some(min_train.clamp(1, i64::MAX) as usize), ..Directive::default() };
    RegionBuilder::from_settings(c.region_settings(name, &d)).build(s)
}

fn rust_execute(r: &Region, f: &[f64]) -> i32 {
    let mut c = Ctx::zeroed();
    r.begin(f, &mut c);
    let v = black_box(c.variant);
    r.end(&c);
    v
}

struct Row {
    what: String,
    ours: String,
    target: &'static str,
    apollo: &'static str,
    paper: &'static str,
}

fn row(what: &str, ours: String, target: &'static str, apollo: &'static str, paper: &'static str) -> Row {
    Row { what: what.into(), ours, target, apollo, paper }
}

fn fmt_ns(x: f64) -> String {
    if x >= 1000.0 {
        format!("{:.2} µs", x / 1000.0)
    } else {
        format!("{x:.1} ns")
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list`
    }
    // No files, no report: measure the execution path only (read once, before any region).
    std::env::set_var("OMPADAPT_PERSIST", "0");
    std::env::remove_var("OMPADAPT_REPORT");
    std::env::remove_var("OMPADAPT_MODEL");
    std::env::remove_var("OMPADAPT_REPEATS");
    std::env::remove_var("OMPADAPT_EXPLORE");
    std::env::remove_var("OMPADAPT_FROZEN");

    let mut rows = Vec::new();
    let trained = trained_rows(&mut rows);
    exploration_rows(&mut rows, trained);
    inference_rows(&mut rows);
    training_rows(&mut rows);
    memory_rows(&mut rows);
    print_rows(&rows);
    strategies();
}

/// Iterations and batches of each timed loop.
const ITERS: usize = 40_000;
const BATCHES: usize = 15;

/// One execution after training (C ABI and Rust API) and a clock read; returns the trained
/// execution's time, the unit of the exploration rows.
fn trained_rows(rows: &mut Vec<Row>) -> f64 {
    // ---- one execution after training, through the C ABI ------------------------------
    static SLOT: AtomicPtr<c_void> = AtomicPtr::new(null_mut());
    const SPEC: &[u8] =
        b"ompadapt1;model=figures_trained;loc=runtime_figures.rs:1;features=n,m;variants=cpu,gpu;values=0,1;numeric=0;model_type=dtree\0";
    let vectors = [[1000.0, 8.0], [100000.0, 8.0]];
    for i in 0..1000 {
        execute(&SLOT, SPEC, 4, &vectors[i % 2]);
        if registry::global().find("figures_trained").is_some_and(|r| r.is_trained()) {
            break;
        }
    }
    assert!(registry::global().find("figures_trained").unwrap().is_trained());
    let fs = [[50000.0, 8.0], [120000.0, 8.0]];
    let trained = time_ns(ITERS, BATCHES, |i| {
        execute(&SLOT, SPEC, 4, black_box(&fs[i & 1]));
    });
    rows.push(row(
        "one region execution after training (C ABI, 2 features, drift check on)",
        fmt_ns(trained),
        "≤ 40 ns",
        "see apollo_side_by_side",
        "200–646 ns",
    ));

    let no_drift = Config { persist: false, drift: DriftConfig { enabled: false, ..DriftConfig::default() }, ..Config::default() };
    let r = rust_region("figures_nodrift", "cpu,gpu", 4, &no_drift);
    while !r.is_trained() {
        for f in &vectors {
            rust_execute(&r, f);
        }
    }
    let trained_nodrift = time_ns(ITERS, BATCHES, |i| {
        rust_execute(&r, black_box(&fs[i & 1]));
    });
    rows.push(row("  … Rust API, no drift check (OMPADAPT_DRIFT=0, frozen)", fmt_ns(trained_nodrift), "", "", ""));
    let clock_ns = time_ns(ITERS, BATCHES, |_| {
        black_box(clock::now());
    });
    rows.push(row("  … of which: one clock read (twice per execution)", fmt_ns(clock_ns), "", "", ""));

    trained
}

/// Exploring executions: settled, counted, completing a pair, a whole phase.
fn exploration_rows(rows: &mut Vec<Row>, trained: f64) {
    // ---- exploration ---------------------------------------------------------------------
    static XSLOT: AtomicPtr<c_void> = AtomicPtr::new(null_mut());
    const XSPEC: &[u8] =
        b"ompadapt1;model=figures_explore;loc=runtime_figures.rs:2;features=n,m;variants=cpu,gpu;values=0,1;numeric=0;model_type=dtree\0";
    let f = [1000.0, 8.0];
    let explore_settled = time_ns(ITERS, BATCHES, |_| {
        execute(&XSLOT, XSPEC, i64::MAX, black_box(&f));
    });
    rows.push(row(
        "exploring execution, settled pair (buffered, no lock)",
        format!("{} ({:.2}× trained)", fmt_ns(explore_settled), explore_settled / trained),
        "≤ 2× trained",
        "",
        "",
    ));
    // every measurement counted: repeats 255 keeps each pair unsettled for 255 measurements
    let counted_cfg = Config { persist: false, repeats: PerRegion::all(255), ..Config::default() };
    let r = rust_region("figures_counted", "cpu,gpu", i64::MAX, &counted_cfg);
    let keys: Vec<[f64; 2]> = (0..500).map(|i| [i as f64, 8.0]).collect();
    let explore_counted = time_ns(ITERS / 4, BATCHES, |i| {
        rust_execute(&r, black_box(&keys[i % keys.len()]));
    });
    rows.push(row(
        "exploring execution, counted pair (buffered, no lock)",
        format!("{} ({:.2}× trained)", fmt_ns(explore_counted), explore_counted / trained),
        "≤ 2× trained",
        "",
        "",
    ));
    completing_rows(rows, trained);
}

/// The exploring execution that completes a pair, and a whole exploration phase on average.
fn completing_rows(rows: &mut Vec<Row>, trained: f64) {
    // the measurement that completes a pair (with repeats = 1 every counted one is): fresh
    // regions, 1000 vectors × 4 variants, repeats 2; after one measurement of every pair, the
    // next 4000 executions each complete a pair, and every 4th decides its vector (labels)
    let completing_cfg = Config { persist: false, repeats: PerRegion::all(2), ..Config::default() };
    let ck: Vec<[f64; 2]> = (0..1000).map(|i| [i as f64, 8.0]).collect();
    let mut completing: Vec<f64> = (0..15)
        .map(|k| {
            let r = rust_region(&format!("figures_completing{k}"), "a,b,c,d", 1_000_000, &completing_cfg);
            for _ in 0..4 {
                for f in &ck {
                    rust_execute(&r, f);
                }
            }
            time_ns(4000, 1, |i| {
                rust_execute(&r, black_box(&ck[i % ck.len()]));
            })
        })
        .collect();
    completing.sort_by(f64::total_cmp);
    rows.push(row(
        "  … the one that completes a pair (every counted one at repeats = 1; labels included)",
        format!("{} ({:.2}× trained)", fmt_ns(completing[7]), completing[7] / trained),
        "",
        "",
        "",
    ));
    // a whole exploration phase: 10 vectors × 4 variants × 3 repeats, fresh region each time
    let phase_cfg = Config { persist: false, repeats: PerRegion::all(3), ..Config::default() };
    let mut phase: Vec<f64> = (0..60)
        .map(|k| {
            let r = rust_region(&format!("figures_phase{k}"), "a,b,c,d", 40, &phase_cfg);
            let mut n = 0usize;
            let s = Instant::now();
            while !r.is_trained() {
                for j in 0..10 {
                    rust_execute(&r, &[j as f64 * 1000.0, 8.0]);
                    n += 1;
                }
            }
            s.elapsed().as_nanos() as f64 / n as f64
        })
        .collect();
    phase.sort_by(f64::total_cmp);
    rows.push(row(
        "  … average over an exploration phase (10 vectors × 4 variants × 3 repeats, with training)",
        format!("{} ({:.2}× trained)", fmt_ns(phase[30]), phase[30] / trained),
        "",
        "",
        "",
    ));

}

/// Inference of a tree and a forest.
fn inference_rows(rows: &mut Vec<Row>) {
    // ---- inference -------------------------------------------------------------------------
    let rows10: Vec<Vec<f64>> = (0..10).map(|i| vec![(1 + i) as f64 * 10_000.0, (i % 3) as f64]).collect();
    let labels: Vec<usize> = (0..10).map(|i| (i >= 4) as usize).collect();
    let pad = |r: &[f64]| {
        let mut x = [0.0; MAX_FEATURES];
        x[..r.len()].copy_from_slice(r);
        x
    };
    let xs = [pad(&[25_000.0, 1.0]), pad(&[85_000.0, 2.0])];
    let tree = model::train(ModelChoice::Tree { max_depth: 2 }, &rows10, &labels, 1).unwrap();
    let forest = model::train(ModelChoice::Forest { trees: 10, max_depth: 2 }, &rows10, &labels, 1).unwrap();
    let infer_tree = time_ns(ITERS * 5, BATCHES, |i| {
        black_box(tree.predict(black_box(&xs[i & 1])));
    });
    let infer_forest = time_ns(ITERS * 5, BATCHES, |i| {
        black_box(forest.predict(black_box(&xs[i & 1])));
    });
    rows.push(row("inference: decision tree, depth 2", fmt_ns(infer_tree), "≤ 5 ns", "8.4 ns", "7–20 ns"));
    rows.push(row("inference: random forest, 10 trees × depth 2", fmt_ns(infer_forest), "≤ 40 ns", "", "7–20 ns"));
    rows.push(row("  (trained executions use a per-thread decision cache: no inference per execution)", String::new(), "", "", ""));

}

/// Training of a tree and a forest.
fn training_rows(rows: &mut Vec<Row>) {
    let rows10: Vec<Vec<f64>> = (0..10).map(|i| vec![(1 + i) as f64 * 10_000.0, (i % 3) as f64]).collect();
    let labels: Vec<usize> = (0..10).map(|i| (i >= 4) as usize).collect();
    // ---- training --------------------------------------------------------------------------
    let train_tree = time_ns(200, BATCHES, |_| {
        black_box(model::train(ModelChoice::Tree { max_depth: 2 }, black_box(&rows10), black_box(&labels), 1).unwrap());
    });
    let train_forest = time_ns(40, BATCHES, |_| {
        black_box(model::train(ModelChoice::Forest { trees: 10, max_depth: 2 }, black_box(&rows10), black_box(&labels), 1).unwrap());
    });
    rows.push(row("training: decision tree depth 2, 10 samples × 2 features", fmt_ns(train_tree), "≤ 5 µs", "5.5 µs", "60–280 µs"));
    rows.push(row("training: random forest of 10 (depth 2), 10 × 2", fmt_ns(train_forest), "≤ 100 µs", "", "60–280 µs"));

}

/// Memory per stored sample.
fn memory_rows(rows: &mut Vec<Row>) {
    // ---- memory per stored sample -----------------------------------------------------------
    let mut mem = Vec::new();
    for (nv, repeats) in [(2usize, 1u32), (4, 1), (4, 3), (8, 5)] {
        let before = LIVE.load(Ordering::Relaxed);
        let mut s = MeasurementTable::new(nv, Params { repeats, ..Params::default() }, 1);
        for f in 0..1000 {
            for _ in 0..repeats {
                for v in 0..nv {
                    s.record(&FeatureKey::new(&[f as f64, 8.0]), v, 1000.0 + v as f64);
                }
            }
        }
        let counted = (LIVE.load(Ordering::Relaxed) - before) as f64 / s.stored_samples() as f64;
        let own = s.heap_bytes() as f64 / s.stored_samples() as f64;
        mem.push(format!("{nv}×{repeats}: {own:.0} B (allocator: {counted:.0} B)"));
        drop(s);
    }
    rows.push(row("memory per stored sample (variants × repeats)", mem[..2].join("; "), "≤ 64 B", "", ""));
    rows.push(row("", mem[2..].join("; "), "", "", ""));

}

/// The table.
fn print_rows(rows: &[Row]) {
    // ---- print -------------------------------------------------------------------------------
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned()))
        .unwrap_or_default();
    println!(
        "ompadapt runtime figures — {cpu}, {} cores; clock: {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        clock::source()
    );
    let w = rows.iter().map(|r| r.what.chars().count()).max().unwrap_or(0);
    let wo = rows.iter().map(|r| r.ours.chars().count()).max().unwrap_or(0).max(8);
    println!("{:w$}  {:wo$}  {:12}  {:18}  {}", "figure", "ompadapt", "target", "Apollo 2.0 (here)", "paper (Apollo)");
    for r in rows {
        println!("{:w$}  {:wo$}  {:12}  {:18}  {}", r.what, r.ours, r.target, r.apollo, r.paper);
    }

}

/// Exploration strategies side by side.
fn strategies() {
    // ---- exploration strategies ----------------------------------------------------------
    println!();
    println!("exploration strategies: exploring executions until every feature vector is decided,");
    println!("and whether the decisions equal round-robin's (12 vectors × 4 variants, 3 % noise, 1 in 50");
    println!("measurements preempted ×20):");
    println!("{:34} {:>7}  {:>10} {:>10}  {:>14}  {}", "cost model", "repeats", "roundrobin", "random", "elimination", "same decisions");
    let mut ratios = Vec::new();
    for (name, cost) in cost_models() {
        for repeats in [3u32, 5] {
            let rr = explore_until_decided(Strategy::RoundRobin, repeats, &cost);
            let rnd = explore_until_decided(Strategy::Random, repeats, &cost);
            let se = explore_until_decided(Strategy::Elimination, repeats, &cost);
            let same = |d: &Vec<usize>| d.iter().zip(&rr.1).filter(|(a, b)| a == b).count();
            ratios.push(se.0 as f64 / rr.0 as f64);
            println!(
                "{:34} {:>7}  {:>10} {:>10}  {:>7} ({:.2}×)  random {}/12, elimination {}/12",
                name,
                repeats,
                rr.0,
                rnd.0,
                se.0,
                se.0 as f64 / rr.0 as f64,
                same(&rnd.1),
                same(&se.1)
            );
        }
    }
    let geo = ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64;
    println!("elimination / round-robin, geometric mean: {:.2}", geo.exp());
}

type Cost = Box<dyn Fn(usize, usize) -> f64>;

/// Controlled cost models: time of variant v on feature vector f (12 vectors, 4 variants).
fn cost_models() -> Vec<(&'static str, Cost)> {
    vec![
        // the best variant per vector is clearly ahead (2× or more)
        ("separated (best ≥ 2× ahead)", Box::new(|f, v| 10_000.0 * (1 + (v + 4 - f % 4) % 4) as f64)),
        // thread counts 1,2,4,8 on 2 cores: work / min(t, 2) + 3 µs per thread; work grows with f
        (
            "thread counts (work/min(t,2)+t·3µs)",
            Box::new(|f, v| {
                let t = [1.0, 2.0, 4.0, 8.0][v];
                let work = 2_000.0 * (1 + f) as f64;
                work / f64::min(t, 2.0) + 3_000.0 * t
            }),
        ),
        // CPU vs GPU-like: crossover at f = 6, two near-duplicates of each
        (
            "crossover with near-ties (±2 %)",
            Box::new(|f, v| {
                let cpu = 4_000.0 * (1 + f) as f64;
                let gpu = 20_000.0 + 800.0 * f as f64;
                [cpu, cpu * 1.02, gpu, gpu * 1.02][v]
            }),
        ),
    ]
}

/// Explores with `strategy` until all 12 vectors are decided (the store's own logic, times
/// from `cost` with noise); returns (exploring executions, decisions).
fn explore_until_decided(strategy: Strategy, repeats: u32, cost: &Cost) -> (usize, Vec<usize>) {
    let mut s = MeasurementTable::new(4, Params { strategy, repeats, ..Params::default() }, 7);
    let mut noise = XorShift::new(99);
    let keys: Vec<FeatureKey> = (0..12).map(|f| FeatureKey::new(&[f as f64])).collect();
    let mut n = 0;
    while s.decided < 12 && n < 100_000 {
        for (f, k) in keys.iter().enumerate() {
            if s.find(k).and_then(|i| s.rec(i).decided()).is_some() {
                continue; // decided vectors no longer explore (they would run the model)
            }
            let (v, _) = s.choose(k);
            let jitter = 1.0 + (noise.below(601) as f64 - 300.0) / 10_000.0;
            let preempt = if noise.below(50) == 0 { 20.0 } else { 1.0 };
            s.record(k, v, cost(f, v) * jitter * preempt);
            n += 1;
        }
    }
    let decisions = keys.iter().map(|k| s.find(k).and_then(|i| s.rec(i).decided()).unwrap_or(usize::MAX)).collect();
    (n, decisions)
}
