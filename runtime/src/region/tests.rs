use super::*;
use crate::config::DriftConfig;
use crate::spec;

fn spec_of(variants: &str) -> RegionDescriptor {
    spec::parse(&format!("ompadapt1;model=t;loc=t.c:1;features=n;variants={variants}")).unwrap().descriptor
}

fn region(variants: &str, min_train: usize, warmup: bool) -> Region {
    RegionBuilder::new().min_train(min_train).warmup(warmup).sample(1).build(spec_of(variants))
}

fn built(variants: &str, b: RegionBuilder) -> Region {
    b.build(spec_of(variants))
}

/// Clock ticks for `ns` nanoseconds.
pub(crate) fn ticks(ns: u64) -> u64 {
    (ns as f64 / clock::ns_per_tick()).round() as u64
}

/// Runs one execution with a synthetic time of `ns` (by backdating t0; a trained execution
/// that is not timed keeps its start time 0).
pub(crate) fn exec(r: &Region, f: &[f64], mut ns: impl FnMut(usize) -> u64) -> usize {
    let mut c = Ctx::zeroed();
    r.begin(f, &mut c);
    let v = c.variant as usize;
    if c.t0.is_timed() {
        c.t0 = c.t0.with_time(clock::now().saturating_sub(ticks(ns(v))).max(1));
    }
    r.end(&c);
    v
}

/// µs costs per variant, clearly apart.
fn costs(us: &'static [u64]) -> impl Fn(usize) -> u64 {
    move |v| us[v] * 1000
}

#[test]
fn one_pass_then_the_label_runs() {
    let r = region("a,b,c", 1000, false);
    let mut seen = Vec::new();
    for i in 0..7 {
        seen.push(exec(&r, &[1.0], costs(&[300, 100, 200])));
        if i % 2 == 0 {
            // interleaving another vector does not disturb the first one's order
            exec(&r, &[2.0], costs(&[300, 100, 200]));
        }
    }
    assert_eq!(seen, vec![0, 1, 2, 1, 1, 1, 1], "each variant once, then the fastest");
    assert_eq!(r.label(&[1.0]), Some(1));
    let mut c = Ctx::zeroed();
    r.begin(&[3.0], &mut c);
    assert_eq!((c.variant, c.value), (0, 0.0));
    r.end(&c);
    r.begin(&[3.0], &mut c);
    assert_eq!((c.variant, c.value), (1, 1.0));
    assert_eq!(c.nfeatures, 1);
    assert_eq!(c.features[0], 3.0);
}

#[test]
fn values_and_feature_clamp() {
    let s = spec::parse("ompadapt1;model=t;variants=t1,t8;values=1,8;numeric=1").unwrap().descriptor;
    let r = RegionBuilder::new().warmup(false).build(s);
    let many: Vec<f64> = (0..20).map(|i| i as f64).collect();
    let mut c = Ctx::zeroed();
    c.features = [7.0; MAX_FEATURES];
    r.begin(&many[..3], &mut c);
    assert_eq!(c.value, 1.0);
    assert_eq!(&c.features[..3], &[0.0, 1.0, 2.0]);
    assert_eq!(c.feature_slice(), &[0.0, 1.0, 2.0]);
    r.end(&c);
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
    let cost = costs(&[100, 300]);
    exec(&r, &[1.0], &cost); // (1,a)
    exec(&r, &[1.0], &cost); // (1,b)  -> vector 1 decided, but only 2 samples
    assert_eq!(r.training_samples(), 2);
    exec(&r, &[1.0], &cost); // (1,a) again: not a new sample
    assert_eq!(r.training_samples(), 2);
    assert!(!r.is_trained());
    exec(&r, &[2.0], &cost); // (2,a)
    assert_eq!(r.training_samples(), 3);
    assert!(!r.is_trained());
    exec(&r, &[2.0], &cost); // (2,b): 4th
    assert!(r.is_trained());
    let t = r.trained().unwrap();
    assert_eq!(t.training_samples, 4);
    assert_eq!(t.executions, 5);
    assert_eq!(t.labels.len(), 2);
    assert_eq!(t.origin, Origin::Online);
}

#[test]
fn default_min_train_is_variant_count_and_needs_a_decided_vector() {
    let r = RegionBuilder::new().warmup(false).build(spec_of("a,b,c"));
    assert_eq!(r.min_train(), 3);
    // three different vectors, one variant each: 3 samples but no complete vector
    for f in [1.0, 2.0, 3.0] {
        exec(&r, &[f], costs(&[100, 300, 900]));
    }
    assert_eq!(r.training_samples(), 3);
    assert!(!r.is_trained());
    exec(&r, &[1.0], costs(&[100, 300, 900]));
    assert!(!r.is_trained());
    exec(&r, &[1.0], costs(&[100, 300, 900]));
    assert!(r.is_trained());
}

/// With OMPADAPT_REPEATS=3 a pair counts after 3 measurements, and one preempted
/// measurement of the fastest variant does not flip its label.
#[test]
fn fixed_repeats_make_labels_robust() {
    let r = built("a,b", RegionBuilder::new().min_train(4).warmup(false).repeats(3));
    let mut k = 0;
    for _ in 0..5 {
        for f in [1.0, 2.0] {
            exec(&r, &[f], |v| {
                k += 1;
                if k == 1 {
                    5_000_000
                } else {
                    [10_000, 12_000][v]
                }
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

/// Adaptive repetition: a preempted measurement of the fastest variant is caught, without a
/// fixed number of repeats: the two fastest are close (in doubt), so both are measured again.
#[test]
fn adaptive_repetition_measures_again_where_in_doubt() {
    let r = region("a,b,c", 1000, false);
    let mut calls = 0;
    // a is the fastest (100 µs) but its first measurement is preempted (130 µs); b is 120 µs
    let mut cost = |v: usize| {
        calls += 1;
        [if calls == 1 { 130_000 } else { 100_000 }, 120_000, 900_000][v]
    };
    let mut seen = Vec::new();
    while r.label(&[1.0]).is_none() {
        seen.push(exec(&r, &[1.0], &mut cost));
        assert!(seen.len() < 20);
    }
    assert_eq!(r.label(&[1.0]), Some(0), "{seen:?}");
    assert_eq!(&seen[..3], &[0, 1, 2]);
    assert!(seen.len() <= 3 + 2 * crate::explore::CAP, "{seen:?}");
    assert!(!seen[3..].contains(&2), "the clearly slowest variant is measured once: {seen:?}");
}

/// The first execution of each variant in a process is recorded as a cold measurement; an
/// iterative program then measures each pair warm once, and labels use the warm data.
#[test]
fn cold_first_executions_are_recorded_and_warm_ones_preferred() {
    let r = region("a,b", 1000, true);
    // cold: a 5 ms (device initialisation), b 200 µs; warm: a 100 µs, b 200 µs
    let mut cold = [true, true];
    let mut cost = |v: usize| {
        let c = std::mem::replace(&mut cold[v], false);
        if c && v == 0 {
            5_000_000
        } else {
            [100_000, 200_000][v]
        }
    };
    let seen: Vec<usize> = (0..6).map(|_| exec(&r, &[1.0], &mut cost)).collect();
    assert_eq!(seen, vec![0, 1, 0, 1, 0, 0], "a cold pass, a warm pass, then the label");
    assert_eq!(r.label(&[1.0]), Some(0), "warm data decide: a");
    let s = r.snapshot();
    assert_eq!((s.unrecorded, s.recorded_explore), (0, 6), "cold executions are recorded");
    let st = r.with_measurements(|st| st.unsaved());
    let a = st.iter().find(|u| u.variant == 0).unwrap();
    assert_eq!(a.cold.len(), 1);
    assert!((5_000_000.0..5_100_000.0).contains(&a.cold[0]), "{:?}", a.cold);
}

/// A program that runs its region once per process only ever measures cold: its labels come
/// from cold measurements (what its executions cost), and no warm measurement is waited for.
#[test]
fn cold_only_data_decide_in_a_new_process() {
    let r = region("a,b", 2, true);
    let k = FeatureKey::new(&[1.0]);
    r.absorb(&k, 0, 1, &[], &[900_000.0], false);
    r.absorb(&k, 1, 1, &[], &[400_000.0], false);
    r.settle();
    assert_eq!(r.label(&[1.0]), Some(1));
    assert!(r.train_if_ready());
    assert_eq!(exec(&r, &[1.0], |_| 1), 1);
}

/// Labels use a robust estimate, not the mean: one huge outlier does not flip the label.
#[test]
fn labels_are_robust_to_an_outlier() {
    let r = built("a,b", RegionBuilder::new().min_train(100).warmup(false).repeats(5));
    let mut i = 0u64;
    // a: 10,10,1_000_000,10,10 µs (median 10 µs, mean ~200 ms); b: 50 each
    for _ in 0..10 {
        exec(&r, &[1.0], |v| {
            if v == 0 {
                i += 1;
                if i == 3 {
                    1_000_000_000
                } else {
                    10_000
                }
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
    assert_eq!(r.trained().unwrap().labels, vec![(FeatureKey::new(&[1.0]), 1)]);
    assert_eq!(r.decide(&[1.0]), Some(1));
    assert_eq!(r.decide(&[99.0]), Some(1));
}

#[test]
fn trained_path_uses_model_and_keeps_recording() {
    let r = built("cpu,gpu", RegionBuilder::new().min_train(4).warmup(false).sample(1).learn(0.0));
    let cost = |f: f64| move |v: usize| if (v == 0) == (f < 500.0) { 10_000 } else { 1_000_000 };
    // 900 disagrees with its neighbour 100: its cpu is measured twice before gpu wins
    for (f, n) in [(100.0, 2), (900.0, 3)] {
        for _ in 0..n {
            exec(&r, &[f], cost(f));
        }
    }
    assert!(r.is_trained());
    assert_eq!(r.trained().unwrap().labels.len(), 2);
    for _ in 0..5 {
        assert_eq!(exec(&r, &[50.0], cost(50.0)), 0);
        assert_eq!(exec(&r, &[950.0], cost(950.0)), 1);
    }
    let s = r.snapshot();
    assert_eq!(s.recorded_model, 10);
    assert_eq!(s.entries.len(), 4);
    assert_eq!(s.recorded_explore, 5);
    let e = s.entries.iter().find(|e| e.key == FeatureKey::new(&[950.0])).unwrap();
    assert_eq!((e.per_variant[1].model_count, e.per_variant[1].model_timed), (5, 5));
    let mean = e.per_variant[1].mean().unwrap();
    assert!((9_000.0..200_000.0).contains(&mean), "{mean}");
}

/// After training one execution in `sample` is timed (per thread); every one is counted.
#[test]
fn trained_executions_are_timed_by_sample() {
    let r = built("a,b", RegionBuilder::new().min_train(2).warmup(false).sample(16));
    exec(&r, &[1.0], costs(&[100, 300]));
    exec(&r, &[1.0], costs(&[100, 300]));
    assert!(r.is_trained());
    for _ in 0..160 {
        exec(&r, &[1.0], costs(&[100, 300]));
    }
    let s = r.snapshot();
    let p = &s.entries[0].per_variant[0];
    assert_eq!((p.model_count, p.model_timed), (160, 10));
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
    assert_eq!(s.unrecorded, 0, "cold executions are recorded too");
    let recorded: u64 = s.entries.iter().flat_map(|e| &e.per_variant).map(|v| v.total()).sum();
    assert_eq!(recorded, (THREADS * PER) as u64);
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
fn explore_only_cycles_and_fixed_variant() {
    let r = built("a,b", RegionBuilder::new().min_train(2).warmup(false).explore_only(true));
    let seen: Vec<usize> = (0..8).map(|_| exec(&r, &[1.0], costs(&[100, 300]))).collect();
    assert_eq!(seen, vec![0, 1, 0, 1, 0, 1, 0, 1], "data collection keeps cycling");
    assert!(!r.is_trained());
    r.set_fixed_variant(Some(1));
    assert!((0..4).all(|_| exec(&r, &[1.0], |_| 1000) == 1));
    assert_eq!(r.trained().unwrap().origin, Origin::Fixed);
    r.set_fixed_variant(None);
    assert!(!r.is_trained());
}

fn drifting(window: u32) -> RegionBuilder {
    RegionBuilder::new().min_train(4).warmup(false).sample(1).drift(DriftConfig { window, ..DriftConfig::default() })
}

/// The costs of a measured pair change after training: its vector is measured again, the new
/// measurements supersede the old ones for it, and the model retrains with the new label; the
/// other vector keeps its data and label.
#[test]
fn drift_remeasures_the_vector_and_retrains() {
    let r = built("a,b", drifting(16));
    let before = |f: f64| move |v: usize| if (v == 0) == (f < 500.0) { 20_000 } else { 200_000 };
    let after = |f: f64| {
        move |v: usize| {
            if f > 500.0 {
                before(f)(v)
            } else if v == 0 {
                400_000
            } else {
                50_000
            }
        }
    };
    let mut n = 0;
    while r.trained().is_none_or(|t| t.labels.len() < 2) {
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
    // vector 100's costs flip
    for _ in 0..100 {
        for f in [100.0, 900.0] {
            exec(&r, &[f], after(f));
        }
    }
    let d = r.drift_events();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].key, d[0].variant, d[0].label_before), (FeatureKey::new(&[100.0]), 0, Some(0)));
    assert!(r.is_trained());
    assert_eq!((r.decide(&[100.0]), r.decide(&[900.0])), (Some(1), Some(1)), "re-adapted");
    assert_eq!(r.label(&[900.0]), Some(1), "the other vector kept its data");
    assert_eq!(r.trained().unwrap().origin, Origin::Retrained);
    let unsaved = r.with_measurements(|st| st.unsaved());
    assert!(unsaved.iter().any(|u| u.key == FeatureKey::new(&[100.0]) && u.fresh), "the new measurements supersede when saved");
}

/// A slowdown that the re-measurement does not confirm (it lasts two windows, then is gone)
/// keeps the label and the model.
#[test]
fn a_drift_the_new_data_do_not_confirm_keeps_the_model() {
    let r = built("a,b", drifting(8).min_train(2));
    let cost = |v: usize| [20_000, 200_000][v];
    while !r.is_trained() {
        exec(&r, &[1.0], cost);
    }
    let model = r.trained().unwrap();
    // 16 slow executions of a (a noisy neighbour: two windows), then normal again
    for _ in 0..16 {
        exec(&r, &[1.0], |v| cost(v) * 5);
    }
    for _ in 0..20 {
        exec(&r, &[1.0], cost);
    }
    assert_eq!(r.drift_events().len(), 1);
    assert_eq!(r.label(&[1.0]), Some(0), "re-measured: a is still the fastest");
    assert_eq!(r.decide(&[1.0]), Some(0));
    assert_eq!(r.trained().unwrap().labels, model.labels, "same training set");
}

/// A slowdown confined to one window (a process's first milliseconds, where libomp's forks
/// can cost many times their steady cost: benchmarks/c/fork_startup.c) is a transient, not a drift:
/// nothing is re-measured, and a slowdown that lasts a second window is.
#[test]
fn a_slowdown_within_one_window_is_not_a_drift() {
    let r = built("a,b", drifting(8).min_train(2));
    let cost = |v: usize| [20_000, 30_000][v];
    while !r.is_trained() {
        exec(&r, &[1.0], cost);
    }
    let e0 = r.epoch();
    // the first window: every execution of a 10x its measured time, then normal
    for k in 0..40 {
        exec(&r, &[1.0], |v| if k < 8 { cost(v) * 10 } else { cost(v) });
    }
    assert!(r.drift_events().is_empty(), "{:?}", r.drift_events());
    assert_eq!((r.epoch(), r.decide(&[1.0])), (e0, Some(0)), "nothing re-measured");
    // slow windows apart (one slow, one normal, one slow) are not two in a row either
    for k in 0..24 {
        exec(&r, &[1.0], |v| if k < 8 || k >= 16 { cost(v) * 10 } else { cost(v) });
    }
    assert!(r.drift_events().is_empty(), "{:?}", r.drift_events());
    // two slow windows in a row: a drift
    for _ in 0..16 {
        exec(&r, &[1.0], |v| cost(v) * 10);
    }
    assert_eq!(r.drift_events().len(), 1);
}

/// Novelty is not drift: a model trained on four sizes meets a fifth size that is much slower
/// than any; it is explored (it recurs), labelled and learned, nothing is forgotten, and the
/// trained sizes keep their labels.
#[test]
fn a_new_size_is_explored_not_taken_for_drift() {
    let r =
        built("a,b", RegionBuilder::new().min_train(8).warmup(false).sample(1).drift(DriftConfig { window: 4, ..DriftConfig::default() }));
    // a is faster below 300, b above; times grow with n
    let cost = |n: f64| move |v: usize| ((if (v == 0) == (n < 300.0) { 1.0 } else { 3.0 }) * n * 1000.0) as u64;
    while r.trained().is_none_or(|t| t.labels.len() < 4) {
        for n in [100.0, 200.0, 400.0, 500.0] {
            exec(&r, &[n], cost(n));
        }
    }
    assert_eq!(r.decide(&[100.0]), Some(0));
    // a new size, 40× slower than the trained ones
    for _ in 0..40 {
        exec(&r, &[20_000.0], cost(20_000.0));
    }
    assert!(r.drift_events().is_empty(), "{:?}", r.drift_events());
    assert_eq!(r.label(&[20_000.0]), Some(1), "explored and labelled");
    assert_eq!(r.decide(&[20_000.0]), Some(1));
    for n in [100.0, 200.0, 400.0, 500.0] {
        assert_eq!(r.label(&[n]), Some((n >= 300.0) as usize), "n={n} kept its label");
    }
    assert_eq!(r.trained().unwrap().labels.len(), 5, "retrained with the new size");
}

/// Keep learning: a size sweep inside one run (each size executed a few times) ends with the
/// right decision at every size, though the model was trained on two sizes only.
#[test]
fn a_size_sweep_ends_with_the_right_decision_everywhere() {
    let r = built("serial,cpu,gpu", RegionBuilder::new().min_train(6).warmup(false).sample(1));
    // serial wins below 1000, cpu up to 10^5, gpu above (costs in µs)
    let cost = |n: f64| {
        move |v: usize| {
            let us = [n / 10.0, 30.0 + n / 40.0, 150.0 + n / 400.0][v];
            (us * 1000.0) as u64
        }
    };
    let best = |n: f64| (0..3).min_by_key(|&v| cost(n)(v)).unwrap();
    for n in [100.0, 1e6] {
        for _ in 0..4 {
            exec(&r, &[n], cost(n));
        }
    }
    assert_eq!(r.trained().unwrap().labels.len(), 2);
    let sweep: Vec<f64> = (0..24).map(|i| 10f64.powf(1.0 + i as f64 / 4.0)).map(f64::round).collect();
    for &n in &sweep {
        for _ in 0..8 {
            exec(&r, &[n], cost(n));
        }
    }
    for &n in &sweep {
        let got = r.decide(&[n]).unwrap();
        let (t_got, t_best) = (cost(n)(got), cost(n)(best(n)));
        assert!(t_got as f64 <= t_best as f64 * 1.10, "n={n}: chose {got} ({t_got}), best {} ({t_best})", best(n));
    }
    assert!(r.drift_events().is_empty());
}

/// After training, exploring new vectors is bounded by the learning budget: a run whose every
/// execution is a new (recurring) vector explores only a small share of its executions.
#[test]
fn learning_after_training_stays_within_its_budget() {
    let r = built("a,b,c,d", RegionBuilder::new().min_train(4).warmup(false).learn(0.1));
    exec(&r, &[0.0], costs(&[100, 200, 300, 400]));
    for _ in 0..3 {
        exec(&r, &[0.0], costs(&[100, 200, 300, 400]));
    }
    assert!(r.is_trained());
    let before = r.executions();
    for i in 0..3000 {
        let n = (1 + i % 1000) as f64;
        exec(&r, &[n], costs(&[100, 200, 300, 400]));
    }
    let ran = r.executions() - before;
    let learning = r.learning_executions();
    // the budget limits starting to explore a vector; one started goes on while it recurs
    assert!(learning as f64 <= 0.15 * (before + ran) as f64 + 64.0, "{learning} of {ran}");
    assert!(learning > 0, "some new vectors were explored");
}

#[test]
fn drift_remeasurements_are_bounded() {
    let r = built(
        "a,b",
        RegionBuilder::new().min_train(2).warmup(false).sample(1).drift(DriftConfig { window: 4, max_resets: 2, ..DriftConfig::default() }),
    );
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
    let r = built("a,b", RegionBuilder::new().min_train(2).warmup(false).frozen(true));
    r.set_fixed_variant(Some(0)); // what the registry does without a stored model
    assert!((0..6).all(|_| exec(&r, &[1.0], |_| 10) == 0));
    assert_eq!(r.snapshot().recorded_explore, 0);
    assert!(r.train_now().is_err());
}

#[test]
fn coarse_mode_pins_one_variant_per_run() {
    let b = || RegionBuilder::new().min_train(3).warmup(false).coarse(true);
    let r = built("a,b,c", b());
    assert!((0..5).all(|_| exec(&r, &[1.0], |_| 10) == 0), "first run: variant a throughout");
    // a later run after one recorded run of a (absorbed as one measurement)
    let r2 = built("a,b,c", b());
    r2.absorb(&FeatureKey::new(&[1.0]), 0, 1, &[5000.0], &[], false);
    r2.settle();
    assert!((0..5).all(|_| exec(&r2, &[1.0], |_| 10) == 1), "second run: the next variant");
    let r3 = built("a,b,c", b());
    for (v, t) in [(0, 5000.0), (1, 3000.0), (2, 9000.0)] {
        r3.absorb(&FeatureKey::new(&[1.0]), v, 1, &[t], &[], false);
    }
    r3.settle();
    assert!(r3.train_if_ready());
    assert!((0..5).all(|_| exec(&r3, &[1.0], |_| 10) == 1), "trained across runs: the fastest total");
}

#[test]
fn exploration_strategies_reach_the_same_decisions() {
    // 4 variants, 6 vectors, costs with a clear winner per vector
    let cost = |f: f64, v: usize| -> u64 { 10_000 + 5_000 * ((v as u64 + f as u64) % 4) };
    let mut executions = Vec::new();
    let mut labels = Vec::new();
    for s in [Strategy::RoundRobin, Strategy::Random, Strategy::Elimination] {
        let r = built("a,b,c,d", RegionBuilder::new().min_train(1000).warmup(false).repeats(3).explore(s));
        let mut n = 0;
        while r.snapshot().decided < 6 {
            for f in 0..6 {
                if r.label(&[f as f64]).is_none() {
                    exec(&r, &[f as f64], |v| cost(f as f64, v));
                    n += 1;
                }
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

/// With fixed repeats a pair's measurements are buffered per thread (only the one that
/// delivers what the view wanted takes the lock): with one thread, training still starts at
/// exactly the execution that completes the `min_train`-th pair, and the label sees every
/// measurement.
#[test]
fn buffered_repeats_train_at_the_completing_execution() {
    let b = || RegionBuilder::new().min_train(6).warmup(false).repeats(4);
    // 3 vectors × 2 variants × 4 repeats; min_train 6: the 24th execution completes the 6th pair
    let r = built("a,b", b());
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
    assert_eq!(t.labels, (0..3).map(|f| (FeatureKey::new(&[f as f64]), f % 2)).collect::<Vec<_>>());
    // half-way measurements are visible to readers (they move buffers into the measurement table)
    let r = built("a,b", b());
    for _ in 0..3 {
        exec(&r, &[1.0], |_| 100);
    }
    let s = r.snapshot();
    assert_eq!(s.entries[0].per_variant.iter().map(|p| p.count).collect::<Vec<_>>(), vec![2, 1]);
    assert_eq!((s.training_samples, s.recorded_explore, r.training_samples()), (0, 3, 0));
}

/// Many threads exploring the same vectors with fixed repeats (views per thread, buffers
/// handed over in batches): nothing is lost, every pair completes, training happens.
#[test]
fn buffered_repeats_across_threads_lose_nothing() {
    let b = |m: usize| RegionBuilder::new().min_train(m).warmup(false).repeats(5);
    let r = built("a,b,c", b(30));
    let quiet = built("a,b,c", b(1_000_000));
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
        exec(&r, &[f], costs(&[100, 300]));
        exec(&r, &[f], costs(&[100, 300]));
    }
    assert!(!r.is_trained());
    r.set_min_train(7);
    exec(&r, &[4.0], costs(&[100, 300])); // 7th pair
    assert!(r.is_trained());
    assert_eq!(r.trained().unwrap().training_samples, 7);

    let r = region("a,b", 2, false);
    r.set_explore_only(true);
    for f in [1.0, 2.0] {
        exec(&r, &[f], costs(&[100, 300]));
        exec(&r, &[f], costs(&[100, 300]));
    }
    assert!(!r.is_trained());
    r.set_explore_only(false);
    assert!(!r.is_trained());
    exec(&r, &[3.0], costs(&[100, 300])); // a completion: ready, trains
    assert!(r.is_trained());
    assert_eq!(r.trained().unwrap().training_samples, 5);
}

/// Cold is a variant's first execution in the process, whatever chose it: a region that starts
/// decided (an installed model, a pin) flags its first execution of each variant and no other,
/// with `OMPADAPT_WARMUP` on or off; the first is not timed where warm-up is on, and a later
/// timed sample is warm.
#[test]
fn the_first_decided_execution_of_each_variant_is_cold() {
    for warmup in [true, false] {
        let r = RegionBuilder::new().warmup(warmup).sample(1).learn(0.0).build(spec_of("a,b"));
        let labels = vec![(FeatureKey::new(&[1.0]), 0), (FeatureKey::new(&[2.0]), 1)];
        assert!(r.install(labels, Origin::Loaded, Some(ModelChoice::Tree { max_depth: 2 }), StoredFacts::default()));
        let mut flags = Vec::new();
        for f in [1.0, 1.0, 2.0, 1.0, 2.0] {
            let mut c = Ctx::zeroed();
            r.begin(&[f], &mut c);
            assert!(c.t0.was_decided(), "decided from the first execution");
            flags.push((c.variant, c.t0.is_cold(), c.t0.is_timed()));
            r.end(&c);
        }
        let timed_first = !warmup;
        assert_eq!(
            flags,
            vec![(0, true, timed_first), (0, false, true), (1, true, timed_first), (0, false, true), (1, false, true)],
            "warmup {warmup}"
        );
    }
    let pinned = RegionBuilder::new().sample(1 << 20).build(spec_of("a,b"));
    pinned.set_fixed_variant(Some(1));
    let mut cold = Vec::new();
    for f in [1.0, 2.0, 1.0] {
        let mut c = Ctx::zeroed();
        pinned.begin(&[f], &mut c);
        cold.push((c.variant, c.t0.is_cold()));
        pinned.end(&c);
    }
    assert_eq!(cold, vec![(1, true), (1, false), (1, false)], "a pin's first execution is cold, between samples too");
}

/// A region run once per process, where a doubt wants both of its two closest variants: each
/// process measures the one measured least, so the two alternate across processes. (A
/// thread's turn starts at the same position in every process: plain turns measured the
/// lower-numbered variant in every run until it had its most measurements, each such run
/// paying for the slower variant when it was the slower one.)
#[test]
fn once_per_process_a_doubt_measures_both_in_turn() {
    // a and b within a noisy 4 % of each other (the noise, ±12 %, comes from the jitter), c far slower
    let jitter = [1.0, 1.12, 0.9, 1.08, 0.95, 1.1, 0.92, 1.05, 1.0, 0.97, 1.11, 0.89];
    let cost = |v: usize, i: usize| [500_000.0, 520_000.0, 5_000_000.0][v] * jitter[i % jitter.len()];
    let mut stored: Vec<(usize, f64)> = Vec::new();
    let mut ran = Vec::new();
    for i in 0..10 {
        let r = region("a,b,c", 100, false);
        let k = FeatureKey::new(&[1.0]);
        for v in 0..3 {
            let times: Vec<f64> = stored.iter().filter(|s| s.0 == v).map(|s| s.1).collect();
            if !times.is_empty() {
                r.absorb(&k, v, times.len() as u64, &[], &times, false);
            }
        }
        r.settle();
        if r.label(&[1.0]).is_some() {
            break;
        }
        let v = exec(&r, &[1.0], |v| cost(v, i) as u64);
        stored.push((v, cost(v, i)));
        ran.push(v);
    }
    let n = |v: usize| ran.iter().filter(|&&x| x == v).count();
    assert_eq!(&ran[..3], &[0, 1, 2], "the first pass, one variant per process: {ran:?}");
    assert!(n(0) >= 3 && n(1) >= 3, "the doubt measured both again: {ran:?}");
    for end in 3..=ran.len() {
        let (a, b) = (ran[3..end].iter().filter(|&&x| x == 0).count(), ran[3..end].iter().filter(|&&x| x == 1).count());
        assert!(a.abs_diff(b) <= 1, "a and b in turn after the first pass: {ran:?}");
    }
}

/// A label chosen in a transient (a: 20 µs against b's 30 µs in the first executions) that
/// earlier runs' trained executions contradict (a ran at 8 µs on average) is measured again
/// once a timed execution of this run shows the steady rate, and the steady state's fastest
/// variant (b at 4 µs) wins. Until then the label runs.
#[test]
fn a_label_its_trained_runs_contradict_is_rechecked_at_the_steady_rate() {
    let r = built("a,b", RegionBuilder::new().min_train(1).warmup(false).sample(1));
    let transient = |v: usize| [20_000, 30_000][v];
    let steady = |v: usize| [8_000, 4_000][v];
    while !r.is_trained() {
        exec(&r, &[1.0], transient);
    }
    let key = FeatureKey::new(&[1.0]);
    assert_eq!(r.label(&[1.0]), Some(0));
    assert!(!r.recheck_if_contradicted(&key, 1, 8_000.0, 20), "b is not the label");
    assert!(!r.recheck_if_contradicted(&key, 0, 8_000.0, 7), "too few timed executions");
    assert!(!r.recheck_if_contradicted(&key, 0, 15_000.0, 20), "within 1.5x of the measured time");
    assert!(r.recheck_if_contradicted(&key, 0, 8_000.0, 20));
    assert_eq!(r.pending_rechecks(), vec![(key, 0)]);
    // still in the transient (above the gate, √(20·8) ≈ 12.6 µs): the label runs, unchecked
    for _ in 0..5 {
        assert_eq!(exec(&r, &[1.0], transient), 0);
    }
    assert!(r.recheck_events().is_empty());
    // the steady rate: re-measured (the first steady execution unless preempted)
    let mut n = 0;
    while r.recheck_events().is_empty() {
        assert_eq!(exec(&r, &[1.0], steady), 0);
        n += 1;
        assert!(n < 20);
    }
    let e = r.recheck_events();
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!((e[0].key, e[0].variant, e[0].mean_ns), (key, 0, 8_000.0));
    assert!(e[0].measured_ns >= 20_000.0 && e[0].ran_ns <= (e[0].measured_ns * 8_000.0).sqrt() + 1.0, "{e:?}");
    assert!(r.pending_rechecks().is_empty());
    let mut n = 0;
    while r.label(&[1.0]).is_none() {
        exec(&r, &[1.0], steady);
        n += 1;
        assert!(n < 50);
    }
    assert_eq!(r.label(&[1.0]), Some(1), "measured at the steady rate: b");
    assert_eq!(exec(&r, &[1.0], steady), 1);
    let unsaved = r.with_measurements(|st| st.unsaved());
    assert!(unsaved.iter().any(|u| u.key == key && u.fresh), "the new measurements supersede when saved");
    assert_eq!(r.recheck_events().len(), 1, "once");
}

/// `OMPADAPT_RECHECK=0`, a frozen run and a region without drift checks schedule nothing.
#[test]
fn rechecks_can_be_turned_off() {
    for b in [
        RegionBuilder::new().drift(DriftConfig { recheck: false, ..DriftConfig::default() }),
        RegionBuilder::new().drift(DriftConfig { enabled: false, ..DriftConfig::default() }),
    ] {
        let r = built("a,b", b.min_train(1).warmup(false).sample(1));
        while !r.is_trained() {
            exec(&r, &[1.0], |v| [20_000, 30_000][v]);
        }
        assert!(!r.recheck_if_contradicted(&FeatureKey::new(&[1.0]), 0, 8_000.0, 20));
    }
}
