//! A variant found unavailable at run time (the `cpu` variant of a launch whose data a caller
//! mapped to the device): `variant_unavailable` switches the execution to the replacement, and
//! no exploration strategy, model, coarse pin or thread selects the variant again.

use std::os::raw::c_char;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ompadapt_rt::explore::Strategy;
use ompadapt_rt::region::{Region, RegionBuilder};
use ompadapt_rt::{ompadapt_begin, ompadapt_end, ompadapt_rt_api, ompadapt_variant_unavailable, spec, Ctx};

fn spin(ns: u64) {
    let end = Instant::now() + Duration::from_nanos(ns);
    while Instant::now() < end {
        std::hint::spin_loop();
    }
}

/// Synthetic costs: `cpu` is by far the cheapest (a model would pick it everywhere), then
/// `tl`, then `gpu`.
fn cost(v: i32) -> u64 {
    match v {
        0 => 5_000,
        1 => 400_000,
        _ => 40_000,
    }
}

/// Gives the execution on `c` a duration of 1000 × `cost(variant)` by moving its start back,
/// instead of spinning: milliseconds apart, so a preemption of the test thread between begin
/// and end (a busy machine's time slice) cannot reorder the variants. An untimed execution
/// (start 0) stays untimed.
fn charge(c: &mut Ctx) {
    let ticks = (cost(c.variant) as f64 * 1000.0 / ompadapt_rt::clock::ns_per_tick()).round() as u64;
    c.t0.backdate(ticks);
}

fn region(name: &str, strategy: Strategy, min_train: usize) -> &'static Region {
    let s = spec::parse(&format!("ompadapt1;model={name};features=n;variants=cpu,gpu,tl")).unwrap().descriptor;
    Box::leak(Box::new(RegionBuilder::new().explore(strategy).min_train(min_train).warmup(false).build(s)))
}

/// One execution as generated code runs it: begin, the guard (variant 0 is never safe here:
/// it reports itself unavailable and the execution runs variant 1), the variant's work, end.
/// Returns the variant `begin` chose.
fn exec(r: &Region, n: f64) -> i32 {
    let mut c = Ctx::zeroed();
    r.begin(&[n], &mut c);
    let chosen = c.variant;
    if c.variant == 0 {
        unsafe { ompadapt_variant_unavailable(&mut c, 1) };
        assert_eq!(c.variant, 1, "the execution continues as the replacement");
    }
    charge(&mut c);
    r.end(&c);
    chosen
}

/// Every strategy, exploring and trained: after the first execution that finds `cpu`
/// unavailable, it is never chosen again, the region still trains, and its model decides
/// among the others by their measured times (`tl`, not the named replacement `gpu`).
#[test]
fn never_selected_again_by_any_strategy_or_model() {
    for (i, strategy) in [Strategy::RoundRobin, Strategy::Random, Strategy::Elimination].into_iter().enumerate() {
        let r = region(&format!("unavail_{i}"), strategy, 3);
        let mut cpu_runs = 0;
        for k in 0..200 {
            let n = [10.0, 20.0, 30.0][k % 3];
            if exec(r, n) == 0 {
                cpu_runs += 1;
            }
        }
        assert_eq!(cpu_runs, 1, "{strategy:?}: cpu chosen again after it was found unavailable");
        let u = r.unavailable();
        assert_eq!(u.len(), 1);
        assert_eq!((u[0].variant, u[0].replacement), (0, Some(1)));
        let t = r.trained().unwrap_or_else(|| panic!("{strategy:?}: the region did not train"));
        for n in [10.0, 20.0, 30.0] {
            let mut c = Ctx::zeroed();
            r.begin(&[n], &mut c);
            assert_eq!(c.variant, 2, "{strategy:?}: n={n}: the next best by measured time\n{}", ompadapt_rt::report::render(r));
            r.end(&c);
        }
        assert!(t.labels.iter().all(|&(_, l)| l != 0), "{strategy:?}: a label names the unavailable variant");
    }
}

/// A model trained while `cpu` was available (it labels every vector `cpu`) stops choosing it
/// the moment it becomes unavailable: the decisions are looked up again and fall to the next
/// variant by measured time; the model retrains on labels without it.
#[test]
fn trained_model_that_chose_it_falls_back_to_the_next_by_time() {
    let r = region("unavail_trained", Strategy::RoundRobin, 3);
    // train with cpu available
    for k in 0..60 {
        let mut c = Ctx::zeroed();
        r.begin(&[(k % 2) as f64], &mut c);
        charge(&mut c);
        r.end(&c);
    }
    let before = r.trained().expect("trained");
    assert!(before.labels.iter().all(|&(_, l)| l == 0), "cpu is the cheapest: {:?}", before.labels);
    let mut c = Ctx::zeroed();
    r.begin(&[0.0], &mut c);
    assert_eq!(c.variant, 0);
    unsafe { ompadapt_variant_unavailable(&mut c, 1) };
    charge(&mut c);
    r.end(&c);
    for k in 0..100 {
        assert_ne!(exec(r, (k % 2) as f64), 0, "execution {k} after: cpu selected");
    }
    let after = r.trained().unwrap();
    assert!(after.labels.iter().all(|&(_, l)| l == 2), "retrained on tl: {:?}", after.labels);
    let json = ompadapt_rt::report::render_json("prog", &[r]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let u = &v["regions"][0]["unavailable"][0];
    assert_eq!((u["variant"].as_str(), u["replacement"].as_str()), (Some("cpu"), Some("gpu")), "{json}");
    let text = ompadapt_rt::report::render(r);
    assert!(text.contains("unavailable: cpu ("), "{text}");
}

/// Coarse mode pins one variant per vector and run: a pin on the unavailable variant is
/// dropped and the vector is pinned again among the others.
#[test]
fn coarse_pins_move_off_it() {
    let s = spec::parse("ompadapt1;model=unavail_coarse;features=n;variants=cpu,gpu,tl").unwrap().descriptor;
    let r: &'static Region = Box::leak(Box::new(RegionBuilder::new().coarse(true).warmup(false).build(s)));
    assert_eq!(exec(r, 1.0), 0, "pinned on the least measured: cpu");
    for _ in 0..20 {
        assert_ne!(exec(r, 1.0), 0);
    }
}

/// Regions run concurrently: many threads finding it unavailable at once mark it once, the
/// time of each execution goes to the variant that ran, and after the first marking no begin
/// selects it.
#[test]
fn concurrent_executions_mark_it_once() {
    let r = region("unavail_threads", Strategy::RoundRobin, 6);
    let after_marked = AtomicU64::new(0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for k in 0..300 {
                    let mut c = Ctx::zeroed();
                    let marked = !r.unavailable().is_empty();
                    r.begin(&[(k % 4) as f64], &mut c);
                    if c.variant == 0 {
                        if marked {
                            after_marked.fetch_add(1, Ordering::Relaxed);
                        }
                        unsafe { ompadapt_variant_unavailable(&mut c, 1) };
                    }
                    spin(cost(c.variant) / 10);
                    r.end(&c);
                }
            });
        }
    });
    assert_eq!(r.unavailable().len(), 1);
    assert_eq!(after_marked.load(Ordering::Relaxed), 0, "cpu selected after it was marked");
    let snap = r.snapshot();
    let cpu_runs: u64 = snap.entries.iter().map(|e| e.per_variant[0].count + e.per_variant[0].model_count).sum();
    assert!(cpu_runs == 0, "no time recorded under the unavailable variant: {cpu_runs}");
    assert_eq!(snap.executions(), 1200);
}

/// Through the C table (since API version 2): replacement -1 leaves the execution unrecorded and
/// `variant` -1; a NULL context or a context without a region is harmless.
#[test]
fn c_table_entry_and_unrecorded_replacement() {
    assert_eq!(ompadapt_rt_api.version, 6);
    std::env::set_var("OMPADAPT_PERSIST", "0");
    std::env::set_var("OMPADAPT_REPORT", "0");
    let slot = AtomicPtr::new(std::ptr::null_mut());
    let spec = b"ompadapt1;model=unavail_c;features=n;variants=cpu,gpu\0";
    let f = [1.0];
    let mut c = Ctx::zeroed();
    unsafe {
        ompadapt_begin(slot.as_ptr(), spec.as_ptr() as *const c_char, 2, -1, -1, f.as_ptr(), 1, &mut c);
        if c.variant == 0 {
            (ompadapt_rt_api.variant_unavailable)(&mut c, -1);
            assert_eq!(c.variant, -1);
        }
        ompadapt_end(&mut c);
        (ompadapt_rt_api.variant_unavailable)(std::ptr::null_mut(), 1);
        let mut empty = Ctx::zeroed();
        (ompadapt_rt_api.variant_unavailable)(&mut empty, 1);
        assert_eq!(empty.variant, 1);
    }
    let r = ompadapt_rt::registry::global().find("unavail_c").unwrap();
    let json = ompadapt_rt::report::render_json("prog", &[r]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["regions"][0]["unavailable"][0]["replacement"], serde_json::Value::Null, "{json}");
    assert_eq!(v["regions"][0]["unrecorded"], 1, "{json}");
    for _ in 0..10 {
        let mut c = Ctx::zeroed();
        unsafe { ompadapt_begin(slot.as_ptr(), spec.as_ptr() as *const c_char, 2, -1, -1, f.as_ptr(), 1, &mut c) };
        assert_eq!(c.variant, 1);
        unsafe { ompadapt_end(&mut c) };
    }
}
