//! The Apollo C API called from Rust: per-thread execution contexts (nesting, interleaving,
//! many threads), handle identity, robustness. `tests/apollo_abi.rs` runs the same API from C.

use std::ffi::{c_void, CString};
use std::sync::Once;

use ompadapt_rt::apollo::{self, handle};
use ompadapt_rt::apollo::{
    __apollo_region_begin as begin, __apollo_region_create, __apollo_region_end as end, __apollo_region_get_policy as get_policy,
    __apollo_region_set_feature as set_feature, __apollo_region_train as train,
};

fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::env::set_var("OMPADAPT_PERSIST", "0");
        std::env::set_var("OMPADAPT_WARMUP", "0");
        std::env::set_var("OMPADAPT_REPORT", "0");
        std::env::remove_var("OMPADAPT_MODEL");
        std::env::remove_var("APOLLO_POLICY_MODEL");
    });
}

fn create(nf: i32, id: &str, np: i32, min: i32, info: &str) -> *mut c_void {
    init();
    let id = CString::new(id).unwrap();
    let info = CString::new(info).unwrap();
    unsafe { __apollo_region_create(nf, id.as_ptr(), np, min, info.as_ptr()) }
}

fn stats(r: *mut c_void) -> apollo::Stats {
    let mut s = apollo::Stats::default();
    assert_eq!(unsafe { apollo::ompadapt_apollo_region_stats(r, &mut s) }, 0);
    s
}

/// One execution with `features`; returns the policy.
fn exec(r: *mut c_void, features: &[f32]) -> i32 {
    unsafe {
        begin(r);
        for &f in features {
            set_feature(r, f);
        }
        let p = get_policy(r);
        end(r);
        p
    }
}

#[test]
fn create_is_idempotent_and_separates_other_arguments() {
    let a = create(1, "ident", 2, 0, "RoundRobin");
    assert!(!a.is_null());
    assert_eq!(a, create(1, "ident", 2, 0, "RoundRobin"));
    assert_eq!(a, create(1, "ident", 2, 0, " roundrobin "), "model_info compared canonically");
    let b = create(1, "ident", 3, 0, "RoundRobin");
    assert_ne!(a, b);
    let hb = handle::from_ptr(b).unwrap();
    assert_eq!(hb.region.spec.model, "ident#2");
    assert_eq!(handle::from_ptr(a).unwrap().region.spec.model, "ident");
    assert_eq!(hb.num_policies, 3);
    assert!(handle::from_ptr(std::ptr::null()).is_none());
    let x = 0u64;
    assert!(handle::from_ptr(&x as *const u64 as *const c_void).is_none());
    assert!(handle::from_ptr((a as usize + 8) as *const c_void).is_none(), "inside an entry is not a handle");
}

#[test]
fn names_and_defaults() {
    assert_eq!(handle::region_name("a;b/c\\d\ne"), "a_b_c_d_e");
    assert_eq!(handle::region_name("  "), "apollo");
    fn env(v: Option<&'static str>) -> impl Fn(&str) -> Option<String> {
        move |_| v.map(str::to_owned)
    }
    assert_eq!(handle::effective_model_info(None, env(None)), "DecisionTree");
    assert_eq!(handle::effective_model_info(Some(""), env(Some("Static,policy=1"))), "Static,policy=1");
    assert_eq!(handle::effective_model_info(Some("Random"), env(Some("Static"))), "Random");
}

/// `begin(a) begin(b) set(a) set(b) get(a) get(b) end(a) end(b)`: each execution keeps its own
/// features. Each region only ever sees its one feature vector, so it has exactly
/// 1 vector × 2 policies = 2 training samples; a leaked feature would add vectors.
#[test]
fn interleaved_regions_keep_their_own_features() {
    let a = create(2, "il_a", 2, 0, "RoundRobin");
    let b = create(2, "il_b", 2, 0, "RoundRobin");
    for _ in 0..6 {
        unsafe {
            begin(a);
            begin(b);
            set_feature(a, 1.0);
            set_feature(b, 2.0);
            set_feature(a, 10.0);
            set_feature(b, 20.0);
            let pa = get_policy(a);
            let pb = get_policy(b);
            assert_eq!(get_policy(a), pa, "a second get_policy returns the same policy");
            assert!((0..2).contains(&pa) && (0..2).contains(&pb));
            end(a);
            end(b);
        }
    }
    assert_eq!(apollo::open_executions(), 0);
    for r in [a, b] {
        let s = stats(r);
        assert_eq!((s.executions, s.training_samples), (6, 2));
    }
}

/// A region nested in itself: the inner execution has its own features and policy.
#[test]
fn nested_executions_of_one_region() {
    let r = create(2, "nested", 2, 0, "RoundRobin");
    unsafe {
        begin(r);
        set_feature(r, 1.0);
        begin(r);
        set_feature(r, 5.0);
        set_feature(r, 6.0);
        let inner = get_policy(r);
        end(r);
        set_feature(r, 10.0);
        let outer = get_policy(r);
        end(r);
        // two different vectors, each begun once: both run their first round-robin policy
        assert_eq!((inner, outer), (0, 0));
    }
    let s = stats(r);
    assert_eq!((s.executions, s.training_samples), (2, 2));
    assert_eq!(apollo::open_executions(), 0);
}

/// The paper's Listing 2 calls `set_feature(N)` without the region: the value arrives in the
/// float register either way and the region argument is then garbage. It goes to the most
/// recent execution.
#[test]
fn set_feature_with_a_foreign_region_goes_to_the_latest_execution() {
    let r = create(1, "listing2_style", 2, 0, "RoundRobin");
    for v in [3.0f32, 3.0, 4.0, 4.0] {
        unsafe {
            begin(r);
            set_feature(0x1234 as *mut c_void, v);
            get_policy(r);
            end(r);
        }
    }
    assert_eq!(stats(r).training_samples, 4, "2 vectors x 2 policies");
}

#[test]
fn static_random_and_bad_calls() {
    let s = create(1, "static_api", 5, 0, "Static,policy=4");
    for i in 0..20 {
        assert_eq!(exec(s, &[i as f32]), 4);
    }
    assert_eq!(stats(s).mode, 1);
    let r = create(1, "random_api", 3, 0, "Random");
    let mut seen = [0; 3];
    for _ in 0..300 {
        seen[exec(r, &[1.0]) as usize] += 1;
    }
    assert!(seen.iter().all(|&c| c > 50), "uniform-ish: {seen:?}");
    assert_eq!(stats(r).executions, 300);
    unsafe {
        // get_policy / end without begin, a NULL handle, a foreign pointer: policy 0, no crash
        assert_eq!(get_policy(s), 0);
        end(s);
        begin(std::ptr::null_mut());
        assert_eq!(get_policy(std::ptr::null_mut()), 0);
        end(std::ptr::null_mut());
        train(std::ptr::null_mut(), 0);
        let mut junk = [0u8; 64];
        assert_eq!(get_policy(junk.as_mut_ptr() as *mut c_void), 0);
    }
    assert_eq!(apollo::open_executions(), 0);
    let mut out = apollo::Stats::default();
    assert_eq!(unsafe { apollo::ompadapt_apollo_region_stats(std::ptr::null_mut(), &mut out) }, -1);
    assert_eq!(unsafe { apollo::ompadapt_apollo_region_stats(s, std::ptr::null_mut()) }, -1);
}

#[test]
fn more_than_16_features_use_the_first_16() {
    let r = create(20, "wide", 2, 0, "RoundRobin");
    let f: Vec<f32> = (0..20).map(|i| i as f32).collect();
    exec(r, &f);
    let mut g = f.clone();
    g[18] = 99.0; // beyond the 16th: same vector
    exec(r, &g);
    let s = stats(r);
    assert_eq!((s.num_features, s.training_samples), (16, 2));
}

/// `min_training_data` counts distinct (feature vector, policy) pairs, as Apollo does; ≤ 0
/// leaves training to `__apollo_region_train`.
#[test]
fn training_follows_min_training_data() {
    let r = create(1, "auto_train", 2, 4, "DecisionTree,max_depth=2");
    let cost = |f: f32, p: i32| if (p == 0) == (f < 50.0) { 1 } else { 100 };
    let mut n = 0;
    while stats(r).trained != 1 && n < 100 {
        let f = if n % 2 == 0 { 10.0 } else { 90.0 };
        unsafe {
            begin(r);
            set_feature(r, f);
            let p = get_policy(r);
            std::thread::sleep(std::time::Duration::from_micros(200 * cost(f, p)));
            end(r);
        }
        n += 1;
    }
    assert_eq!(stats(r).trained, 1, "trained after {n} executions");
    assert_eq!(stats(r).training_samples, 4);
    assert_eq!(n, 4, "exactly when the 4th distinct pair is measured");
    unsafe { train(r, 1) }; // already trained: no effect
    assert_eq!(stats(r).trained, 1);

    let manual = create(1, "manual_train", 2, 0, "DecisionTree");
    for i in 0..20 {
        exec(manual, &[(i % 4) as f32]);
    }
    assert_eq!(stats(manual).trained, 0, "min_training_data 0: no automatic training");
    unsafe { train(manual, 7) };
    assert_eq!(stats(manual).trained, 1, "trained when told");
}

/// model_info settings reach the region.
#[test]
fn model_info_configures_the_region() {
    use ompadapt_rt::explore::Strategy;
    use ompadapt_rt::model::ModelChoice;
    let region = |p: *mut c_void| handle::from_ptr(p).unwrap().region;
    let r = region(create(1, "mi_forest", 3, 5, "RandomForest,num_trees=7,max_depth=3,explore=Random"));
    assert_eq!(r.settings().choice, ModelChoice::Forest { trees: 7, max_depth: 3 });
    assert_eq!(r.params().strategy, Strategy::Random);
    assert_eq!(r.min_train(), 5);
    let r = region(create(1, "mi_logistic", 3, 5, "LogisticRegression,explore=Elimination"));
    assert_eq!(r.settings().choice, ModelChoice::LogisticRegression);
    assert_eq!(r.params().strategy, Strategy::Elimination);
    let r = region(create(1, "mi_tree", 3, 5, "DecisionTree,max_depth=4"));
    assert_eq!(r.settings().choice, ModelChoice::Tree { max_depth: 4 });
    assert_eq!(r.params().strategy, Strategy::RoundRobin);
    let rr = create(1, "mi_rr", 2, 1, "RoundRobin");
    for i in 0..12 {
        assert_eq!(exec(rr, &[1.0]), i % 2, "round-robin forever");
    }
    assert!(region(rr).settings().explore_only);
    assert_eq!(stats(rr).trained, 0);
    unsafe { train(rr, 0) };
    assert_eq!(stats(rr).trained, 0, "RoundRobin is not trainable (as in Apollo)");
    let st = create(1, "mi_static", 3, 1, "Static,policy=1");
    unsafe { train(st, 0) };
    for _ in 0..5 {
        assert_eq!(exec(st, &[2.0]), 1);
    }
    assert_eq!(stats(st).executions, 5, "Static executions run through the region");
}

/// 8 threads, two regions, the inner one nested between the outer one's features: every
/// execution is counted and no thread's features reach another's execution.
#[test]
fn eight_threads_lose_nothing() {
    const T: usize = 8;
    const PER: usize = 1000;
    let outer = create(2, "mt_api_outer", 2, 0, "RoundRobin") as usize;
    let inner = create(1, "mt_api_inner", 3, 0, "RoundRobin") as usize;
    std::thread::scope(|s| {
        for t in 0..T {
            s.spawn(move || {
                let (o, i) = (outer as *mut c_void, inner as *mut c_void);
                for _ in 0..PER {
                    unsafe {
                        begin(o);
                        set_feature(o, t as f32);
                        begin(i);
                        set_feature(i, 100.0 + t as f32);
                        assert!((0..3).contains(&get_policy(i)));
                        end(i);
                        set_feature(o, 10.0 * t as f32);
                        assert!((0..2).contains(&get_policy(o)));
                        end(o);
                    }
                }
                assert_eq!(apollo::open_executions(), 0);
            });
        }
    });
    let (o, i) = (stats(outer as *mut c_void), stats(inner as *mut c_void));
    assert_eq!(o.executions, (T * PER) as u64);
    assert_eq!(i.executions, (T * PER) as u64);
    assert_eq!(o.training_samples, (T * 2) as u64, "8 vectors (t, 10t) x 2 policies");
    assert_eq!(i.training_samples, (T * 3) as u64, "8 vectors (100 + t) x 3 policies");
}

/// Threads come and go (their thread pointers and execution stacks are reused by later ones),
/// some exit with an execution still open: each new thread starts with no open execution, and
/// every ended execution of every thread is counted once.
#[test]
fn exited_threads_leave_nothing_to_their_successors() {
    let r = create(1, "mt_api_churn", 2, 0, "RoundRobin") as usize;
    let mut ended = 0u64;
    for round in 0..40 {
        let n = std::thread::scope(|s| {
            let hs: Vec<_> = (0..3)
                .map(|t| {
                    s.spawn(move || {
                        let r = r as *mut c_void;
                        assert_eq!(apollo::open_executions(), 0, "round {round}: a new thread inherited open executions");
                        for k in 0..10 {
                            exec(r, &[(t * 10 + k) as f32]);
                        }
                        if t == 0 {
                            unsafe {
                                begin(r);
                                set_feature(r, 1.0);
                            } // left open at thread exit: never recorded
                        }
                        10u64
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum::<u64>()
        });
        ended += n;
    }
    assert_eq!(stats(r as *mut c_void).executions, ended);
}
