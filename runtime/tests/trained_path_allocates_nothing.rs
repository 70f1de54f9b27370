//! The trained path allocates nothing: after training, executions through the C ABI that
//! generated code calls (timed 1 in 16 for drift checks, or every time) and through Apollo's
//! ABI make no heap allocation, counted by this test binary's global allocator. (A lock or a
//! system call would show up in the timings of `--bench apollo_side_by_side`; an allocation
//! is what a hidden `format!`, `Vec` or map insert on that path would do.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::os::raw::{c_char, c_void};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use ompadapt_rt::apollo::{
    __apollo_region_begin, __apollo_region_create, __apollo_region_end, __apollo_region_get_policy, __apollo_region_set_feature,
    __apollo_region_train,
};
use ompadapt_rt::{ompadapt_begin, ompadapt_end, Ctx};

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by `f`.
fn allocations(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.load(Relaxed);
    COUNTING.store(true, Relaxed);
    f();
    COUNTING.store(false, Relaxed);
    ALLOCATIONS.load(Relaxed) - before
}

const SPEC: &[u8] = b"ompadapt1;model=trained_path;loc=trained_path.rs:1;features=n,m;variants=cpu,gpu\0";

fn exec(slot: &mut *mut c_void, f: &[f64; 2]) -> i32 {
    let mut c = Ctx::zeroed();
    unsafe {
        ompadapt_begin(slot, SPEC.as_ptr() as *const c_char, 8, -1, -1, f.as_ptr(), 2, &mut c);
        ompadapt_end(&mut c);
    }
    c.variant
}

#[test]
fn trained_executions_allocate_nothing() {
    // one test: the configuration is read once per process
    std::env::set_var("OMPADAPT_PERSIST", "0");
    std::env::remove_var("OMPADAPT_REPORT");
    let vectors = [[1.0, 8.0], [2.0, 8.0], [3.0, 8.0], [4.0, 8.0]];

    // generated code's ABI
    let mut slot: *mut c_void = null_mut();
    let region = || ompadapt_rt::registry::global().find("trained_path");
    while !region().is_some_and(|r| r.is_trained()) {
        for f in &vectors {
            exec(&mut slot, f);
        }
    }
    // the first pass over the trained vectors fills each thread's decision cache
    for _ in 0..64 {
        for f in &vectors {
            exec(&mut slot, f);
        }
    }
    // A model that changes during the window (a retraining finishing in the background, or,
    // on a loaded machine, preempted executions rightly taken for drift) makes each vector's
    // first decision under it allocate once, off the trained path: such a window is measured
    // again. An allocation per execution would show in every window.
    let mut n = u64::MAX;
    for _ in 0..5 {
        n = n.min(allocations(|| {
            for _ in 0..25_000 {
                for f in &vectors {
                    exec(&mut slot, f);
                }
            }
        }));
        if n == 0 {
            break;
        }
    }
    assert_eq!(n, 0, "allocations in 100 000 trained executions through ompadapt_begin/end");

    // Apollo's ABI, 4 features
    let id = b"trained_path_apollo\0";
    let r = unsafe { __apollo_region_create(4, id.as_ptr() as *const c_char, 2, 0, std::ptr::null()) };
    let run = |i: usize| unsafe {
        __apollo_region_begin(r);
        for k in 0..4 {
            __apollo_region_set_feature(r, ((i + k) & 3) as f32);
        }
        let p = __apollo_region_get_policy(r);
        __apollo_region_end(r);
        p
    };
    for i in 0..64 {
        run(i);
    }
    unsafe { __apollo_region_train(r, 0) };
    for i in 0..256 {
        run(i);
    }
    // as above: a window in which the model changed is measured again
    let mut n = u64::MAX;
    for _ in 0..5 {
        n = n.min(allocations(|| {
            for i in 0..100_000 {
                run(i);
            }
        }));
        if n == 0 {
            break;
        }
    }
    assert_eq!(n, 0, "allocations in 100 000 trained executions through Apollo's ABI");
}
