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
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

use rustc_hash::FxHashMap;

use crate::analysis::{Analyzer, Limits};
use crate::config::{warn, Config, Output};
use crate::counters;
use crate::event::{DataOp, Kernel, OpKind, SiteId, VarId};
use crate::intercept;
use crate::ompt::*;

/// What kind of code a site is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Construct {
    Target,
    EnterData,
    ExitData,
    Update,
    /// A device memory routine (omp_target_alloc, omp_target_memcpy, ...), no construct.
    Api,
}

impl Construct {
    fn from_ompt(kind: ompt_target_t) -> Construct {
        match kind {
            ompt_target | ompt_target_nowait => Construct::Target,
            ompt_target_enter_data | ompt_target_enter_data_nowait => Construct::EnterData,
            ompt_target_exit_data | ompt_target_exit_data_nowait => Construct::ExitData,
            ompt_target_update | ompt_target_update_nowait => Construct::Update,
            _ => Construct::Api,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Construct::Target => "target",
            Construct::EnterData => "target enter data",
            Construct::ExitData => "target exit data",
            Construct::Update => "target update",
            Construct::Api => "device memory routine",
        }
    }
}

#[derive(Clone, Debug)]
pub struct SiteInfo {
    pub ra: usize,
    pub construct: Construct,
    /// Kernel launches seen through the entry-point stubs: the offload entry's address.
    pub entry: usize,
    /// The construct's `;file;function;line;column;;` from the compiler (entry-point stubs).
    pub source: Option<String>,
}

/// Interned return addresses; id 0 is "unknown or too many".
pub struct Sites {
    index: FxHashMap<usize, SiteId>,
    pub info: Vec<SiteInfo>,
    cap: usize,
}

impl Sites {
    fn new(cap: usize) -> Self {
        Sites { index: FxHashMap::default(), info: vec![SiteInfo { ra: 0, construct: Construct::Api, entry: 0, source: None }], cap }
    }

    fn intern(&mut self, ra: usize, construct: Construct) -> SiteId {
        if ra == 0 {
            return 0;
        }
        if let Some(&id) = self.index.get(&ra) {
            // A data operation may be seen before its construct: the construct wins.
            if construct != Construct::Api {
                self.info[id as usize].construct = construct;
            }
            return id;
        }
        if self.info.len() >= self.cap {
            return 0;
        }
        let id = self.info.len() as SiteId;
        self.info.push(SiteInfo { ra, construct, entry: 0, source: None });
        self.index.insert(ra, id);
        id
    }
}

/// Interned map-clause names, keyed by the address of the compiler's string.
pub struct Vars {
    index: FxHashMap<usize, VarId>,
    pub names: Vec<String>,
    cap: usize,
}

impl Vars {
    fn new(cap: usize) -> Self {
        Vars { index: FxHashMap::default(), names: vec![String::new()], cap }
    }

    /// # Safety
    /// `p` is null or a NUL-terminated string.
    unsafe fn intern(&mut self, p: *const c_char) -> VarId {
        if p.is_null() {
            return 0;
        }
        if let Some(&id) = self.index.get(&(p as usize)) {
            return id;
        }
        if self.names.len() >= self.cap {
            return 0;
        }
        let raw = CStr::from_ptr(p).to_string_lossy();
        let id = self.names.len() as VarId;
        self.names.push(intercept::mapname(&raw).to_owned());
        self.index.insert(p as usize, id);
        id
    }
}

pub struct State {
    pub analyzer: Analyzer,
    pub sites: Sites,
    pub vars: Vars,
}

pub struct Tool {
    pub cfg: Config,
    analyze: bool,
    pub state: Mutex<State>,
    finished: AtomicBool,
    host: AtomicI32,
    start_ns: AtomicU64,
    pub hashed_bytes: AtomicU64,
    pub hash_ns: AtomicU64,
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
    let site = {
        let mut s = t.lock();
        let site = s.sites.intern(codeptr_ra as usize, Construct::from_ompt(kind));
        if let Some(call) = call.filter(|_| site != 0) {
            let info = &mut s.sites.info[site as usize];
            if info.source.is_none() {
                info.entry = call.entry;
                info.source = call.psource();
            }
        }
        site
    };
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
    let mut kind = match optype {
        ompt_target_data_alloc | ompt_target_data_alloc_async => OpKind::Alloc,
        ompt_target_data_transfer_to_device | ompt_target_data_transfer_to_device_async => OpKind::ToDevice,
        ompt_target_data_transfer_from_device | ompt_target_data_transfer_from_device_async => OpKind::FromDevice,
        ompt_target_data_delete | ompt_target_data_delete_async => OpKind::Delete,
        ompt_target_data_associate => OpKind::Associate,
        ompt_target_data_disassociate => OpKind::Disassociate,
        _ => return,
    };
    // The host's device number, from the first operation that shows it.
    let mut host = t.host.load(Relaxed);
    if host < 0 {
        host = match kind {
            OpKind::ToDevice | OpKind::Alloc => src_device,
            OpKind::FromDevice => dest_device,
            _ => -1,
        };
        if host >= 0 {
            t.host.store(host, Relaxed);
        }
    }
    if kind.is_transfer() && host >= 0 && src_device != host && dest_device != host {
        kind = OpKind::DeviceToDevice;
    }
    let ns = end - begin;
    let bytes64 = bytes as u64;
    let region = counters::with(|c| {
        match kind {
            OpKind::ToDevice => {
                c.to_device_bytes += bytes64;
                c.transfer_ns += ns;
                c.transfers += 1;
            }
            OpKind::FromDevice | OpKind::DeviceToDevice => {
                c.from_device_bytes += bytes64;
                c.transfer_ns += ns;
                c.transfers += 1;
            }
            OpKind::Alloc => {
                c.alloc_bytes += bytes64;
                c.allocs += 1;
            }
            _ => {}
        }
        c.region
    });
    if !t.analyze {
        return;
    }
    let host_side = match kind {
        OpKind::ToDevice => src_addr,
        OpKind::FromDevice => dest_addr,
        _ => std::ptr::null_mut(),
    };
    let hash = (!host_side.is_null() && bytes > 0).then(|| {
        let h = hash(host_side, bytes);
        t.hashed_bytes.fetch_add(bytes64, Relaxed);
        t.hash_ns.fetch_add(t.now().saturating_sub(end), Relaxed);
        h
    });
    let host_addr = match kind {
        OpKind::Alloc | OpKind::ToDevice | OpKind::Associate => src_addr,
        OpKind::FromDevice => dest_addr,
        _ => std::ptr::null_mut(),
    };
    let name = match intercept::current(codeptr_ra as usize) {
        Some(call) => call.name_of(host_addr as usize, bytes64),
        None => std::ptr::null(),
    };
    let mut s = t.lock();
    let site = s.sites.intern(codeptr_ra as usize, Construct::Api);
    let var = s.vars.intern(name);
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

unsafe extern "C" fn initialize(lookup: ompt_function_lookup_t, _initial_device: c_int, _data: *mut ompt_data_t) -> c_int {
    let Some(t) = TOOL.get() else { return 0 };
    let Some(lookup) = lookup else { return 0 };
    let set = lookup(c"ompt_set_callback".as_ptr());
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
    let r = std::panic::catch_unwind(|| crate::report::emit(t, wall_ns));
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
