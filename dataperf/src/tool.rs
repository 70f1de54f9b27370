//! The OMPT tool: `ompt_start_tool`, the target callbacks, and the report at finalisation.
//!
//! libomptarget 19 reports, per target construct, `ompt_callback_target_emi` (begin/end, with
//! the construct's return address), then each data operation through
//! `ompt_callback_target_data_op_emi` (begin/end; deletes carry 0 bytes, the host is device
//! `omp_get_num_devices()`), and each kernel launch through
//! `ompt_callback_target_submit_emi`. Begin timestamps travel in the `host_op_id` the runtime
//! hands to both endpoints; the construct's site and device travel in its `target_data`.
//! Work in a callback: two clock reads, the content hash of a transfer's host side, and a
//! short critical section that folds the event into the analysis.

#![allow(non_upper_case_globals)] // the OMPT constants keep their C names

use std::cell::UnsafeCell;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

use crate::analysis::{Analyzer, Limits};
use crate::config::{warn, Config, Output};
use crate::counters;
use crate::event::{DataOp, Kernel, OpKind, RegionId, SiteId};
use crate::intercept;
use crate::ompt::*;
use crate::report::Report;
use crate::sites::{Construct, MapType, Sites, Vars};
use crate::unwind;

/// What the callbacks fold events into, under one lock.
struct State {
    analyzer: Analyzer,
    sites: Sites,
    vars: Vars,
}

/// The tool's configuration and state, from `ompt_start_tool` to finalisation.
pub struct Tool {
    cfg: Config,
    analyze: bool,
    state: Mutex<State>,
    finished: AtomicBool,
    host: AtomicI32,
    start_ns: AtomicU64,
    hashed_bytes: AtomicU64,
    hash_ns: AtomicU64,
}

static TOOL: OnceLock<Tool> = OnceLock::new();

fn clock_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Tool {
    fn new(cfg: Config) -> Tool {
        // Fixed-size tables take most of the cap; names and sites a little.
        let limits = Limits::for_budget(cfg.mem_cap / 100 * 80);
        let analyze = cfg.output != Output::CountersOnly;
        Tool {
            analyze,
            state: Mutex::new(State {
                analyzer: Analyzer::new(if analyze { limits } else { Limits::for_budget(0) }),
                sites: Sites::new(1 << 16),
                vars: Vars::new(1 << 16),
            }),
            cfg,
            finished: AtomicBool::new(false),
            host: AtomicI32::new(-1),
            start_ns: AtomicU64::new(clock_ns()),
            hashed_bytes: AtomicU64::new(0),
            hash_ns: AtomicU64::new(0),
        }
    }

    fn now(&self) -> u64 {
        clock_ns().saturating_sub(self.start_ns.load(Relaxed))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Builds and writes the report the configuration asks for.
    fn report(&self, wall_ns: u64) {
        if self.cfg.output == Output::CountersOnly {
            return;
        }
        let mut s = self.lock();
        s.analyzer.finish();
        let sites = std::mem::take(&mut s.sites.info);
        let vars = std::mem::take(&mut s.vars.info);
        let hashed = (self.hashed_bytes.load(Relaxed), self.hash_ns.load(Relaxed));
        Report::build(&s.analyzer, &sites, &vars, wall_ns, self.cfg.mem_cap, hashed).write(&self.cfg);
    }
}

fn tool() -> Option<&'static Tool> {
    let t = TOOL.get()?;
    (!t.finished.load(Relaxed)).then_some(t)
}

fn hash(p: *const c_void, bytes: usize) -> u128 {
    // SAFETY: OMPT reports a transfer from/to `bytes` bytes of live host memory, which the
    // program cannot touch before the transfer returns.
    let data = unsafe { std::slice::from_raw_parts(p as *const u8, bytes) };
    twox_hash::XxHash3_128::oneshot(data)
}

unsafe extern "C" fn on_target(
    kind: ompt_target_t,
    endpoint: ompt_scope_endpoint_t,
    device: c_int,
    _task_data: *mut ompt_data_t,
    _target_task_data: *mut ompt_data_t,
    target_data: *mut ompt_data_t,
    codeptr_ra: *const c_void,
) {
    let Some(t) = tool() else { return };
    if t.cfg.trace {
        eprintln!("ompadapt-dataperf: target kind={kind} endpoint={endpoint} device={device} ra={codeptr_ra:?}");
    }
    if endpoint != ompt_scope_begin || target_data.is_null() {
        return;
    }
    let call = intercept::current(codeptr_ra as usize);
    let (site, seen_before) = {
        let mut s = t.lock();
        let site = s.sites.intern(codeptr_ra as usize, Construct::from_ompt(kind));
        if let Some(call) = call.filter(|_| site != 0) {
            let info = &mut s.sites.info[site as usize];
            if info.source.is_none() {
                info.entry = call.entry;
                info.source = call.psource();
            }
        }
        (site, site == 0 || s.sites.info[site as usize].caller_ra.is_some())
    };
    if !seen_before && t.analyze {
        // Once per construct, outside the lock: the stack names the caller of its function.
        let caller = unwind::caller_of(codeptr_ra as usize);
        t.lock().sites.info[site as usize].caller_ra = Some(caller);
    }
    (*target_data).value = (u64::from(site) << 32) | u64::from(device as u32);
}

unsafe extern "C" fn on_submit(
    endpoint: ompt_scope_endpoint_t,
    target_data: *mut ompt_data_t,
    host_op_id: *mut ompt_id_t,
    _requested_num_teams: c_uint,
) {
    let Some(t) = tool() else { return };
    let now = t.now();
    let packed = if target_data.is_null() { 0 } else { (*target_data).value };
    let (site, device) = ((packed >> 32) as SiteId, packed as u32 as i32);
    if t.cfg.trace {
        eprintln!("ompadapt-dataperf: submit endpoint={endpoint} device={device} site={site}");
    }
    if endpoint == ompt_scope_begin {
        if !host_op_id.is_null() {
            *host_op_id = now;
        }
        if t.analyze {
            t.lock().analyzer.kernel_begin(device);
        }
        return;
    }
    let begin = if host_op_id.is_null() { now } else { (*host_op_id).min(now) };
    if t.analyze {
        let region = counters::with(|c| c.region);
        t.lock().analyzer.kernel_end(&Kernel { device, site, region, begin, end: now });
    }
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn on_data_op(
    endpoint: ompt_scope_endpoint_t,
    _target_task_data: *mut ompt_data_t,
    _target_data: *mut ompt_data_t,
    host_op_id: *mut ompt_id_t,
    optype: ompt_target_data_op_t,
    src_addr: *mut c_void,
    src_device: c_int,
    dest_addr: *mut c_void,
    dest_device: c_int,
    bytes: usize,
    codeptr_ra: *const c_void,
) {
    let Some(t) = tool() else { return };
    if counters::in_runtime_copies() {
        return;
    }
    if endpoint == ompt_scope_begin {
        if !host_op_id.is_null() {
            *host_op_id = t.now();
        }
        return;
    }
    let end = t.now();
    let begin = if host_op_id.is_null() { end } else { (*host_op_id).min(end) };
    if t.cfg.trace {
        eprintln!(
            "ompadapt-dataperf: data op {optype} {src_addr:?}@{src_device} -> {dest_addr:?}@{dest_device} {bytes} bytes {}ns ra={codeptr_ra:?}",
            end - begin
        );
    }
    let Some(mut kind) = op_kind(optype) else { return };
    let host = t.host_device(kind, src_device, dest_device);
    if kind.is_transfer() && host >= 0 && src_device != host && dest_device != host {
        kind = OpKind::DeviceToDevice;
    }
    let bytes64 = bytes as u64;
    let region = count_in_thread(kind, bytes64, end - begin);
    if !t.analyze {
        return;
    }
    let hash = t.host_side_hash(kind, src_addr, dest_addr, bytes, end);
    let (name, map_type) = map_name(kind, src_addr, dest_addr, bytes64, codeptr_ra);
    let mut s = t.lock();
    let site = s.sites.intern(codeptr_ra as usize, Construct::Api);
    let var = s.vars.intern(name, map_type.map(MapType));
    s.analyzer.data_op(&DataOp {
        kind,
        src_dev: src_device,
        dst_dev: dest_device,
        src_addr: src_addr as u64,
        dst_addr: dest_addr as u64,
        bytes: bytes64,
        site,
        var,
        region,
        begin,
        end,
        hash,
    });
}

/// The operation an OMPT data-op type is (`None`: one the analysis does not follow).
fn op_kind(optype: ompt_target_data_op_t) -> Option<OpKind> {
    Some(match optype {
        ompt_target_data_alloc | ompt_target_data_alloc_async => OpKind::Alloc,
        ompt_target_data_transfer_to_device | ompt_target_data_transfer_to_device_async => OpKind::ToDevice,
        ompt_target_data_transfer_from_device | ompt_target_data_transfer_from_device_async => OpKind::FromDevice,
        ompt_target_data_delete | ompt_target_data_delete_async => OpKind::Delete,
        ompt_target_data_associate => OpKind::Associate,
        ompt_target_data_disassociate => OpKind::Disassociate,
        _ => return None,
    })
}

/// Adds the operation to the calling thread's counters (what the runtime reads per region);
/// returns the adaptive region it ran in.
fn count_in_thread(kind: OpKind, bytes: u64, ns: u64) -> RegionId {
    counters::with(|c| {
        match kind {
            OpKind::ToDevice => {
                c.to_device_bytes += bytes;
                c.transfer_ns += ns;
                c.transfers += 1;
            }
            OpKind::FromDevice | OpKind::DeviceToDevice => {
                c.from_device_bytes += bytes;
                c.transfer_ns += ns;
                c.transfers += 1;
            }
            OpKind::Alloc => {
                c.alloc_bytes += bytes;
                c.allocs += 1;
            }
            _ => {}
        }
        c.region
    })
}

/// The map-clause name and map type the entry-point stubs saw for the operation's host address
/// (a null name when none).
///
/// # Safety
/// Only inside a data-op callback: the entry point that issued the operation is running.
unsafe fn map_name(
    kind: OpKind,
    src_addr: *mut c_void,
    dest_addr: *mut c_void,
    bytes: u64,
    codeptr_ra: *const c_void,
) -> (*const c_char, Option<u64>) {
    let host_addr = match kind {
        OpKind::Alloc | OpKind::ToDevice | OpKind::Associate => src_addr,
        OpKind::FromDevice => dest_addr,
        _ => std::ptr::null_mut(),
    };
    match intercept::current(codeptr_ra as usize) {
        Some(call) => call.name_of(host_addr as usize, bytes),
        None => (std::ptr::null(), None),
    }
}

impl Tool {
    /// The host's device number, from the first operation that shows it (-1 until then).
    fn host_device(&self, kind: OpKind, src_device: c_int, dest_device: c_int) -> i32 {
        let mut host = self.host.load(Relaxed);
        if host < 0 {
            host = match kind {
                OpKind::ToDevice | OpKind::Alloc => src_device,
                OpKind::FromDevice => dest_device,
                _ => -1,
            };
            if host >= 0 {
                self.host.store(host, Relaxed);
            }
        }
        host
    }

    /// The content hash of a transfer's host side (`None` for other operations), its cost
    /// counted from `end`, when the operation ended.
    fn host_side_hash(&self, kind: OpKind, src_addr: *mut c_void, dest_addr: *mut c_void, bytes: usize, end: u64) -> Option<u128> {
        let host_side = match kind {
            OpKind::ToDevice => src_addr,
            OpKind::FromDevice => dest_addr,
            _ => std::ptr::null_mut(),
        };
        (!host_side.is_null() && bytes > 0).then(|| {
            let h = hash(host_side, bytes);
            self.hashed_bytes.fetch_add(bytes as u64, Relaxed);
            self.hash_ns.fetch_add(self.now().saturating_sub(end), Relaxed);
            h
        })
    }
}

unsafe extern "C" fn initialize(lookup: ompt_function_lookup_t, _initial_device: c_int, _data: *mut ompt_data_t) -> c_int {
    let Some(t) = TOOL.get() else { return 0 };
    let Some(lookup) = lookup else { return 0 };
    let set = lookup(ompadapt_abi::openmp::SET_CALLBACK.as_ptr());
    if set.is_none() {
        warn("the OpenMP runtime has no ompt_set_callback; the tool stays off");
        return 0;
    }
    // SAFETY: ompt_set_callback has this type (OpenMP 5.1, 19.6.1).
    let set: ompt_set_callback_t = std::mem::transmute(set);
    let set = set.unwrap();
    let target: ompt_callback_target_emi_t = Some(on_target);
    let data_op: ompt_callback_target_data_op_emi_t = Some(on_data_op);
    let submit: ompt_callback_target_submit_emi_t = Some(on_submit);
    let registered = [
        set(ompt_callback_target_emi, std::mem::transmute::<ompt_callback_target_emi_t, ompt_callback_t>(target)),
        set(ompt_callback_target_data_op_emi, std::mem::transmute::<ompt_callback_target_data_op_emi_t, ompt_callback_t>(data_op)),
        set(ompt_callback_target_submit_emi, std::mem::transmute::<ompt_callback_target_submit_emi_t, ompt_callback_t>(submit)),
    ];
    if registered.iter().any(|&r| r == ompt_set_never || r == ompt_set_error) {
        warn(&format!(
            "the OpenMP runtime does not report target events (ompt_set_callback answered {registered:?}); no data-movement analysis"
        ));
        return 0;
    }
    t.start_ns.store(clock_ns(), Relaxed);
    counters::ACTIVE.store(true, Relaxed);
    1
}

unsafe extern "C" fn finalize(_data: *mut ompt_data_t) {
    let Some(t) = TOOL.get() else { return };
    if t.finished.swap(true, Relaxed) {
        return;
    }
    counters::ACTIVE.store(false, Relaxed);
    let wall_ns = clock_ns().saturating_sub(t.start_ns.load(Relaxed));
    // Never unwind into the OpenMP runtime: a failure to report is one line on stderr.
    let r = std::panic::catch_unwind(|| t.report(wall_ns));
    if r.is_err() {
        warn("internal error while writing the report; no report");
    }
}

struct ResultCell(UnsafeCell<ompt_start_tool_result_t>);
// SAFETY: written by the OpenMP runtime only through the pointer handed out once.
unsafe impl Sync for ResultCell {}

static RESULT: ResultCell = ResultCell(UnsafeCell::new(ompt_start_tool_result_t {
    initialize: Some(initialize),
    finalize: Some(finalize),
    tool_data: ompt_data_t { value: 0 },
}));

/// The OMPT entry point: libomp calls it once at start-up. Returns NULL (no tool, no cost)
/// unless `OMPADAPT_DATA` asks for the analysis.
///
/// # Safety
/// Called by the OpenMP runtime as OpenMP 5.1 section 19.2.1 specifies.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ompt_start_tool(_omp_version: c_uint, _runtime_version: *const c_char) -> *mut ompt_start_tool_result_t {
    let Some(cfg) = Config::from_env() else { return std::ptr::null_mut() };
    if TOOL.set(Tool::new(cfg)).is_err() {
        return std::ptr::null_mut();
    }
    RESULT.0.get()
}

/// Whether `ompt_start_tool` has been called and enabled the tool (for tests).
pub fn started() -> bool {
    TOOL.get().is_some()
}
