//! The C ABI called from Rust, as generated code would call it: one slot per call site, one
//! context per execution on the caller's stack.

use std::os::raw::{c_char, c_void};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Once;

use ompadapt_rt::{ompadapt_begin, ompadapt_end, ompadapt_rt_api, registry, Ctx};
use ompadapt_rt::ffi::ompadapt_rt_api_v5;

/// The configuration is read once per process: fix it before the first region is created.
fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::env::set_var("OMPADAPT_PERSIST", "0");
        std::env::set_var("OMPADAPT_REPORT", "0");
        std::env::remove_var("OMPADAPT_MODEL");
        std::env::remove_var("OMPADAPT_WARMUP");
    });
}

fn cspec(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.push(0);
    v
}

/// One execution through the C ABI; `work(variant)` is the region body and returns a synthetic
/// duration in ns, given to the execution by moving its start back (an untimed execution,
/// start 0, stays untimed): a clock the test controls, which a busy machine's preemptions
/// between begin and end (a time slice: milliseconds) cannot outweigh when durations are
/// milliseconds apart.
fn exec(slot: &AtomicPtr<c_void>, spec: &[u8], min_train: i64, f: &[f64], work: impl FnOnce(i32) -> u64) -> Ctx {
    let mut c = Ctx::zeroed();
    unsafe {
        ompadapt_begin(slot.as_ptr(), spec.as_ptr() as *const c_char, min_train, -1, -1, f.as_ptr(), f.len() as i32, &mut c);
    }
    let ns = work(c.variant);
    c.t0.backdate((ns as f64 / ompadapt_rt::clock::ns_per_tick()).round() as u64);
    unsafe { ompadapt_end(&mut c) };
    c
}

/// Controlled cost: variant 0 costs `f`, variant 1 costs `1000 - f` (× 25 µs, synthetic). After
/// training on values where one variant is 9 to 19 times cheaper (1.25 ms against 23.75 ms at
/// least: a preempted measurement cannot flip those labels), the model must pick the cheaper
/// variant for every feature value, including values it never saw.
#[test]
fn controlled_cost_picks_cheaper_variant() {
    init();
    let seen = [50.0, 100.0, 900.0, 950.0];
    let cost = |f: f64, v: i32| -> u64 { 25_000 * if v == 0 { f as u64 } else { 1000 - f as u64 } };
    let cheaper = |f: f64| if f < 500.0 { 0 } else { 1 };
    // The durations are synthetic (`exec`), so one region decides: no retries.
    let mut failures = Vec::new();
    for attempt in 0..1 {
        let name = format!("controlled_{attempt}");
        let spec = cspec(&format!("ompadapt1;model={name};loc=ffi.rs:1;features=f;variants=cpu,gpu;values=0,1;numeric=0;model_type=dtree"));
        let slot = AtomicPtr::new(null_mut());
        let mut execs = 0;
        loop {
            for &f in &seen {
                exec(&slot, &spec, 8, &[f], |v| cost(f, v));
                execs += 1;
            }
            if registry::global().find(&name).is_some_and(|r| r.trained().is_some_and(|t| t.labels.len() == 4)) || execs > 400 {
                break;
            }
        }
        let region = registry::global().find(&name).expect("region exists");
        assert!(region.is_trained(), "not trained after {execs} executions");
        // a cold pass (each variant's first execution in the process) and a warm one on the
        // first vector, one pass on the others plus what adaptive repetition asks: few
        assert!(execs <= 32, "trained on the 4 vectors after {execs} executions");
        let mut wrong = Vec::new();
        for f in [0.0, 50.0, 100.0, 200.0, 450.0, 550.0, 800.0, 900.0, 950.0, 1000.0] {
            let c = exec(&slot, &spec, 8, &[f], |v| cost(f, v));
            if c.variant != cheaper(f) || c.value != cheaper(f) as f64 {
                wrong.push((f, c.variant));
            }
        }
        if wrong.is_empty() {
            return;
        }
        failures.push(format!("attempt {attempt}: wrong decisions {wrong:?}\n{}", ompadapt_rt::report::render(region)));
    }
    panic!("{}", failures.join("\n"));
}

/// 8 threads share one call site (one slot) and one region: no execution is lost.
#[test]
fn threads_share_a_call_site() {
    init();
    static SLOT: AtomicPtr<c_void> = AtomicPtr::new(null_mut());
    let spec = cspec("ompadapt1;model=threads;loc=ffi.rs:2;features=n,t;variants=a,b,c;values=1,2,4;numeric=1");
    const THREADS: usize = 8;
    const PER: usize = 3000;
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let spec = &spec;
            s.spawn(move || {
                for i in 0..PER {
                    let f = [(i % 7) as f64, t as f64];
                    let c = exec(&SLOT, spec, 20, &f, |_| 0);
                    assert!((0..3).contains(&c.variant));
                    assert_eq!(c.value, [1.0, 2.0, 4.0][c.variant as usize]);
                    assert_eq!(c.features[1], t as f64);
                }
            });
        }
    });
    let r = registry::global().find("threads").unwrap();
    assert!(std::ptr::eq(SLOT.load(Ordering::Acquire) as *const _, r), "slot caches the region");
    let s = r.snapshot();
    assert_eq!(s.executions(), (THREADS * PER) as u64);
    let recorded: u64 = s.entries.iter().flat_map(|e| &e.per_variant).map(|v| v.total()).sum();
    assert_eq!(recorded + s.unrecorded, (THREADS * PER) as u64);
    assert_eq!(s.unrecorded, 0, "cold executions are recorded too");
    assert!(r.is_trained());
}

#[test]
fn degenerate_calls_fall_back_to_variant_zero() {
    init();
    unsafe {
        // NULL ctx: nothing happens
        ompadapt_begin(null_mut(), null_mut(), -1, -1, -1, null_mut(), 0, null_mut());
        ompadapt_end(null_mut());
        // NULL spec, NULL slot, NULL features with nfeatures > 0
        let mut c = Ctx::zeroed();
        c.variant = 7;
        ompadapt_begin(null_mut(), null_mut(), -1, -1, -1, null_mut(), 3, &mut c);
        assert_eq!((c.variant, c.nfeatures), (0, 0));
        ompadapt_end(&mut c);
        // malformed spec: variant 0 forever, cached in the slot
        let slot = AtomicPtr::new(null_mut());
        let spec = cspec("ompadapt1;model=broken;variants=a,b;values=1");
        for _ in 0..5 {
            let c = exec(&slot, &spec, -1, &[1.0], |_| 0);
            assert_eq!(c.variant, 0);
        }
        assert!(!slot.load(Ordering::Relaxed).is_null());
        // more than 16 features: clamped
        let many: Vec<f64> = (0..40).map(|i| i as f64).collect();
        let slot = AtomicPtr::new(null_mut());
        let spec = cspec("ompadapt1;model=many;variants=a,b");
        let c = exec(&slot, &spec, -1, &many, |_| 0);
        assert_eq!(c.nfeatures, 16);
        assert_eq!(c.features[15], 15.0);
        // an end with a corrupted variant is ignored, not recorded
        let mut c = Ctx::zeroed();
        ompadapt_begin(slot.as_ptr(), spec.as_ptr() as *const c_char, -1, -1, -1, many.as_ptr(), 2, &mut c);
        c.variant = 99;
        ompadapt_end(&mut c);
    }
}

#[test]
fn api_table() {
    init();
    assert_eq!(ompadapt_rt_api.version, 6);
    // version 5's table, for programs built by the previous lowering: the same entries
    assert_eq!(ompadapt_rt_api_v5.version, 5);
    assert_eq!(ompadapt_rt_api_v5.begin as usize, ompadapt_rt_api.begin as usize);
    let spec = cspec("ompadapt1;model=table;variants=x,y;values=3,5;numeric=1");
    let mut slot: *mut c_void = null_mut();
    let mut values = Vec::new();
    for _ in 0..4 {
        let mut c = Ctx::zeroed();
        let f = [2.0];
        unsafe {
            (ompadapt_rt_api.begin)(&mut slot, spec.as_ptr() as *const c_char, 100, -1, -1, f.as_ptr(), 1, &mut c);
            (ompadapt_rt_api.end)(&mut c);
        }
        values.push(c.value);
    }
    assert_eq!(values, vec![3.0, 5.0, 3.0, 5.0]);
    assert!(!slot.is_null());
    unsafe { (ompadapt_rt_api.unlowered_offload_site)(c"table".as_ptr()) };
}
