//! The C ABI (`include/ompadapt.h`). Every entry point catches panics: a bug in the runtime
//! degrades the region to its fallback variant ([`Region::fallback_variant`]) instead of unwinding into C (undefined behaviour)
//! or aborting the host program.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_long, c_uint, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

use crate::ctx::{Ctx, API_VERSION};
use crate::diag;
use crate::program_memo::MemoEntry;
use crate::region::Region;
use crate::registry;
use crate::spec::CallArgs;

/// `ompadapt_begin`: finds or creates the region (cached in `*slot`); the region does the rest
/// ([`Region::enter`]: copies the features, selects a variant, starts the clock).
///
/// # Safety
/// `slot` is null or points to a `void*` initialised to NULL and only written by the runtime;
/// `spec` is null or a NUL-terminated string; `features` is null or points to `nfeatures`
/// doubles; `ctx` is null or points to writable memory for an `ompadapt_ctx`.
#[export_name = "ompadapt_begin_v5"]
pub unsafe extern "C" fn ompadapt_begin(
    slot: *mut *mut c_void,
    spec: *const c_char,
    min_train: c_long,
    model_param1: c_long,
    model_param2: c_long,
    features: *const f64,
    nfeatures: c_int,
    ctx: *mut Ctx,
) {
    // the trained path's memo (`region::memo`): no panic can happen there, and everything
    // but a plain trained execution of a vector seen lately goes on below
    if let (Some(c), Some(r)) = (ctx.as_mut(), region_in_slot(slot)) {
        if r.begin_memo(features, nfeatures, c) {
            return;
        }
    }
    begin_full(slot, spec, min_train, model_param1, model_param2, features, nfeatures, ctx)
}

/// `ompadapt_begin` when the memo did not start the execution. Out of line, so that the memo's
/// path saves no registers.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn begin_full(
    slot: *mut *mut c_void,
    spec: *const c_char,
    min_train: c_long,
    model_param1: c_long,
    model_param2: c_long,
    features: *const f64,
    nfeatures: c_int,
    ctx: *mut Ctx,
) {
    if ctx.is_null() {
        return;
    }
    let ok = catch_unwind(AssertUnwindSafe(|| {
        begin(slot, spec, CallArgs { min_train, model_params: [model_param1, model_param2] }, features, nfeatures, &mut *ctx)
    }));
    if ok.is_err() {
        // the variant that runs when nothing decides, not recorded (region NULL makes `end` a no-op)
        Region::fall_back(region_in_slot(slot), &mut *ctx);
    }
}

unsafe fn region_in_slot(slot: *mut *mut c_void) -> Option<&'static Region> {
    if slot.is_null() {
        return None;
    }
    // SAFETY: the slot is pointer-aligned, and only ever written through atomics by the runtime.
    let p = AtomicPtr::from_ptr(slot).load(Ordering::Acquire);
    (p as *const Region).as_ref()
}

#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn begin(slot: *mut *mut c_void, spec: *const c_char, args: CallArgs, features: *const f64, nfeatures: c_int, ctx: &mut Ctx) {
    let region = match region_in_slot(slot) {
        Some(r) => r,
        None => first_call(slot, spec, args, ctx),
    };
    let n = if features.is_null() || nfeatures <= 0 { 0 } else { nfeatures as usize };
    let feats = if n == 0 { &[][..] } else { std::slice::from_raw_parts(features, n) };
    region.enter(feats, &|a| registry::global().primary_of(a), ctx);
}

/// The slow path, once per call site: parses the descriptor, finds or creates the region and
/// publishes it in the slot. Out of line, so that the per-call path stays small.
#[cold]
#[inline(never)]
unsafe fn first_call(slot: *mut *mut c_void, spec: *const c_char, args: CallArgs, ctx: &Ctx) -> &'static Region {
    let text = if spec.is_null() { None } else { Some(CStr::from_ptr(spec).to_string_lossy()) };
    let instance = text.as_deref().and_then(|t| instance_spec(t, ctx.instance));
    let r = registry::global().lookup(instance.as_deref().or(text.as_deref()), args);
    if !slot.is_null() {
        AtomicPtr::from_ptr(slot).store(r as *const Region as *mut c_void, Ordering::Release);
    }
    r
}

/// The descriptor of the instantiation a region in a template runs in (`instanced=1`): named
/// after the template arguments of `pretty`, the instantiation's `__PRETTY_FUNCTION__` (see
/// [`ompadapt_abi::descriptor::instance_name`]). None: not a template's region, or no arguments.
///
/// # Safety
/// `pretty` is null or a NUL-terminated string (the generated code sets it where the descriptor
/// says `instanced=1`).
unsafe fn instance_spec(spec: &str, pretty: *const c_char) -> Option<String> {
    // the generated code sets `instance` only for these descriptors: elsewhere it is not read
    if !spec.contains(";instanced=1") || pretty.is_null() {
        return None;
    }
    let mut d = ompadapt_abi::RegionDescriptor::parse(spec).ok()?.descriptor;
    d.model = ompadapt_abi::descriptor::instance_name(&d.model, &CStr::from_ptr(pretty).to_string_lossy())?;
    Some(d.to_string())
}

/// The table's `begin_memo` (API version 6): [`ompadapt_begin`], then fills `memo`, the calling
/// thread's entry of the program's memo for this call site and vector, where the program may
/// start the next execution of it itself (see [`crate::program_memo`]).
///
/// # Safety
/// As [`ompadapt_begin`]; `memo` is null or the calling thread's entry.
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn ompadapt_begin_memo(
    slot: *mut *mut c_void,
    spec: *const c_char,
    min_train: c_long,
    model_param1: c_long,
    model_param2: c_long,
    features: *const f64,
    nfeatures: c_int,
    ctx: *mut Ctx,
    memo: *mut MemoEntry,
) {
    // before the execution looks at any decision: a change after it leaves the entry stale
    let generation = crate::program_memo::generation();
    ompadapt_begin(slot, spec, min_train, model_param1, model_param2, features, nfeatures, ctx);
    if let (Some(c), Some(e)) = (ctx.as_ref(), memo.as_mut()) {
        if let Some(r) = (c.region as *const Region).as_ref() {
            r.fill_program_memo(slot as *const c_void, c, generation, e);
        }
    }
}

/// `ompadapt_end`: stops the clock and records the execution started on `ctx`.
///
/// # Safety
/// `ctx` is null or the context a previous `ompadapt_begin` filled.
#[export_name = "ompadapt_end_v5"]
pub unsafe extern "C" fn ompadapt_end(ctx: *mut Ctx) {
    let Some(c) = ctx.as_ref() else { return };
    match (c.region as *const Region).as_ref() {
        None => {}
        // the program's memo started it and counted it (its own `end` returns before this)
        Some(_) if c.t0 == crate::ctx::Start::MEMO_COUNTED => {}
        Some(r) if r.end_memo(c) => {}
        Some(r) => end_full(r, c),
    }
}

/// `ompadapt_end` of an execution that is not a plain trained one (see `region::memo`).
#[inline(never)]
fn end_full(r: &Region, c: &Ctx) {
    let _ = catch_unwind(AssertUnwindSafe(|| r.leave(c)));
}

/// The warning `ompadapt_unlowered_offload_site` prints (once per model).
pub fn unlowered_message(model: &str) -> String {
    format!(
        "region '{model}': the ompadapt pass did not run over its offload site; its 'cpu' variant \
         runs the offload too (compile with -fplugin=libompadapt.so, not just -Xclang -load)"
    )
}

/// `ompadapt_unlowered_offload_site`: warns once per model that the pass did not run.
///
/// # Safety
/// `model` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_unlowered_offload_site(model: *const c_char) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let m = if model.is_null() { "?".into() } else { CStr::from_ptr(model).to_string_lossy() };
        diag::warn_once(&format!("unlowered:{m}"), &unlowered_message(&m));
    }));
}

/// The line printed when a variant becomes unavailable (once per region and variant).
pub fn unavailable_message(model: &str, variant: &str, replacement: Option<&str>, reason: &str) -> String {
    let instead = replacement.map_or(String::new(), |r| format!("; runs '{r}' instead"));
    format!("region '{model}': '{variant}' unavailable in this run: {reason}{instead}")
}

/// Why `ompadapt_variant_unavailable` was called by the program itself.
pub const REPORTED_UNAVAILABLE: &str = "the program reported it unavailable";

/// `ompadapt_variant_unavailable`: the variant selected on `ctx` cannot run in this process;
/// the execution runs `replacement` instead (-1: not recorded).
///
/// # Safety
/// `ctx` is null or a context a previous `ompadapt_begin` filled.
#[export_name = "ompadapt_variant_unavailable_v5"]
pub unsafe extern "C" fn ompadapt_variant_unavailable(ctx: *mut Ctx, replacement: c_int) {
    if !ctx.is_null() {
        unavailable(&mut *ctx, replacement, REPORTED_UNAVAILABLE);
    }
}

/// Marks the variant selected on `c` unavailable for the rest of the run (one line, once) and
/// switches the execution to `replacement`.
unsafe fn unavailable(c: &mut Ctx, replacement: c_int, reason: &str) {
    let v = c.variant;
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let Some(r) = (c.region as *const Region).as_ref() else { return };
        if v < 0 || v as usize >= r.nvariants() {
            return;
        }
        let repl = (replacement >= 0 && (replacement as usize) < r.nvariants() && replacement != v).then_some(replacement as usize);
        if r.mark_unavailable(v as usize, repl, reason) {
            let names = &r.spec.variants;
            diag::warn_once(
                &format!("unavailable:{}:{v}", r.spec.model),
                &unavailable_message(&r.spec.model, &names[v as usize], repl.map(|x| names[x].as_str()), reason),
            );
        }
    }));
    // The execution goes on as `replacement`: `end` records it there (its first execution
    // here is cold), or records nothing; not where the program's memo counted it.
    let region = (c.region as *const Region).as_ref();
    if let Some(r) = region {
        r.uncount(c);
    }
    match region {
        Some(r) if replacement >= 0 && (replacement as usize) < r.nvariants() && replacement != v => {
            let _ = catch_unwind(AssertUnwindSafe(|| r.switch_execution(c, replacement as usize)));
        }
        Some(_) => {
            c.t0.set_unrecorded();
            c.variant = if replacement >= 0 { replacement } else { -1 };
        }
        None => c.variant = replacement,
    }
}

/// `ompadapt_host_enter` returns this when the host version needs no copies.
pub const HOST_RUN_NOTHING: usize = 1;

/// `ompadapt_host_enter`: before the host version of an offload launch (variant `cpu` on
/// `ctx`), makes host memory what the kernel would see on `device` (see [`crate::host_run`]);
/// `globals` holds `nglobals` (start, end) pairs of the `declare target` variables the kernel
/// reaches.
/// Returns what `ompadapt_host_exit` takes after the host version, or NULL when the host
/// version cannot stand in for the launch: then the variant is unavailable for the rest of the
/// run, the execution continues as `replacement`, and the caller launches the offload.
///
/// # Safety
/// `ctx` is null or a context `ompadapt_begin` filled; `kargs` is null or the launch's live
/// `KernelArgsTy`; `globals` is null or holds `2 * nglobals` pointers.
#[export_name = "ompadapt_host_enter_v5"]
pub unsafe extern "C" fn ompadapt_host_enter(
    ctx: *mut Ctx,
    cpu: c_int,
    replacement: c_int,
    device: i64,
    kargs: *const c_void,
    globals: *const *const c_void,
    nglobals: c_int,
) -> *mut c_void {
    if ctx.is_null() || (*ctx).variant != cpu {
        return HOST_RUN_NOTHING as *mut c_void;
    }
    let c = &mut *ctx;
    if crate::trace::on() {
        crate::trace::note_device(ctx as usize, crate::host_run::launch_device(device));
    }
    let t0 = crate::clock::now();
    let globals: Vec<(usize, usize)> = if globals.is_null() || nglobals <= 0 {
        Vec::new()
    } else {
        std::slice::from_raw_parts(globals, 2 * nglobals as usize)
            .chunks(2)
            .map(|p| (p[0] as usize, (p[1] as usize).saturating_sub(p[0] as usize)))
            .collect()
    };
    match catch_unwind(AssertUnwindSafe(|| crate::host_run::enter(device, kargs, &globals))) {
        Ok(Ok(None)) => HOST_RUN_NOTHING as *mut c_void,
        Ok(Ok(Some(mut run))) => {
            run.region = c.region as *const Region;
            run.ticks = crate::clock::now().wrapping_sub(t0);
            Box::into_raw(run) as *mut c_void
        }
        Ok(Err(why)) => {
            unavailable(c, replacement, why.text());
            std::ptr::null_mut()
        }
        Err(_) => {
            unavailable(c, replacement, "internal error while preparing the host version");
            std::ptr::null_mut()
        }
    }
}

/// `ompadapt_host_exit`: after the host version, sends present storage back to the device and
/// restores the host bytes the offload would not have changed. NULL and the no-copy token are
/// ignored.
///
/// # Safety
/// `run` is null, the no-copy token, or what `ompadapt_host_enter` returned for this
/// execution, passed once.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_host_exit(run: *mut c_void) {
    if run.is_null() || run as usize == HOST_RUN_NOTHING {
        return;
    }
    let run = Box::from_raw(run as *mut crate::host_run::HostRun);
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let t0 = crate::clock::now();
        let run = crate::host_run::exit(run);
        if let Some(r) = run.region.as_ref() {
            let ticks = run.ticks + crate::clock::now().wrapping_sub(t0);
            r.host_copies.record(crate::region::CopyCounts {
                runs: 1,
                mapped: run.mapped,
                brought_in: run.brought_in,
                transferred: run.transferred,
                preserved: run.preserved,
                ns: crate::clock::to_ns(ticks),
            });
        }
    }));
}

/// `ompadapt_train`: trains `model` (every region when NULL) now, on what has been measured,
/// even before `min_train_data` is reached. Built with the `mpi` feature and run under MPI with
/// more than one process, it first pools every rank's measurements: a collective, to be called
/// by every rank from one thread. Returns the number of regions trained (0 when nothing could
/// be trained, e.g. no feature vector has every variant measured yet).
///
/// # Safety
/// `model` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_train(model: *const c_char) -> c_int {
    catch_unwind(AssertUnwindSafe(|| {
        let m = if model.is_null() { None } else { Some(CStr::from_ptr(model).to_string_lossy().into_owned()) };
        registry::global().train(m.as_deref()) as c_int
    }))
    .unwrap_or(0)
}

/// `ompadapt_save`: writes what every region learned since the last save (the exit handler
/// saves too; call this where exit handlers may not run, e.g. before `MPI_Finalize` in codes
/// that abort afterwards). Returns the number of files written.
#[no_mangle]
pub extern "C" fn ompadapt_save() -> c_int {
    catch_unwind(|| {
        let g = registry::global();
        if g.config().persist {
            g.save_all(false) as c_int
        } else {
            if crate::env::secure_execution() {
                diag::warn_once(
                    "save:secure",
                    "ompadapt_save: nothing saved: in secure-execution mode (setuid, setgid or file \
                     capabilities) data is saved only in a directory the program names with \
                     ompadapt_set_dir before its first adaptive region",
                );
            }
            0
        }
    })
    .unwrap_or(0)
}

/// `ompadapt_set_dir`: the directory learned data is loaded from and saved to, instead of
/// `$OMPADAPT_DIR` (see [`crate::config::set_program_dir`]). Returns 0, or -1 after one
/// warning line (called too late, NULL or empty, relative in secure-execution mode).
///
/// # Safety
/// `dir` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_set_dir(dir: *const c_char) -> c_int {
    catch_unwind(AssertUnwindSafe(|| {
        use std::os::unix::ffi::OsStrExt;
        let path = if dir.is_null() {
            std::path::PathBuf::new()
        } else {
            std::path::PathBuf::from(std::ffi::OsStr::from_bytes(CStr::from_ptr(dir).to_bytes()))
        };
        match crate::config::set_program_dir(&path) {
            Ok(()) => 0,
            Err(e) => {
                diag::warn(&format!("ompadapt_set_dir: {e}"));
                -1
            }
        }
    }))
    .unwrap_or(-1)
}

/// `struct ompadapt_api`.
#[repr(C)]
pub struct Api {
    /// `OMPADAPT_API_VERSION` ([`API_VERSION`]): which of the entries below exist.
    pub version: c_uint,
    /// [`ompadapt_begin`].
    pub begin: unsafe extern "C" fn(*mut *mut c_void, *const c_char, c_long, c_long, c_long, *const f64, c_int, *mut Ctx),
    /// [`ompadapt_end`].
    pub end: unsafe extern "C" fn(*mut Ctx),
    /// [`ompadapt_unlowered_offload_site`].
    pub unlowered_offload_site: unsafe extern "C" fn(*const c_char),
    /// [`ompadapt_variant_unavailable`] (since version 2).
    pub variant_unavailable: unsafe extern "C" fn(*mut Ctx, c_int),
    /// [`ompadapt_host_enter`] (since version 3).
    pub host_enter: unsafe extern "C" fn(*mut Ctx, c_int, c_int, i64, *const c_void, *const *const c_void, c_int) -> *mut c_void,
    /// [`ompadapt_host_exit`] (since version 3).
    pub host_exit: unsafe extern "C" fn(*mut c_void),
    /// [`ompadapt_ompt_start_tool`] (since version 4).
    pub ompt_start_tool: unsafe extern "C" fn(c_uint, *const c_char, Option<crate::ompt_tool::StartTool>) -> *mut c_void,
    /// `ompadapt_begin_memo` (since version 6): begin, then fills the program's memo entry.
    #[allow(clippy::type_complexity)]
    pub begin_memo:
        unsafe extern "C" fn(*mut *mut c_void, *const c_char, c_long, c_long, c_long, *const f64, c_int, *mut Ctx, *mut MemoEntry),
    /// The generation the program's memo entries are valid for (since version 6).
    pub memo_generation: &'static AtomicU64,
}

/// `ompadapt_rt_api`: the entry points as a table (version [`API_VERSION`]). Its symbol carries
/// the version (`ompadapt.h`): code built for another table or context never finds it.
#[export_name = "ompadapt_rt_api_v6"]
#[allow(non_upper_case_globals)]
pub static ompadapt_rt_api: Api = Api { version: API_VERSION, ..V5_ENTRIES };

/// Version 5's table, for programs built by the previous lowering: the same context, the
/// entries up to `ompt_start_tool` (the rest is there but not read).
#[export_name = "ompadapt_rt_api_v5"]
#[allow(non_upper_case_globals)]
pub static ompadapt_rt_api_v5: Api = V5_ENTRIES;

const V5_ENTRIES: Api = Api {
    version: 5,
    begin: ompadapt_begin,
    end: ompadapt_end,
    unlowered_offload_site: ompadapt_unlowered_offload_site,
    variant_unavailable: ompadapt_variant_unavailable,
    host_enter: ompadapt_host_enter,
    host_exit: ompadapt_host_exit,
    ompt_start_tool: ompadapt_ompt_start_tool,
    begin_memo: ompadapt_begin_memo,
    memo_generation: &crate::program_memo::GENERATION,
};

/// `ompadapt_ompt_start_tool` (API version 4): starts the runtime's OMPT tool, which learns the
/// extent of every device mapping (see [`crate::ompt_tool`]), beside the tool `next` (the
/// `ompt_start_tool` the process would have found next) or `OMP_TOOL_LIBRARIES` start; returns an
/// `ompt_start_tool_result_t *` for libomp.
///
/// # Safety
/// Called while libomp initialises, with its arguments; `next` is null or an `ompt_start_tool`.
#[no_mangle]
pub unsafe extern "C" fn ompadapt_ompt_start_tool(v: c_uint, rv: *const c_char, next: Option<crate::ompt_tool::StartTool>) -> *mut c_void {
    // the runtime is in the process before any region ran: a pin must hear whether one does
    let _ = std::panic::catch_unwind(registry::arm_pin_check);
    crate::ompt_tool::start(v, rv, next).cast()
}

const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(offset_of!(Api, version) == 0);
    assert!(offset_of!(Api, begin) == 8);
    assert!(offset_of!(Api, end) == 16);
    assert!(offset_of!(Api, unlowered_offload_site) == 24);
    assert!(offset_of!(Api, variant_unavailable) == 32);
    assert!(offset_of!(Api, host_enter) == 40);
    assert!(offset_of!(Api, host_exit) == 48);
    assert!(offset_of!(Api, ompt_start_tool) == 56);
    assert!(offset_of!(Api, begin_memo) == 64);
    assert!(offset_of!(Api, memo_generation) == 72);
    assert!(size_of::<Api>() == 80);
};
