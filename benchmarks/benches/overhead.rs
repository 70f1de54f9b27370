//! Runtime overhead through the public C ABI (`ompadapt_begin` / `ompadapt_end`), called from
//! Rust exactly as the plugin's generated code calls it: a static slot per call site and an
//! `ompadapt_ctx` on the stack.
//!
//! * `trained_execution`: one execution of a trained region with 2 features (begin, read the
//!   variant, end). This is the per-execution cost a production run pays.
//! * `exploration_execution`: one execution of a region that never reaches `min_train`.
//! * `train_dtree_10x2` / `train_rfc10_10x2`: fitting (linfa) + compiling a depth-2 decision
//!   tree / a 10-tree forest on 10 rows × 2 features.
//! * `clock_now`: one read of the runtime clock (each execution reads it twice).
//!
//! `cargo bench -p ompadapt-benchmarks` (about a minute).

use std::hint::black_box;
use std::os::raw::{c_char, c_void};
use std::ptr::null_mut;
use std::sync::atomic::AtomicPtr;
use std::sync::Once;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use ompadapt_rt::model::{self, ModelChoice};
use ompadapt_rt::{ompadapt_begin, ompadapt_end, registry, Ctx};

fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // No files, no report: measure the execution path only.
        std::env::set_var("OMPADAPT_PERSIST", "0");
        std::env::set_var("OMPADAPT_REPORT", "0");
        std::env::remove_var("OMPADAPT_MODEL");
    });
}

#[inline(always)]
fn execute(slot: &AtomicPtr<c_void>, spec: &'static [u8], min_train: i64, f: &[f64; 2]) -> i32 {
    let mut ctx = Ctx::zeroed();
    unsafe {
        ompadapt_begin(slot.as_ptr(), spec.as_ptr() as *const c_char, min_train, -1, -1, f.as_ptr(), 2, &mut ctx);
    }
    let v = black_box(ctx.variant);
    unsafe { ompadapt_end(&mut ctx) };
    v
}

fn trained(c: &mut Criterion) {
    init();
    static SLOT: AtomicPtr<c_void> = AtomicPtr::new(null_mut());
    const SPEC: &[u8] =
        b"ompadapt1;model=bench_trained;loc=overhead.rs:1;features=n,m;variants=cpu,gpu;values=0,1;numeric=0;model_type=dtree\0";
    // Explore until trained: 2 vectors x 2 variants (+ 2 warm-ups).
    let vectors = [[1000.0, 8.0], [100000.0, 8.0]];
    for i in 0..1000 {
        execute(&SLOT, SPEC, 4, &vectors[i % 2]);
        if registry::global().find("bench_trained").is_some_and(|r| r.is_trained()) {
            break;
        }
    }
    assert!(registry::global().find("bench_trained").unwrap().is_trained());
    let f = [50000.0, 8.0];
    c.bench_function("trained_execution", |b| b.iter(|| execute(&SLOT, SPEC, 4, black_box(&f))));
}

fn exploring(c: &mut Criterion) {
    init();
    static SLOT: AtomicPtr<c_void> = AtomicPtr::new(null_mut());
    const SPEC: &[u8] =
        b"ompadapt1;model=bench_explore;loc=overhead.rs:2;features=n,m;variants=cpu,gpu;values=0,1;numeric=0;model_type=dtree\0";
    let f = [1000.0, 8.0];
    c.bench_function("exploration_execution", |b| b.iter(|| execute(&SLOT, SPEC, i64::MAX, black_box(&f))));
}

fn training(c: &mut Criterion) {
    // 10 feature vectors x 2 features, labels as a timing split on the first feature would give.
    let rows: Vec<Vec<f64>> = (0..10).map(|i| vec![(i * 10_000) as f64, (i % 3) as f64]).collect();
    let labels: Vec<usize> = (0..10).map(|i| (i >= 4) as usize).collect();
    c.bench_function("train_dtree_10x2", |b| {
        b.iter(|| model::train(ModelChoice::Tree { max_depth: 2 }, black_box(&rows), black_box(&labels), 1).unwrap())
    });
    c.bench_function("train_rfc10_10x2", |b| {
        b.iter(|| model::train(ModelChoice::Forest { trees: 10, max_depth: 2 }, black_box(&rows), black_box(&labels), 1).unwrap())
    });
}

/// The clock read that every execution pays twice (context for the figures above).
fn clock(c: &mut Criterion) {
    c.bench_function("clock_now", |b| b.iter(ompadapt_rt::clock::now));
}

fn config() -> Criterion {
    Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = trained, exploring, training, clock
}
criterion_main!(benches);
