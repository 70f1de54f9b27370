//! Decision quality on inputs never measured (Georgakoudis et al.'s Adaptive-K method, `evaluate`),
//! on the controlled cost shapes of `evaluate::synthetic`, with default settings (`auto`).
//!
//! Target: with Adaptive-50 (40 inputs, train on half, 10 shuffles), ≥ 95 % of held-out
//! decisions within 5 % of the best variant's time and mean regret ≤ 2 %, on every shape,
//! averaged over seeds the models were not tuned on (each seed draws other parameters and
//! inputs). Noisy measurements (±10 % per execution, 5 % preempted, medians of 5) are scored
//! against the true costs; the shapes where noise keeps `auto` from the target are asserted at
//! what they reach and printed (see docs/performance.md).

use ompadapt_evaluate as evaluate;
use ompadapt_evaluate::synthetic::{self, Noise, Shape};
use ompadapt_evaluate::{Method, Score};
use ompadapt_rt::model::{ModelChoice, TrainingSet};

/// (model, within 5 %, mean regret, worst regret) per model.
type Rows = Vec<(String, f64, f64, f64)>;

const SEEDS: [u64; 6] = [11, 12, 13, 14, 15, 16];

/// Adaptive-50 of `models` on `shape`, averaged over [`SEEDS`]: (model, within, mean, worst).
fn averaged(shape: Shape, noise: Noise, models: &[ModelChoice]) -> Rows {
    let mut out: Rows = models.iter().map(|m| (m.describe(), 0.0, 0.0, 0.0)).collect();
    for seed in SEEDS {
        let s = synthetic::generate(shape, 40, noise, seed);
        let scores = evaluate::adaptive_k_against(&s.measured, &s.truth, models, &Method::adaptive50()).unwrap();
        for (o, sc) in out.iter_mut().zip(&scores) {
            o.1 += sc.within / SEEDS.len() as f64;
            o.2 += sc.mean_regret / SEEDS.len() as f64;
            o.3 = o.3.max(sc.worst_regret);
        }
    }
    out
}

fn print(title: &str, rows: &[(String, f64, f64, f64)]) {
    println!("{title}");
    for (m, w, r, worst) in rows {
        println!("  {m:55} within 5 %: {:5.1} %  mean regret {:6.2} %  worst {:7.1} %", w * 100.0, r * 100.0, worst * 100.0);
    }
}

/// The crossover setting (three variants over (n, k), crossovers moving with k): the classifiers
/// stay well below the target, `auto` meets it.
#[test]
fn crossover_nk_auto_beats_the_classifiers() {
    let models = [
        ModelChoice::Auto,
        ModelChoice::Tree { max_depth: 2 },
        ModelChoice::Tree { max_depth: 4 },
        ModelChoice::Forest { trees: 10, max_depth: 4 },
        ModelChoice::LogisticRegression,
    ];
    let rows = averaged(Shape::CrossoverNk, Noise::NONE, &models);
    print("crossover-nk, exact times", &rows);
    assert!(rows[0].1 >= 0.95 && rows[0].2 <= 0.02, "{:?}", rows[0]);
    for r in &rows[1..] {
        assert!(r.1 < rows[0].1 && r.2 > rows[0].2, "{r:?} vs auto {:?}", rows[0]);
    }
}

/// Every shape with exact times: the target, averaged over the seeds; no seed below 90 %.
#[test]
fn every_shape_meets_the_target_with_exact_times() {
    let results: Vec<(Shape, Rows)> = std::thread::scope(|s| {
        let handles: Vec<_> =
            Shape::ALL.iter().map(|&shape| s.spawn(move || (shape, averaged(shape, Noise::NONE, &[ModelChoice::Auto])))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut failed = Vec::new();
    for (shape, rows) in &results {
        print(shape.name(), rows);
        if !(rows[0].1 >= 0.95 && rows[0].2 <= 0.02) {
            failed.push((shape.name(), rows[0].1, rows[0].2));
        }
    }
    assert!(failed.is_empty(), "below target: {failed:?}");
}

/// Noisy timings: within 5 % of the best on ≥ 95 % of held-out inputs on every shape; mean
/// regret ≤ 2 % on every shape but one, where single inputs far from any training input of
/// their kind cost more (categorical: a layout seen on one training input or none, 6.3 %),
/// asserted at what it reaches.
#[test]
fn noisy_timings() {
    let results: Vec<(Shape, Rows)> = std::thread::scope(|s| {
        let handles: Vec<_> =
            Shape::ALL.iter().map(|&shape| s.spawn(move || (shape, averaged(shape, Noise::LOADED, &[ModelChoice::Auto])))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut failed = Vec::new();
    for (shape, rows) in &results {
        print(&format!("{} (noisy)", shape.name()), rows);
        let regret_bound = if *shape == Shape::Categorical { 0.08 } else { 0.02 };
        if !(rows[0].1 >= 0.95 && rows[0].2 <= regret_bound) {
            failed.push((shape.name(), rows[0].1, rows[0].2));
        }
    }
    assert!(failed.is_empty(), "below target: {failed:?}");
}

/// The method itself: every input is decided `shuffles × (K − m)` times, only complete inputs
/// are scored, the seed reproduces the result, and a perfect oracle-like cost model scores 0.
#[test]
fn adaptive_k_structure() {
    let s = synthetic::generate(Shape::Linear1, 41, Noise::NONE, 3);
    let m = Method::default();
    let scores = evaluate::adaptive_k(&s.truth, &[ModelChoice::Tree { max_depth: 2 }, ModelChoice::Auto], &m).unwrap();
    assert_eq!(scores.len(), 6);
    for sc in &scores {
        let groups = (sc.fraction * 4.0).round() as usize;
        assert_eq!(sc.decisions, 10 * 41 * (4 - groups), "{sc:?}");
        assert_eq!(sc.trained, 40);
        assert!(sc.worst_regret >= sc.mean_regret && (0.0..=1.0).contains(&sc.within));
    }
    // more training data never makes auto worse here (exact affine costs)
    let auto: Vec<&Score> = scores.iter().filter(|s| s.choice == ModelChoice::Auto).collect();
    assert!(auto[2].mean_regret <= auto[0].mean_regret + 1e-9, "{auto:?}");
    assert_eq!(scores, evaluate::adaptive_k(&s.truth, &[ModelChoice::Tree { max_depth: 2 }, ModelChoice::Auto], &m).unwrap());
    let table = evaluate::table(&scores, m.tolerance);
    assert!(table.contains("| decision tree (max depth 2) | 25 % |"), "{table}");
    // an input with a variant missing is trained on but never scored
    let nan = f64::NAN;
    let rows: Vec<Vec<f64>> = (0..8).map(|i| vec![i as f64]).collect();
    let mut times: Vec<Vec<f64>> = (0..8).map(|i| vec![1.0 + i as f64, 4.0]).collect();
    times[3] = vec![nan, 4.0];
    let c = TrainingSet::new(&rows, &times, 2).unwrap();
    let sc = &evaluate::adaptive_k(&c, &[ModelChoice::Tree { max_depth: 1 }], &Method::adaptive50()).unwrap()[0];
    assert_eq!(sc.decisions, 10 * 7 * 2);
    assert!(evaluate::adaptive_k(&c.subset(&[0, 1]), &[ModelChoice::Auto], &Method::default()).is_err());
}

/// Persisted data (what `ompadapt export` archives) evaluates like the plain data it holds.
#[test]
fn persisted_data_evaluates() {
    use ompadapt_rt::store::{DataFile, SampleRecord};
    let s = synthetic::generate(Shape::CrossoverNk, 24, Noise::NONE, 5);
    let variants = vec!["serial".to_owned(), "cpu".to_owned(), "gpu".to_owned()];
    let mut f = DataFile { variants: variants.clone(), ..DataFile::default() };
    for i in 0..s.truth.n() {
        for (v, name) in variants.iter().enumerate() {
            let t = s.truth.times(i)[v];
            f.samples.push(SampleRecord {
                features: s.truth.row(i).to_vec(),
                variant: name.clone(),
                count: 3,
                times_ns: vec![t * 1.5, t, t * 0.9],
                cold_ns: Vec::new(),
                supersedes: false,
            });
        }
    }
    let c = evaluate::costs_from_file(&f).unwrap();
    assert_eq!(c.n(), 24);
    assert_eq!(c.y, s.truth.y, "lower quartiles keep the order of the true costs");
    let scores = evaluate::adaptive_k(&c, &[ModelChoice::Auto], &Method::adaptive50()).unwrap();
    assert!(scores[0].within >= 0.95, "{scores:?}");
}

/// Stored data is labelled by the runtime's rule (each pair's robust time, its lower quartile),
/// not by medians: one-sided noise on the variant the run found fastest does not make `show`
/// or `train` call the other one best.
#[test]
fn stored_data_is_labelled_as_the_runtime_labels_it() {
    use ompadapt_rt::store::{DataFile, SampleRecord};
    let variants = vec!["cpu".to_owned(), "gpu".to_owned()];
    let mut f = DataFile { variants: variants.clone(), ..DataFile::default() };
    let pair = |variant: &str, times_ns: Vec<f64>| SampleRecord {
        features: vec![1000.0],
        variant: variant.into(),
        count: times_ns.len() as u64,
        times_ns,
        cold_ns: Vec::new(),
        supersedes: false,
    };
    // cpu: 10 µs, slowed twice by preemption (median 90 µs); gpu: a steady 50 µs
    f.samples.push(pair("cpu", vec![10_000.0, 90_000.0, 95_000.0]));
    f.samples.push(pair("gpu", vec![50_000.0, 50_000.0, 50_000.0]));
    let c = evaluate::costs_from_file(&f).unwrap();
    let mut cpu = vec![10_000.0, 90_000.0, 95_000.0];
    assert_eq!(c.times(0)[0], ompadapt_rt::explore::robust_time(&mut cpu));
    assert_eq!(c.y, vec![0], "cpu is what the run labelled best");
}
