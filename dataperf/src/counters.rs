//! Per-thread data-movement counters, for the ompadapt runtime (and anyone else in the
//! process) to read around a region: bytes moved and time spent in transfers by the calling
//! thread, cumulative since it started. The runtime takes the difference between a region's
//! begin and end and gets its data movement per execution; it writes `region` so that the
//! tool's report can attribute findings to the adaptive region.
//!
//! C interface (`dataperf/include/ompadapt_dataperf.h`), looked up with `dlsym`:
//! `ompadapt_dataperf_thread_counters()` and `ompadapt_dataperf_region_id(name)`.

use std::cell::UnsafeCell;
use std::ffi::{c_char, CStr};
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Mutex;

/// Layout shared with C and the runtime (`ompadapt_dataperf_counters`).
pub use ompadapt_abi::dataperf::Counters;

thread_local! {
    static MINE: UnsafeCell<Counters> = const { UnsafeCell::new(Counters {
        to_device_bytes: 0, from_device_bytes: 0, transfer_ns: 0, transfers: 0,
        alloc_bytes: 0, allocs: 0, region: 0, reserved: 0,
    }) };
}

pub(crate) static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Runs `f` on the calling thread's counters.
pub(crate) fn with<R>(f: impl FnOnce(&mut Counters) -> R) -> R {
    // SAFETY: the counters are only touched by their own thread (the runtime writes `region`
    // through the pointer from the same thread, never concurrently with this call).
    MINE.with(|c| unsafe { f(&mut *c.get()) })
}

/// The calling thread's counters; NULL when the tool is not active in this process.
#[unsafe(no_mangle)]
pub extern "C" fn ompadapt_dataperf_thread_counters() -> *mut Counters {
    if !ACTIVE.load(Relaxed) {
        return std::ptr::null_mut();
    }
    MINE.with(|c| c.get())
}

static REGIONS: Mutex<Vec<String>> = Mutex::new(Vec::new());
const MAX_REGIONS: usize = 1 << 16;

/// The id (> 0) under which the report names region `name`; the same name gives the same id.
/// 0 for a null name or when the table is full.
///
/// # Safety
/// `name` is null or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ompadapt_dataperf_region_id(name: *const c_char) -> u32 {
    if name.is_null() {
        return 0;
    }
    let name = CStr::from_ptr(name).to_string_lossy();
    region_id(&name)
}

/// The id of the adaptive region `name` (1-based; 0 once the table of regions is full).
pub fn region_id(name: &str) -> u32 {
    let mut r = REGIONS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = r.iter().position(|n| n == name) {
        return i as u32 + 1;
    }
    if r.len() >= MAX_REGIONS {
        return 0;
    }
    r.push(name.to_owned());
    r.len() as u32
}

/// The name of region `id` (`None` for 0 or an id never handed out).
pub fn region_name(id: u32) -> Option<String> {
    if id == 0 {
        return None;
    }
    REGIONS.lock().unwrap_or_else(|e| e.into_inner()).get(id as usize - 1).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The symbol of a `#[no_mangle]` function is its item's name: the last segment of the
    /// name of its function-item type.
    fn symbol_of<F>(_: F) -> &'static str {
        std::any::type_name::<F>().rsplit("::").next().unwrap()
    }

    #[test]
    fn exported_names_are_the_ones_the_runtime_looks_up() {
        use ompadapt_abi::dataperf::symbols;
        assert_eq!(symbol_of(ompadapt_dataperf_thread_counters), symbols::THREAD_COUNTERS.to_str().unwrap());
        assert_eq!(symbol_of(ompadapt_dataperf_region_id), symbols::REGION_ID.to_str().unwrap());
        assert_eq!(symbol_of(ompadapt_dataperf_runtime_copies), symbols::RUNTIME_COPIES.to_str().unwrap());
        // and the OMPT entry point libomp starts the tool through
        assert_eq!(symbol_of(crate::tool::ompt_start_tool), ompadapt_abi::openmp::START_TOOL.to_str().unwrap());
    }

    #[test]
    fn region_ids_are_stable() {
        let a = region_id("counters-test-a");
        let b = region_id("counters-test-b");
        assert!(a > 0 && b > 0 && a != b);
        assert_eq!(region_id("counters-test-a"), a);
        assert_eq!(region_name(b).as_deref(), Some("counters-test-b"));
        assert_eq!(region_name(0), None);
        assert_eq!(unsafe { ompadapt_dataperf_region_id(std::ptr::null()) }, 0);
    }

    #[test]
    fn counters_are_per_thread() {
        ACTIVE.store(true, Relaxed);
        let p = ompadapt_dataperf_thread_counters();
        with(|c| c.transfers += 3);
        assert_eq!(unsafe { (*p).transfers }, 3);
        let other = std::thread::spawn(|| {
            with(|c| c.transfers += 1);
            with(|c| c.transfers)
        })
        .join()
        .unwrap();
        assert_eq!(other, 1);
        assert_eq!(unsafe { (*p).transfers }, 3);
    }
}

thread_local! {
    /// Set while ompadapt's runtime copies data around the host version of a kernel (the `cpu`
    /// variant): those transfers are not the program's mappings.
    static RUNTIME_COPIES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Called by ompadapt's runtime around its own copies on the calling thread (1: from now on,
/// 0: done); the data operations in between are left out of the analysis (the runtime reports
/// them per region itself).
#[unsafe(no_mangle)]
pub extern "C" fn ompadapt_dataperf_runtime_copies(on: c_int) {
    RUNTIME_COPIES.with(|c| c.set(on != 0));
}

/// Whether the calling thread is inside ompadapt's own copies.
pub(crate) fn in_runtime_copies() -> bool {
    RUNTIME_COPIES.with(|c| c.get())
}
