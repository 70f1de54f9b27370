use super::*;
use crate::config::{Config, DriftConfig};
use crate::spec;

fn region(variants: &str, min_train: i64, warmup: bool) -> Region {
    let s = spec::parse(&format!("ompadapt1;model=t;loc=t.c:1;features=n;variants={variants}")).unwrap().spec;
    Region::new(s, min_train, -1, -1, warmup, None)
}

fn region_cfg(variants: &str, min_train: i64, c: &Config) -> Region {
    let s = spec::parse(&format!("ompadapt1;model=t;loc=t.c:1;features=n;variants={variants}")).unwrap().spec;
    Region::with_config(s, min_train, -1, -1, c, &RegionOptions::default())
}

/// Clock ticks for `ns` nanoseconds.
pub(crate) fn ticks(ns: u64) -> u64 {
    (ns as f64 / clock::ns_per_tick()).round() as u64
}

/// Runs one execution with a synthetic time of `ns` (by backdating t0).
pub(crate) fn exec(r: &Region, f: &[f64], mut ns: impl FnMut(usize) -> u64) -> usize {
    let mut c = Ctx::zeroed();
    r.begin(f, &mut c);
    let v = c.variant as usize;
    let flags = c.t0 & T0_FLAGS;
    c.t0 = clock::now().saturating_sub(ticks(ns(v))) | flags;
    r.end(&c);
    v
}

#[test]
fn round_robin_per_feature_vector() {
    let r = region("a,b,c", 1000, false);
    let mut seen = Vec::new();
    for i in 0..7 {
        seen.push(exec(&r, &[1.0], |_| 10));
        if i % 2 == 0 {
            // interleaving another vector does not disturb the first one's order
            exec(&r, &[2.0], |_| 10);
        }
    }
    assert_eq!(seen, vec![0, 1, 2, 0, 1, 2, 0]);
    let mut c = Ctx::zeroed();
    r.begin(&[3.0], &mut c);
    assert_eq!((c.variant, c.value), (0, 0.0));
    r.begin(&[3.0], &mut c);
    assert_eq!((c.variant, c.value), (1, 1.0));
    assert_eq!(c.nfeatures, 1);
    assert_eq!(c.features[0], 3.0);
}

#[test]
fn values_and_feature_clamp() {
    let s = spec::parse("ompadapt1;model=t;variants=t1,t8;values=1,8;numeric=1").unwrap().spec;
    let r = Region::new(s, -1, -1, -1, false, None);
    let many: Vec<f64> = (0..20).map(|i| i as f64).collect();
    let mut c = Ctx::zeroed();
    c.features = [7.0; MAX_FEATURES];
    r.begin(&many[..3], &mut c);
    assert_eq!(c.value, 1.0);
    assert_eq!(&c.features[..3], &[0.0, 1.0, 2.0]);
    assert_eq!(c.feature_slice(), &[0.0, 1.0, 2.0]);
    r.begin(&many[..3], &mut c);
    assert_eq!(c.value, 8.0, "second execution of that vector: second variant");
    r.begin(&many, &mut c);
    assert_eq!(c.value, 1.0, "a new (clamped) vector starts at the first variant");
    assert_eq!(c.nfeatures, MAX_FEATURES as i32);
    assert_eq!(c.features[15], 15.0);
}

/// Training samples are distinct measured (vector, variant) pairs; with 2 variants and
/// min_train 4, training happens exactly when the 4th distinct pair is measured.
#[test]
fn training_trigger_count() {
    let r = region("a,b", 4, false);
    let cost = |v: usize| 100 + v as u64;
    exec(&r, &[1.0], cost); // (1,a)
    exec(&r, &[1.0], cost); // (1,b)  -> vector 1 complete, but only 2 samples
    assert_eq!(r.training_samples(), 2);
    exec(&r, &[1.0], cost); // (1,a) again: not a new sample
    exec(&r, &[1.0], cost);
    assert_eq!(r.training_samples(), 2);
    assert!(!r.is_trained());
    exec(&r, &[2.0], cost); // (2,a)
    assert_eq!(r.training_samples(), 3);
    assert!(!r.is_trained());
    exec(&r, &[2.0], cost); // (2,b): 4th
    assert!(r.is_trained());
    let t = r.trained().unwrap();
    assert_eq!(t.training_samples, 4);
    assert_eq!(t.executions, 6);
    assert_eq!(t.labels.len(), 2);
    assert_eq!(t.origin, Origin::Online);
}

#[test]
fn default_min_train_is_variant_count_and_needs_a_decided_vector() {
    let r = region("a,b,c", -1, false);
    assert_eq!(r.min_train(), 3);
    // three different vectors, one variant each: 3 samples but no complete vector
    for f in [1.0, 2.0, 3.0] {
        exec(&r, &[f], |_| 5);
    }
    assert_eq!(r.training_samples(), 3);
    assert!(!r.is_trained());
    exec(&r, &[1.0], |_| 5);
    assert!(!r.is_trained());
    exec(&r, &[1.0], |_| 5);
    assert!(r.is_trained());
}

/// With OMPADAPT_REPEATS=3 a pair counts after 3 measurements, and one preempted
/// measurement of the fastest variant does not flip its label.
#[test]
fn repeats_make_labels_robust() {
    let c = Config { warmup: false, repeats: crate::config::PerRegion::all(3), ..Config::default() };
    let r = region_cfg("a,b", 4, &c);
    let mut k = 0;
    for _ in 0..5 {
        for f in [1.0, 2.0] {
            exec(&r, &[f], |v| {
                k += 1;
                if k == 1 { 5_000_000 } else { [10_000, 12_000][v] }
            });
        }
    }
    assert_eq!(r.training_samples(), 2, "3 measurements of a, 2 of b, on both vectors");
    assert!(!r.is_trained());
    exec(&r, &[2.0], |v| [10_000, 12_000][v]);
    assert_eq!(r.training_samples(), 3);
    assert!(!r.is_trained());
    exec(&r, &[1.0], |v| [10_000, 12_000][v]);
    assert!(r.is_trained());
    assert_eq!(r.decide(&[1.0]), Some(0), "median of 3 ignores the preempted measurement");
}

#[test]
fn warmup_skips_first_execution_of_each_variant() {
    let r = region("a,b", -1, true);
    exec(&r, &[1.0], |_| 10); // a, warm-up
    exec(&r, &[1.0], |_| 10); // b, warm-up
    assert_eq!(r.training_samples(), 0);
    exec(&r, &[1.0], |_| 10); // a
    assert_eq!(r.training_samples(), 1);
    assert!(!r.is_trained());
    exec(&r, &[1.0], |_| 10); // b
    assert!(r.is_trained());
    let s = r.snapshot();
    assert_eq!((s.unrecorded, s.recorded_explore, s.executions()), (2, 2, 4));
}

/// Labels use the median, not the mean: one huge outlier does not flip the label.
#[test]
fn labels_by_median() {
    let r = region("a,b", 100, false);
    let mut i = 0u64;
    // a: 10,10,1_000_000,10,10 (median 10 µs, mean ~200 ms); b: 50 each
    for _ in 0..10 {
        exec(&r, &[1.0], |v| {
            if v == 0 {
                i += 1;
                if i == 3 { 1_000_000_000 } else { 10_000 }
            } else {
                50_000
            }
        });
    }
    let s = r.snapshot();
    let e = &s.entries[0];
    assert!(e.per_variant[0].mean().unwrap() > e.per_variant[1].mean().unwrap());
    assert_eq!(e.decided, Some(0));
    let r = region("a,b", 2, false);
    exec(&r, &[1.0], |v| [500_000, 20_000][v]);
    exec(&r, &[1.0], |v| [500_000, 20_000][v]);
    assert_eq!(r.trained().unwrap().labels, vec![(FKey::new(&[1.0]), 1)]);
    assert_eq!(r.decide(&[1.0]), Some(1));
    assert_eq!(r.decide(&[99.0]), Some(1));
}

#[test]
fn trained_path_uses_model_and_keeps_recording() {
    let r = region("cpu,gpu", 4, false);
    let cost = |f: f64| move |v: usize| if (v == 0) == (f < 500.0) { 10_000 } else { 1_000_000 };
    for f in [100.0, 900.0] {
        exec(&r, &[f], cost(f));
        exec(&r, &[f], cost(f));
    }
    assert!(r.is_trained());
    for _ in 0..5 {
        assert_eq!(exec(&r, &[50.0], cost(50.0)), 0);
        assert_eq!(exec(&r, &[950.0], cost(950.0)), 1);
    }
    let s = r.snapshot();
    assert_eq!(s.recorded_model, 10);
    assert_eq!(s.entries.len(), 4);
    let e = s.entries.iter().find(|e| e.key == FKey::new(&[950.0])).unwrap();
    assert_eq!(e.per_variant[1].model_count, 5);
    let mean = e.per_variant[1].mean().unwrap();
    assert!((9_000.0..200_000.0).contains(&mean), "{mean}");
}

#[test]
fn broken_region_runs_variant_zero() {
    let r = Region::broken("x".into(), "bad".into());
    for _ in 0..3 {
        let mut c = Ctx::zeroed();
        r.begin(&[1.0], &mut c);
        assert_eq!(c.variant, 0);
        r.end(&c);
    }
    assert_eq!(r.training_samples(), 0);
    assert_eq!(r.snapshot().unrecorded, 3);
}

/// 16 threads run the same region concurrently, exploring and then trained, with nested
/// executions of a second region inside the first: every execution is accounted for.
#[test]
fn concurrent_executions_lose_nothing() {
    let r = region("a,b,c", 30, true);
    let inner = region("x,y", 4, false);
    const THREADS: usize = 16;
    const PER: usize = 2000;
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (r, inner) = (&r, &inner);
            s.spawn(move || {
                for i in 0..PER {
                    let f = [((t * PER + i) % 13) as f64, t as f64];
                    let mut c = Ctx::zeroed();
                    r.begin(&f, &mut c);
                    if i % 4 == 0 {
                        // nested: a region inside a region, own context
                        exec(inner, &[(i % 3) as f64], |_| 100);
                    }
                    assert_eq!(c.features[1], t as f64, "context is per execution");
                    r.end(&c);
                }
            });
        }
    });
    let s = r.snapshot();
    assert_eq!(s.executions(), (THREADS * PER) as u64);
    assert_eq!(s.unrecorded, 3, "one warm-up per variant");
    let recorded: u64 = s.entries.iter().flat_map(|e| &e.per_variant).map(|v| v.total()).sum();
    assert_eq!(recorded, (THREADS * PER) as u64 - 3);
    assert!(r.is_trained());
    assert!(s.recorded_model > 0 && s.threads > 1);
    assert_eq!(inner.executions(), (THREADS * PER / 4) as u64);
}

#[test]
fn explicit_training_before_min_train() {
    let r = region("a,b", 1000, false);
    assert!(r.train_now().is_err(), "nothing measured");
    exec(&r, &[1.0], |v| [10_000, 90_000][v]);
    assert!(r.train_now().is_err(), "vector 1 lacks variant b");
    exec(&r, &[1.0], |v| [10_000, 90_000][v]);
    assert_eq!(r.train_now(), Ok(1));
    assert_eq!(r.trained().unwrap().origin, Origin::Explicit);
    assert_eq!(r.decide(&[5.0]), Some(0));
}

#[test]
fn explore_only_never_trains_and_fixed_variant() {
    let c = Config { warmup: false, explore_only: true, ..Config::default() };
    let r = region_cfg("a,b", 2, &c);
    let seen: Vec<usize> = (0..8).map(|_| exec(&r, &[1.0], |_| 1000)).collect();
    assert_eq!(seen, vec![0, 1, 0, 1, 0, 1, 0, 1]);
    assert!(!r.is_trained());
    r.set_fixed_variant(Some(1));
    assert!((0..4).all(|_| exec(&r, &[1.0], |_| 1000) == 1));
    assert_eq!(r.trained().unwrap().origin, Origin::Fixed);
    r.set_fixed_variant(None);
    assert!(!r.is_trained());
}

/// The cost function changes after training: the model's choice becomes 10× slower than the
/// time model predicts, the region re-explores, and retrains on the new costs.
#[test]
fn drift_triggers_reexploration_and_retraining() {
    let c = Config { warmup: false, drift: DriftConfig { window: 16, ..DriftConfig::default() }, ..Config::default() };
    let r = region_cfg("a,b", 4, &c);
    let before = |f: f64| move |v: usize| if (v == 0) == (f < 500.0) { 20_000 } else { 200_000 };
    let after = |f: f64| move |v: usize| if (v == 0) == (f < 500.0) { 400_000 } else { 50_000 };
    let mut n = 0;
    while !r.is_trained() {
        for f in [100.0, 900.0] {
            exec(&r, &[f], before(f));
        }
        n += 1;
        assert!(n < 100);
    }
    assert_eq!((r.decide(&[100.0]), r.decide(&[900.0])), (Some(0), Some(1)));
    let e0 = r.epoch();
    for _ in 0..50 {
        for f in [100.0, 900.0] {
            exec(&r, &[f], before(f));
        }
    }
    assert_eq!(r.epoch(), e0, "stable costs: no drift");
    assert!(r.drift_events().is_empty());
    // the costs flip
    for _ in 0..200 {
        for f in [100.0, 900.0] {
            exec(&r, &[f], after(f));
        }
    }
    assert_eq!(r.drift_events().len(), 1, "one reset, then the new model fits");
    assert!(r.is_trained(), "retrained");
    assert_eq!((r.decide(&[100.0]), r.decide(&[900.0])), (Some(1), Some(0)), "re-adapted");
    assert!(r.epoch() > e0 + 1);
}

#[test]
fn drift_resets_are_bounded() {
    let c = Config {
        warmup: false,
        drift: DriftConfig { window: 4, max_resets: 2, ..DriftConfig::default() },
        ..Config::default()
    };
    let r = region_cfg("a,b", 2, &c);
    // times grow without bound: every window drifts
    let mut t = 10_000u64;
    for _ in 0..400 {
        t = t * 11 / 10 + 1000;
        let tt = t.min(1 << 40);
        exec(&r, &[1.0], |_| tt);
    }
    assert_eq!(r.drift_events().len(), 2);
    assert!(!r.monitoring(), "gave up checking");
}

#[test]
fn frozen_without_model_runs_first_variant_and_never_explores() {
    let c = Config { warmup: false, frozen: true, ..Config::default() };
    let r = region_cfg("a,b", 2, &c);
    r.set_fixed_variant(Some(0)); // what the registry does without a stored model
    assert!((0..6).all(|_| exec(&r, &[1.0], |_| 10) == 0));
    assert_eq!(r.snapshot().recorded_explore, 0);
    assert!(r.train_now().is_err());
}

#[test]
fn coarse_mode_pins_one_variant_per_run() {
    let c = Config { warmup: false, coarse: crate::config::PerRegion::all(true), ..Config::default() };
    let r = region_cfg("a,b,c", 3, &c);
    assert!((0..5).all(|_| exec(&r, &[1.0], |_| 10) == 0), "first run: variant a throughout");
    // a later run after one recorded run of a (absorbed as one measurement)
    let r2 = region_cfg("a,b,c", 3, &c);
    r2.absorb(&FKey::new(&[1.0]), 0, 1, &[5000.0]);
    assert!((0..5).all(|_| exec(&r2, &[1.0], |_| 10) == 1), "second run: the next variant");
    let r3 = region_cfg("a,b,c", 3, &c);
    for (v, t) in [(0, 5000.0), (1, 3000.0), (2, 9000.0)] {
        r3.absorb(&FKey::new(&[1.0]), v, 1, &[t]);
    }
    assert!(r3.train_if_ready());
    assert!((0..5).all(|_| exec(&r3, &[1.0], |_| 10) == 1), "trained across runs: the fastest total");
}

#[test]
fn exploration_strategies_reach_round_robins_decisions() {
    // 4 variants, 6 vectors, costs with a clear winner per vector
    let cost = |f: f64, v: usize| -> u64 { 10_000 + 5_000 * ((v as u64 + f as u64) % 4) };
    let mut executions = Vec::new();
    let mut labels = Vec::new();
    for s in [Strategy::RoundRobin, Strategy::Random, Strategy::Elimination] {
        let c = Config { warmup: false, repeats: crate::config::PerRegion::all(3), explore_only: true, ..Config::default() };
        let r = region_cfg("a,b,c,d", 24, &c);
        r.set_explore(s);
        let mut n = 0;
        while r.snapshot().decided < 6 {
            for f in 0..6 {
                exec(&r, &[f as f64], |v| cost(f as f64, v));
                n += 1;
            }
            assert!(n < 10_000);
        }
        executions.push(n);
        let snap = r.snapshot();
        labels.push(snap.entries.iter().map(|e| e.decided.unwrap()).collect::<Vec<_>>());
    }
    assert_eq!(labels[0], labels[1]);
    assert_eq!(labels[0], labels[2]);
    assert_eq!(labels[0], (0..6).map(|f| (4 - f % 4) % 4).collect::<Vec<_>>());
    assert_eq!(executions[0], 6 * 12);
    assert_eq!(executions[2], 6 * 8, "elimination: two rounds of four");
}

/// With `repeats` > 1 a pair's first `repeats - 1` measurements are buffered per thread
/// (only the completing one takes the lock): with one thread, training still starts at exactly
/// the execution that completes the `min_train`-th pair, and the label sees every measurement.
#[test]
fn buffered_repeats_train_at_the_completing_execution() {
    let c = Config { warmup: false, repeats: crate::config::PerRegion::all(4), ..Config::default() };
    // 3 vectors × 2 variants × 4 repeats; min_train 6: the 24th execution completes the 6th pair
    let r = region_cfg("a,b", 6, &c);
    let cost = |f: usize, v: usize| if (f + v).is_multiple_of(2) { 10_000 } else { 30_000 };
    let mut n = 0;
    for round in 0..4 {
        for v in 0..2 {
            for f in 0..3 {
                assert!(!r.is_trained(), "round {round}, variant {v}, vector {f}");
                let got = exec(&r, &[f as f64], |v| cost(f, v));
                assert_eq!(got, v, "round-robin per vector");
                n += 1;
            }
        }
        assert_eq!(r.is_trained(), round == 3);
    }
    assert_eq!(n, 24);
    let t = r.trained().unwrap();
    assert_eq!((t.training_samples, t.executions), (6, 24));
    assert_eq!(t.labels, (0..3).map(|f| (FKey::new(&[f as f64]), f % 2)).collect::<Vec<_>>());
    // half-way measurements are visible to readers (they move buffers into the store)
    let r = region_cfg("a,b", 6, &c);
    for _ in 0..3 {
        exec(&r, &[1.0], |_| 100);
    }
    let s = r.snapshot();
    assert_eq!(s.entries[0].per_variant.iter().map(|p| p.count).collect::<Vec<_>>(), vec![2, 1]);
    assert_eq!((s.training_samples, s.recorded_explore, r.training_samples()), (0, 3, 0));
}

/// Many threads exploring the same vectors with `repeats` > 1 (budgets per thread, buffers
/// handed over in batches): nothing is lost, every pair completes, training happens.
#[test]
fn buffered_repeats_across_threads_lose_nothing() {
    let c = Config { warmup: false, repeats: crate::config::PerRegion::all(5), ..Config::default() };
    let r = region_cfg("a,b,c", 30, &c);
    let quiet = region_cfg("a,b,c", 1_000_000, &c);
    const THREADS: usize = 16;
    const PER: usize = 3000;
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (r, quiet) = (&r, &quiet);
            s.spawn(move || {
                for i in 0..PER {
                    let f = [((t + i) % 10) as f64];
                    exec(r, &f, |v| 1_000 * (v as u64 + 1));
                    exec(quiet, &f, |v| 1_000 * (v as u64 + 1));
                }
            });
        }
    });
    for (r, trained) in [(&r, true), (&quiet, false)] {
        let s = r.snapshot();
        assert_eq!(s.executions(), (THREADS * PER) as u64);
        let recorded: u64 = s.entries.iter().flat_map(|e| &e.per_variant).map(|v| v.total()).sum();
        assert_eq!(recorded, (THREADS * PER) as u64);
        assert_eq!(r.is_trained(), trained);
        if !trained {
            assert_eq!((s.training_samples, s.decided), (30, 10), "every pair measured ≥ 5 times");
            assert!(s.entries.iter().all(|e| e.decided == Some(0)));
        }
    }
}

/// Pair completions are buffered and counted on the region's `slack`: whatever changes what
/// training needs (here `set_min_train` and `set_explore_only`, under the lock) reaches it,
/// so the next completion trains.
#[test]
fn completions_see_setting_changes() {
    let r = region("a,b", 1000, false);
    for f in [1.0, 2.0, 3.0] {
        exec(&r, &[f], |v| 100 + v as u64);
        exec(&r, &[f], |v| 100 + v as u64);
    }
    assert!(!r.is_trained());
    r.set_min_train(7);
    exec(&r, &[4.0], |_| 100); // 7th pair
    assert!(r.is_trained());
    assert_eq!(r.trained().unwrap().training_samples, 7);

    let r = region("a,b", 2, false);
    r.set_explore_only(true);
    for f in [1.0, 2.0] {
        exec(&r, &[f], |v| 100 + v as u64);
        exec(&r, &[f], |v| 100 + v as u64);
    }
    assert!(!r.is_trained());
    r.set_explore_only(false);
    assert!(!r.is_trained());
    exec(&r, &[3.0], |_| 100); // a completion: ready, trains
    assert!(r.is_trained());
    assert_eq!(r.trained().unwrap().training_samples, 5);
}
