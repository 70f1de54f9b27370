//! LLNL Apollo's C API on top of ompadapt (`include/apollo.h`): programs instrumented for
//! Apollo link against `libompadapt_rt` unchanged.
//!
//! The signatures are those of Apollo 2.x's C bindings (`extern "C"` in `src/Apollo.cpp`):
//!
//! ```c
//! void *__apollo_region_create(int num_features, const char *id, int num_policies,
//!                              int min_training_data, const char *model_info);
//! void  __apollo_region_begin(void *region);
//! void  __apollo_region_end(void *region);
//! void  __apollo_region_set_feature(void *region, float feature);
//! int   __apollo_region_get_policy(void *region);
//! void  __apollo_region_train(void *region, int step);
//! ```
//!
//! (Georgakoudis et al.'s Table 1 lists `create`'s arguments in another order and Listing 2 calls
//! `set_feature` without the region; the bindings above are what Apollo's library exports
//! and what its instrumented programs and LLVM pass call. The one-argument call works too, see
//! `frames`.)
//!
//! What differs from Apollo, on purpose:
//! * thread safety: per-thread stacks of executions (`frames`) instead of one "current
//!   context" per region; one region can run on many threads, nested and interleaved;
//! * `model_info` NULL or empty means `$APOLLO_POLICY_MODEL`, else `DecisionTree` (Apollo:
//!   `Static,policy=0`, i.e. nothing is tuned unless an environment variable says so);
//! * an unknown `model_info` key is one warning line (Apollo aborts);
//! * the execution is timed from `get_policy` (the decision) to `end`, not from `begin`, so
//!   feature setting is not part of the measured time;
//! * a region's data is saved and reloaded like any ompadapt region's (`OMPADAPT_DIR`), per
//!   process and never overwritten by another rank;
//! * no call panics across the C boundary or aborts the program: on any internal error, and
//!   for a NULL or unknown handle, `get_policy` returns 0 (one warning).

mod frames;
pub mod handle;
mod hooks;
pub mod model_info;

use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_ulonglong, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::diag;
pub use handle::{Handle, Mode, MAX_HANDLES};

fn warn_bad_handle(what: &str, p: *const c_void) {
    diag::warn_once(
        &format!("apollo:bad-handle:{what}"),
        &format!("{what} called with {p:p}, which __apollo_region_create did not return; policy 0 is used"),
    );
}

/// `__apollo_region_create`: the handle of region `id` (see [`handle`]). NULL only when
/// [`MAX_HANDLES`] regions exist.
///
/// # Safety
/// `id` and `model_info` are NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn __apollo_region_create(
    num_features: c_int,
    id: *const c_char,
    num_policies: c_int,
    min_training_data: c_int,
    model_info: *const c_char,
) -> *mut c_void {
    catch_unwind(AssertUnwindSafe(|| {
        let id = if id.is_null() { "apollo".into() } else { CStr::from_ptr(id).to_string_lossy() };
        let info = if model_info.is_null() { None } else { Some(CStr::from_ptr(model_info).to_string_lossy()) };
        handle::create(num_features, &id, num_policies, min_training_data, info.as_deref())
    }))
    .unwrap_or(std::ptr::null_mut())
}

/// `__apollo_region_begin`: starts an execution of `region` on this thread.
///
/// # Safety
/// Any pointer is accepted (only handles `create` returned are used).
#[no_mangle]
pub unsafe extern "C" fn __apollo_region_begin(region: *mut c_void) {
    // the usual case without a call (so that it saves no register), the rest out of line;
    // the slow paths are `extern "C"` (they cannot unwind: `catch_unwind` inside), so that
    // calling them needs no landing pad and is a jump
    match handle::from_ptr(region) {
        Some(h) if frames::begin_fast(region, h) => {}
        _ => begin_slow(region),
    }
}

#[inline(never)]
extern "C" fn begin_slow(region: *mut c_void) {
    let _ = catch_unwind(|| match handle::from_ptr(region) {
        Some(h) => frames::begin(region, h),
        None => warn_bad_handle("__apollo_region_begin", region),
    });
}

/// `__apollo_region_set_feature`: appends a feature to this thread's most recent execution of
/// `region`.
///
/// # Safety
/// Any pointer is accepted (only handles `create` returned are used).
#[no_mangle]
pub unsafe extern "C" fn __apollo_region_set_feature(region: *mut c_void, feature: f32) {
    if frames::set_feature_fast(region, feature as f64) {
        return;
    }
    set_feature_slow(region, feature);
}

/// `__apollo_region_set_feature` beyond its usual case (out of line: the usual case saves no
/// register).
#[inline(never)]
extern "C" fn set_feature_slow(region: *mut c_void, feature: f32) {
    let _ = catch_unwind(|| frames::set_feature(region, feature as f64));
}

/// `__apollo_region_get_policy`: the policy of this thread's most recent execution of `region`,
/// in `[0, num_policies)`; decided (and its clock started) on the first call.
///
/// # Safety
/// Any pointer is accepted (only handles `create` returned are used).
#[no_mangle]
pub unsafe extern "C" fn __apollo_region_get_policy(region: *mut c_void) -> c_int {
    match frames::get_policy_fast(region) {
        Some(p) => p as c_int,
        None => get_policy_slow(region),
    }
}

#[inline(never)]
extern "C" fn get_policy_slow(region: *mut c_void) -> c_int {
    catch_unwind(|| {
        // frames hold only handles: one found proves `region` is one
        let found = match frames::get_policy(region) {
            frames::Found::Frame(p) => return p as c_int,
            other => other,
        };
        let Some(h) = handle::from_ptr(region) else {
            warn_bad_handle("__apollo_region_get_policy", region);
            return 0;
        };
        match found {
            frames::Found::Frame(p) => p as c_int,
            frames::Found::Overflow => 0, // begun too deep: policy 0
            frames::Found::Nothing => {
                diag::warn_once(
                    &format!("apollo:policy-without-begin:{}", h.id),
                    &format!("Apollo region '{}': get_policy without begin on this thread; policy 0", h.id),
                );
                0
            }
        }
    })
    .unwrap_or(0)
}

/// `__apollo_region_end`: ends (and records) this thread's most recent execution of `region`.
///
/// # Safety
/// Any pointer is accepted (only handles `create` returned are used).
#[no_mangle]
pub unsafe extern "C" fn __apollo_region_end(region: *mut c_void) {
    if !frames::end_fast(region) {
        end_slow(region);
    }
}

#[inline(never)]
extern "C" fn end_slow(region: *mut c_void) {
    let _ = catch_unwind(|| {
        let found = frames::end(region);
        if let frames::Found::Frame(()) = found {
            return;
        }
        match handle::from_ptr(region) {
            Some(h) => {
                if let frames::Found::Overflow = found {
                    frames::end_deep();
                } else {
                    diag::warn_once(
                        &format!("apollo:end-without-begin:{}", h.id),
                        &format!("Apollo region '{}': end without begin on this thread; ignored", h.id),
                    );
                }
            }
            None => warn_bad_handle("__apollo_region_end", region),
        }
    });
}

/// `__apollo_region_train`: trains `region`'s model now on what has been measured. `step` is
/// ignored (Apollo uses it to name trace files).
///
/// # Safety
/// Any pointer is accepted (only handles `create` returned are used).
#[no_mangle]
pub unsafe extern "C" fn __apollo_region_train(region: *mut c_void, step: c_int) {
    let _ = step;
    let _ = catch_unwind(|| {
        let Some(h) = handle::from_ptr(region) else {
            warn_bad_handle("__apollo_region_train", region);
            return;
        };
        if !h.trainable() {
            return; // Static, RoundRobin, Random: nothing to train (as Apollo)
        }
        if let Err(e) = hooks::train_now(h.region) {
            diag::warn_once(&format!("apollo:train:{}", h.id), &format!("Apollo region '{}': not trained: {e}", h.id));
        }
    });
}

/// `ompadapt_apollo_stats` (see `include/apollo.h`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Executions ended (`begin` … `get_policy` … `end`), all threads.
    pub executions: c_ulonglong,
    /// Distinct (feature vector, policy) pairs measured.
    pub training_samples: c_ulonglong,
    /// Whether a model decides the executions.
    pub trained: c_int,
    /// `num_policies`.
    pub num_policies: c_int,
    /// Features used (`num_features`, at most 16).
    pub num_features: c_int,
    /// 0 learning, 1 `Static`, 2 `Random`.
    pub mode: c_int,
}

const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(offset_of!(Stats, executions) == 0);
    assert!(offset_of!(Stats, training_samples) == 8);
    assert!(offset_of!(Stats, trained) == 16);
    assert!(offset_of!(Stats, num_policies) == 20);
    assert!(offset_of!(Stats, num_features) == 24);
    assert!(offset_of!(Stats, mode) == 28);
    assert!(size_of::<Stats>() == 32);
};

/// The counters of a handle (for tests and tools).
pub fn stats(h: &Handle) -> Stats {
    Stats {
        executions: h.executions(),
        training_samples: h.region.training_samples() as u64,
        trained: (h.trainable() && h.region.is_trained()) as c_int,
        num_policies: h.num_policies as c_int,
        num_features: h.num_features.min(crate::ctx::MAX_FEATURES) as c_int,
        mode: match h.mode {
            Mode::Learn => 0,
            Mode::Fixed(_) => 1,
            Mode::Random => 2,
        },
    }
}

/// `ompadapt_apollo_region_stats`: fills `*out` with `region`'s counters. Returns 0, or -1 if
/// `region` is not a handle or `out` is NULL.
///
/// # Safety
/// `out` is NULL or points to writable memory for an `ompadapt_apollo_stats`.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_apollo_region_stats(region: *mut c_void, out: *mut Stats) -> c_int {
    catch_unwind(AssertUnwindSafe(|| match (handle::from_ptr(region), out.is_null()) {
        (Some(h), false) => {
            *out = stats(h);
            0
        }
        _ => -1,
    }))
    .unwrap_or(-1)
}

/// Executions begun and not ended on the calling thread (tests).
pub fn open_executions() -> usize {
    frames::depth()
}
