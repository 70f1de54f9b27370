//! The runtime as an OMPT tool: it learns every device mapping of the process from the data
//! operations libomptarget reports ([`crate::mappings`]), so that the `cpu` variant copies
//! exactly what was mapped.
//!
//! libomp starts a tool once, when it initialises, through the first `ompt_start_tool` the
//! process defines. The generated code's support functions define one (plugin/include/
//! ompadapt_lowering.h): in a program that offloads (libomptarget is in the process) it loads the
//! runtime and calls [`start`] (through the table, or `ompadapt_ompt_start_tool`), passing the `ompt_start_tool` that would have
//! been found next (a preloaded tool's, or libomp's own, which finds none); elsewhere it only
//! passes the call on. One process has one tool, so this one makes room for another: the next
//! `ompt_start_tool`, else the first library of `OMP_TOOL_LIBRARIES` that starts one (as libomp
//! would have), is started too and initialised with a lookup function whose `ompt_set_callback`
//! shares the callback both use (the data operations); every other callback it registers goes
//! straight to libomp. `ompadapt-dataperf` keeps working beside it.
#![allow(non_upper_case_globals)] // the OMPT constants keep their C names

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

use ompadapt_abi::openmp;
use ompadapt_ompt::*;

use crate::mappings;

/// `ompt_start_tool`'s type.
pub type StartTool = unsafe extern "C" fn(c_uint, *const c_char) -> *mut ompt_start_tool_result_t;

/// The other tool started beside this one (null: none).
static OTHER: AtomicPtr<ompt_start_tool_result_t> = AtomicPtr::new(std::ptr::null_mut());
/// libomp's lookup function and `ompt_set_callback`, for the other tool's calls.
static LOOKUP: OnceLock<ompt_function_lookup_t> = OnceLock::new();
static SET_CALLBACK: OnceLock<ompt_set_callback_t> = OnceLock::new();
/// The other tool's data-operation callback (0: none).
static OTHER_DATA_OP: AtomicUsize = AtomicUsize::new(0);

struct ResultCell(std::cell::UnsafeCell<ompt_start_tool_result_t>);
// SAFETY: libomp reads the result and writes `tool_data` while starting the tool, before any
// other thread exists; nothing else touches it.
unsafe impl Sync for ResultCell {}
static RESULT: ResultCell = ResultCell(std::cell::UnsafeCell::new(ompt_start_tool_result_t {
    initialize: Some(initialize),
    finalize: Some(finalize),
    tool_data: ompt_data_t { value: 0 },
}));

/// `ompt_start_tool` of the runtime (`ompadapt_ompt_start_tool`, API version 4): starts
/// the tool `next` or `OMP_TOOL_LIBRARIES` name, if any, to share the process with, and returns
/// this tool's start result.
///
/// # Safety
/// Called by the generated code's `ompt_start_tool` while libomp initialises, with libomp's
/// arguments; `next` is null or a function of `ompt_start_tool`'s type.
pub unsafe fn start(
    omp_version: c_uint,
    runtime_version: *const c_char,
    next: Option<StartTool>,
) -> *mut ompt_start_tool_result_t {
    let other = match next.map(|f| f(omp_version, runtime_version)).filter(|r| !r.is_null()) {
        Some(r) => r,
        None => from_tool_libraries(omp_version, runtime_version),
    };
    OTHER.store(other, Relaxed);
    RESULT.0.get()
}

/// The first tool of `OMP_TOOL_LIBRARIES` (a list of libraries separated by ':') that starts,
/// as libomp looks for it when no `ompt_start_tool` of the process starts one.
unsafe fn from_tool_libraries(omp_version: c_uint, runtime_version: *const c_char) -> *mut ompt_start_tool_result_t {
    let Some(list) = std::env::var_os("OMP_TOOL_LIBRARIES") else { return std::ptr::null_mut() };
    for lib in list.to_string_lossy().split(':').filter(|l| !l.is_empty()) {
        let Ok(path) = std::ffi::CString::new(lib) else { continue };
        let handle = libc::dlopen(path.as_ptr(), libc::RTLD_LAZY);
        if handle.is_null() {
            continue;
        }
        let f = libc::dlsym(handle, openmp::START_TOOL.as_ptr());
        if f.is_null() {
            continue;
        }
        let start: StartTool = std::mem::transmute::<*mut c_void, StartTool>(f);
        let r = start(omp_version, runtime_version);
        if !r.is_null() {
            return r;
        }
    }
    std::ptr::null_mut()
}

unsafe extern "C" fn initialize(lookup: ompt_function_lookup_t, initial_device_num: c_int, _tool_data: *mut ompt_data_t) -> c_int {
    let Some(find) = lookup else { return 0 };
    let set: ompt_set_callback_t = std::mem::transmute::<ompt_interface_fn_t, ompt_set_callback_t>(find(openmp::SET_CALLBACK.as_ptr()));
    let _ = LOOKUP.set(lookup);
    let _ = SET_CALLBACK.set(set);
    if let Some(set) = set {
        let cb = std::mem::transmute::<ompt_callback_target_data_op_emi_t, ompt_callback_t>(Some(on_data_op));
        if set(ompt_callback_target_data_op_emi, cb) == ompt_set_always {
            mappings::set_active();
        }
    }
    let other = OTHER.load(Relaxed);
    if let Some(init) = other.as_mut().and_then(|o| o.initialize) {
        if init(Some(other_lookup), initial_device_num, &mut (*other).tool_data) == 0 {
            // the other tool declined: it gets no more calls
            OTHER_DATA_OP.store(0, Relaxed);
            OTHER.store(std::ptr::null_mut(), Relaxed);
        }
    }
    1
}

unsafe extern "C" fn finalize(_tool_data: *mut ompt_data_t) {
    let other = OTHER.load(Relaxed);
    if let Some(fini) = other.as_mut().and_then(|o| o.finalize) {
        fini(&mut (*other).tool_data);
    }
}

/// The other tool's lookup: libomp's, but for `ompt_set_callback`.
unsafe extern "C" fn other_lookup(name: *const c_char) -> ompt_interface_fn_t {
    if !name.is_null() && CStr::from_ptr(name) == openmp::SET_CALLBACK {
        let f: ompt_set_callback_t = Some(other_set_callback);
        return std::mem::transmute::<ompt_set_callback_t, ompt_interface_fn_t>(f);
    }
    match LOOKUP.get().copied().flatten() {
        Some(find) => find(name),
        None => None,
    }
}

/// The other tool's `ompt_set_callback`: the data-operation callback is this tool's too, and
/// calls the other's after its own; every other event goes to libomp.
unsafe extern "C" fn other_set_callback(event: ompt_callbacks_t, callback: ompt_callback_t) -> ompt_set_result_t {
    if event == ompt_callback_target_data_op_emi {
        let f = callback.map_or(0, |f| f as usize);
        OTHER_DATA_OP.store(f, Relaxed);
        return ompt_set_always;
    }
    match SET_CALLBACK.get().copied().flatten() {
        Some(set) => set(event, callback),
        None => 0, // ompt_set_error
    }
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn on_data_op(
    endpoint: ompt_scope_endpoint_t,
    target_task_data: *mut ompt_data_t,
    target_data: *mut ompt_data_t,
    host_op_id: *mut ompt_id_t,
    optype: ompt_target_data_op_t,
    src_addr: *mut c_void,
    src_device: c_int,
    dest_addr: *mut c_void,
    dest_device: c_int,
    bytes: usize,
    codeptr_ra: *const c_void,
) {
    if endpoint == ompt_scope_end {
        record(optype, src_addr as usize, src_device, dest_addr as usize, dest_device, bytes);
    }
    let other = OTHER_DATA_OP.load(Relaxed);
    if other != 0 {
        let f = std::mem::transmute::<usize, ompt_callback_target_data_op_emi_t>(other);
        if let Some(f) = f {
            f(endpoint, target_task_data, target_data, host_op_id, optype, src_addr, src_device, dest_addr, dest_device, bytes, codeptr_ra);
        }
    }
}

/// What an ended data operation changes in the table of mappings (libomptarget 19): an
/// allocation or association gives host address, device address and bytes; a deletion or
/// disassociation gives the device address.
fn record(optype: ompt_target_data_op_t, src: usize, src_device: c_int, dest: usize, dest_device: c_int, bytes: usize) {
    match optype {
        ompt_target_data_alloc | ompt_target_data_alloc_async | ompt_target_data_associate => {
            mappings::allocated(dest_device, src, dest, bytes)
        }
        ompt_target_data_delete | ompt_target_data_delete_async => mappings::deleted(src_device, src),
        ompt_target_data_disassociate => {
            mappings::deleted(src_device, src);
            mappings::deleted(dest_device, dest);
        }
        _ => {}
    }
}
