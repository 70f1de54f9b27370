//! Data movement per execution of a region, from the OMPT tool `libompadapt_dataperf.so`
//! when it is loaded and enabled (`ompadapt-dataperf` launcher, or `OMP_TOOL_LIBRARIES` with
//! `OMPADAPT_DATA=counters` for the counters alone).
//!
//! The tool keeps cumulative per-thread counters (bytes to and from devices, time inside
//! transfers) and exports them through `ompadapt_dataperf_thread_counters`. At a region's begin
//! the runtime notes the calling thread's counters and tells the tool which region runs (so that
//! the tool's report names the adaptive region of each finding); at the end it adds the
//! difference to the executed variant's totals. Without the tool every call here is a load of a
//! null function pointer.
//!
//! The totals per variant — bytes and transfer time per execution — are what a model that
//! weighs transfer cost (CPU vs GPU, co-scheduling) reads (`Region::data_movement`); the
//! report prints them. They are not appended to the feature vector: exploration keys on the
//! feature vector, and a measured time would make every execution a new key.

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;
use ompadapt_abi::dataperf::symbols;

use crate::ctx::Ctx;

pub use ompadapt_abi::dataperf::Counters;

struct Tool {
    counters: unsafe extern "C" fn() -> *mut Counters,
    region_id: unsafe extern "C" fn(*const c_char) -> u32,
}

/// The loaded tool library's path: libomp loads `OMP_TOOL_LIBRARIES` into a local scope, where
/// `dlsym(RTLD_DEFAULT, ...)` does not see it.
fn loaded_tool_path() -> Option<CString> {
    unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _: usize, out: *mut libc::c_void) -> libc::c_int {
        let name = (*info).dlpi_name;
        if name.is_null() {
            return 0;
        }
        let n = std::ffi::CStr::from_ptr(name);
        let (name, lib) = (n.to_bytes(), ompadapt_abi::dataperf::TOOL_LIBRARY.as_bytes());
        if name == lib || (name.ends_with(lib) && name[name.len() - lib.len() - 1] == b'/') {
            *(out as *mut Option<CString>) = Some(n.to_owned());
            return 1;
        }
        0
    }
    let mut found: Option<CString> = None;
    // SAFETY: the callback only reads the module name during the call.
    unsafe { libc::dl_iterate_phdr(Some(each), &mut found as *mut Option<CString> as *mut libc::c_void) };
    found
}

/// The tool, once looked for (None inside: not loaded).
static TOOL: OnceLock<Option<Tool>> = OnceLock::new();

/// Whether the tool is known not to be loaded (it was looked for, at a region's first `begin`,
/// and was not there): then [`begin`] and [`end`] do nothing. A tool cannot appear later (it
/// is looked for once); one that is there sets [`crate::every_execution`].
#[inline(always)]
pub fn absent() -> bool {
    matches!(TOOL.get(), Some(None))
}

fn tool() -> Option<&'static Tool> {
    TOOL.get_or_init(|| {
        // SAFETY: dlopen/dlsym with NUL-terminated names; the symbols have these types when
        // present. RTLD_NOLOAD only returns a library that is already loaded.
        unsafe {
            let mut handle = libc::RTLD_DEFAULT;
            let mut c = libc::dlsym(handle, symbols::THREAD_COUNTERS.as_ptr());
            if c.is_null() {
                handle = libc::dlopen(loaded_tool_path()?.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD);
                if handle.is_null() {
                    return None;
                }
                c = libc::dlsym(handle, symbols::THREAD_COUNTERS.as_ptr());
            }
            let r = libc::dlsym(handle, symbols::REGION_ID.as_ptr());
            if !c.is_null() && !r.is_null() {
                crate::every_execution::need();
            }
            (!c.is_null() && !r.is_null()).then(|| Tool {
                counters: std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn() -> *mut Counters>(c),
                region_id: std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn(*const c_char) -> u32>(r),
            })
        }
    })
    .as_ref()
}

/// Data movement of one variant of a region, summed over its measured executions.
#[derive(Debug, Default)]
pub struct VariantData {
    pub(crate) executions: AtomicU64,
    pub(crate) to_device_bytes: AtomicU64,
    pub(crate) from_device_bytes: AtomicU64,
    pub(crate) transfer_ns: AtomicU64,
}

/// Per-execution averages of one variant.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Movement {
    /// Executions measured (the averages are over these).
    pub executions: u64,
    /// Bytes copied from host to device per execution.
    pub to_device_bytes: f64,
    /// Bytes copied from device to host per execution.
    pub from_device_bytes: f64,
    /// Time inside transfers (both directions) per execution, ns.
    pub transfer_ns: f64,
}

/// A region's data movement: its id in the tool and the totals of each variant.
#[derive(Debug)]
pub struct RegionData {
    /// The region's id in the tool (0: not yet registered).
    id: AtomicU32,
    variants: Box<[VariantData]>,
}

impl RegionData {
    pub(crate) fn new(nvariants: usize) -> Self {
        RegionData { id: AtomicU32::new(0), variants: (0..nvariants).map(|_| VariantData::default()).collect() }
    }

    /// Per-execution averages of `variant`; None before any measured execution (or without the
    /// tool).
    pub fn movement(&self, variant: usize) -> Option<Movement> {
        let d = self.variants.get(variant)?;
        let n = d.executions.load(Relaxed);
        (n > 0).then(|| Movement {
            executions: n,
            to_device_bytes: d.to_device_bytes.load(Relaxed) as f64 / n as f64,
            from_device_bytes: d.from_device_bytes.load(Relaxed) as f64 / n as f64,
            transfer_ns: d.transfer_ns.load(Relaxed) as f64 / n as f64,
        })
    }

    pub(crate) fn add(&self, variant: usize, to: u64, from: u64, ns: u64) {
        if let Some(d) = self.variants.get(variant) {
            d.executions.fetch_add(1, Relaxed);
            d.to_device_bytes.fetch_add(to, Relaxed);
            d.from_device_bytes.fetch_add(from, Relaxed);
            d.transfer_ns.fetch_add(ns, Relaxed);
        }
    }
}

/// What `begin` noted, matched by `end` through the context's address (an execution may end
/// on another thread: then nothing is recorded for it).
struct Open {
    ctx: usize,
    at: Counters,
    outer_region: u32,
}

thread_local! {
    static OPEN: RefCell<Vec<Open>> = const { RefCell::new(Vec::new()) };
}
const MAX_OPEN: usize = 64;

fn region_id(t: &Tool, data: &RegionData, name: &str) -> u32 {
    let id = data.id.load(Relaxed);
    if id != 0 {
        return id;
    }
    let name = CString::new(name.replace('\0', "")).unwrap_or_default();
    // SAFETY: a NUL-terminated name.
    let id = unsafe { (t.region_id)(name.as_ptr()) };
    data.id.store(id, Relaxed);
    id
}

/// Notes the thread's counters as `ctx`'s execution of the region named `name` (whose totals
/// are `data`) starts.
#[inline]
pub fn begin(data: &RegionData, name: &str, ctx: &Ctx) {
    let Some(t) = tool() else { return };
    // SAFETY: the tool's function returns null or the calling thread's counters.
    let Some(c) = (unsafe { (t.counters)().as_mut() }) else { return };
    let id = region_id(t, data, name);
    OPEN.with(|o| {
        let mut o = o.borrow_mut();
        if o.len() < MAX_OPEN {
            o.push(Open { ctx: ctx as *const Ctx as usize, at: *c, outer_region: c.region });
            c.region = id;
        }
    });
}

/// Adds what the thread moved since `begin` to `ctx`'s variant in `data`.
#[inline]
pub fn end(data: &RegionData, ctx: &Ctx) {
    let Some(t) = tool() else { return };
    // SAFETY: as in `begin`.
    let Some(c) = (unsafe { (t.counters)().as_mut() }) else { return };
    let me = ctx as *const Ctx as usize;
    let open = OPEN.with(|o| {
        let mut o = o.borrow_mut();
        let i = o.iter().rposition(|e| e.ctx == me)?;
        Some(o.remove(i))
    });
    let Some(open) = open else { return };
    c.region = open.outer_region;
    if ctx.variant >= 0 {
        data.add(
            ctx.variant as usize,
            c.to_device_bytes.wrapping_sub(open.at.to_device_bytes),
            c.from_device_bytes.wrapping_sub(open.at.from_device_bytes),
            c.transfer_ns.wrapping_sub(open.at.transfer_ns),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn averages_per_variant() {
        let d = RegionData::new(2);
        assert_eq!(d.movement(0), None);
        d.add(1, 100, 10, 1000);
        d.add(1, 300, 30, 3000);
        let m = d.movement(1).unwrap();
        assert_eq!(m, Movement { executions: 2, to_device_bytes: 200.0, from_device_bytes: 20.0, transfer_ns: 2000.0 });
        assert_eq!(d.movement(0), None);
        assert_eq!(d.movement(7), None);
    }

    #[test]
    fn no_tool_no_effect() {
        // The test binary has no dataperf tool loaded.
        assert!(tool().is_none());
        let data = RegionData::new(1);
        let ctx = Ctx::zeroed();
        begin(&data, "df", &ctx);
        end(&data, &ctx);
        assert_eq!(data.movement(0), None);
    }
}
