//! Model costs: inference of each compiled model on the runtime's padded
//! `[f64; 16]` features, and training (fit + compile + the check on every training vector).
//!
//! Targets and Apollo's figures (its own `apollo-overhead` test, measured on this project's
//! machine): inference of a depth-2 tree ≤ 5 ns (Apollo 8.4 ns), of a 10-tree × depth-2 forest
//! ≤ 40 ns (paper: 7–20 ns); training a depth-2 tree on 10 samples × 2 features ≤ 5 µs (Apollo
//! 5.5 µs), a 10-tree forest ≤ 100 µs (paper: 60–280 µs).
//!
//! * `infer_*`: one prediction; the input alternates between two vectors on either side of the
//!   model's boundaries so the walk cannot be predicted perfectly.
//! * `train_*_10x2`: 10 feature vectors × 2 features, labels split on the first feature (the
//!   usual shape); `_4class` variants: 4 labels in a pattern greedy splitting cannot fit at
//!   depth 2 (the exhaustive depth-2 search runs).
//!
//! * `apollo_trained_execution`: one execution through Apollo's C API on a trained region
//!   (begin, 2 × set_feature, get_policy, end), for comparison with `trained_execution` in
//!   the overhead bench (the same work through `ompadapt_begin`/`ompadapt_end`).
//!
//! * `infer_cost_*`: a compiled cost model (3 variants over (n, k)): the terms once, then per
//!   variant a fixed-depth walk and a dot product; `train_cost_*`, `train_auto_*`: fitting on
//!   per-variant times (`auto` cross-validates every candidate first).
//!
//! `cargo bench -p ompadapt-benchmarks --bench models`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use ompadapt_evaluate::synthetic::{self, Noise, Shape};
use ompadapt_rt::ctx::MAX_FEATURES;
use ompadapt_rt::model::{self, Compiled, CostForm, Family, ModelChoice};

fn rows_10x2() -> Vec<Vec<f64>> {
    (0..10).map(|i| vec![(1 + i) as f64 * 10_000.0, (i % 3) as f64]).collect()
}

fn split_labels() -> Vec<usize> {
    (0..10).map(|i| (i >= 4) as usize).collect()
}

/// 0 0 0 0 0 1 2 2 3 3: greedy Gini splits the big class off first and then cannot finish in
/// two levels; the exhaustive depth-2 search finds 0 1 | 2 3.
fn hard_labels() -> Vec<usize> {
    vec![0, 0, 0, 0, 0, 1, 2, 2, 3, 3]
}

fn pad(r: &[f64]) -> [f64; MAX_FEATURES] {
    let mut x = [0.0; MAX_FEATURES];
    x[..r.len()].copy_from_slice(r);
    x
}

fn bench_inference(c: &mut Criterion, name: &str, m: &Compiled) {
    let xs = [pad(&[25_000.0, 1.0]), pad(&[85_000.0, 2.0])];
    let mut i = 0usize;
    c.bench_function(name, |b| {
        b.iter(|| {
            i += 1;
            m.predict(black_box(&xs[i & 1]))
        })
    });
}

fn inference(c: &mut Criterion) {
    let rows = rows_10x2();
    let hard = hard_labels();
    let tree = model::train(ModelChoice::Tree { max_depth: 2 }, &rows, &hard, 1).unwrap();
    let forest = model::fit(ModelChoice::Forest { trees: 10, max_depth: 2 }, &rows, &hard, 1).unwrap();
    let logistic = model::fit(ModelChoice::LogisticRegression, &rows, &hard, 1).unwrap();
    let patched = model::train(ModelChoice::Tree { max_depth: 1 }, &rows, &hard, 1).unwrap();
    assert!(matches!(tree, Compiled::Tree(_)));
    assert!(matches!(patched, Compiled::Patched(_)));
    bench_inference(c, "infer_dtree_depth2", &tree);
    bench_inference(c, "infer_rfc_10x_depth2", &forest);
    bench_inference(c, "infer_logistic_2f_4classes", &logistic);
    bench_inference(c, "infer_dtree_depth1_with_exceptions", &patched);

    // cost models: 3 variants over (n, k), 20 training vectors
    let data = synthetic::generate(Shape::CrossoverNk, 20, Noise::NONE, 1).truth;
    let xs = [data.padded(3), data.padded(11)];
    for (name, choice) in [
        ("infer_cost_additive_2f_3variants", ModelChoice::Cost(CostForm::new(Family::Additive, 0))),
        ("infer_cost_loglinear_2f_3variants", ModelChoice::Cost(CostForm::new(Family::LogLinear, 0))),
        ("infer_cost_additive_piecewise2_2f_3variants", ModelChoice::Cost(CostForm::new(Family::Additive, 2))),
    ] {
        let m = model::fit_training_set(choice, &data, 1).unwrap().model;
        assert!(matches!(m, Compiled::Cost(_)));
        let mut i = 0usize;
        c.bench_function(name, |b| {
            b.iter(|| {
                i += 1;
                m.predict(black_box(&xs[i & 1]))
            })
        });
    }
}

/// Training on times: one cost model, and `auto` (cross-validation of every candidate, then the
/// winner on all vectors) on 10 and 20 vectors of the (n, k) shape, 3 variants.
fn training_costs(c: &mut Criterion) {
    for n in [10usize, 20] {
        let data = synthetic::generate(Shape::CrossoverNk, n, Noise::NONE, 1).truth;
        for (name, choice) in [
            ("train_cost_additive", ModelChoice::Cost(CostForm::new(Family::Additive, 0))),
            ("train_cost_additive_piecewise2", ModelChoice::Cost(CostForm::new(Family::Additive, 2))),
            ("train_weighted_dtree_depth2", ModelChoice::Tree { max_depth: 2 }),
            ("train_auto", ModelChoice::Auto),
        ] {
            c.bench_function(&format!("{name}_{n}x2"), |b| b.iter(|| model::train_costs(choice, black_box(&data), 1).unwrap()));
        }
    }
}

fn training(c: &mut Criterion) {
    let rows = rows_10x2();
    let (split, hard) = (split_labels(), hard_labels());
    for (name, choice, labels) in [
        ("train_dtree_10x2", ModelChoice::Tree { max_depth: 2 }, &split),
        ("train_dtree_10x2_4class", ModelChoice::Tree { max_depth: 2 }, &hard),
        ("train_rfc10_10x2", ModelChoice::Forest { trees: 10, max_depth: 2 }, &split),
        ("train_rfc10_10x2_4class", ModelChoice::Forest { trees: 10, max_depth: 2 }, &hard),
        ("train_logistic_10x2", ModelChoice::LogisticRegression, &split),
        ("train_logistic_10x2_4class", ModelChoice::LogisticRegression, &hard),
    ] {
        c.bench_function(name, |b| b.iter(|| model::train(choice, black_box(&rows), black_box(labels), 1).unwrap()));
    }
}

fn apollo(c: &mut Criterion) {
    use ompadapt_rt::apollo::*;
    use std::ffi::c_void;
    std::env::set_var("OMPADAPT_PERSIST", "0");
    std::env::set_var("OMPADAPT_REPORT", "0");
    std::env::remove_var("OMPADAPT_MODEL");
    let r = unsafe { __apollo_region_create(2, c"bench_apollo".as_ptr(), 2, 4, c"DecisionTree,max_depth=2".as_ptr()) };
    let exec = |r: *mut c_void, a: f32, b: f32| unsafe {
        __apollo_region_begin(r);
        __apollo_region_set_feature(r, a);
        __apollo_region_set_feature(r, b);
        let p = __apollo_region_get_policy(r);
        __apollo_region_end(r);
        p
    };
    let trained = || {
        let mut s = Stats::default();
        unsafe { ompadapt_apollo_region_stats(r, &mut s) };
        s.trained == 1
    };
    for i in 0..1000 {
        if trained() {
            break;
        }
        exec(r, if i % 2 == 0 { 1000.0 } else { 100_000.0 }, 8.0);
    }
    assert!(trained());
    c.bench_function("apollo_trained_execution", |b| b.iter(|| exec(r, black_box(50_000.0), black_box(8.0))));
}

fn config() -> Criterion {
    Criterion::default().warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1))
}

criterion_group! {
    name = benches;
    config = config();
    targets = inference, training, training_costs, apollo
}
criterion_main!(benches);
