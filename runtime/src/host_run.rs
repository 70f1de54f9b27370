//! The `cpu` variant of an offloading construct: clang's host version of the kernel, run on
//! host memory, made to end in exactly the state the offload would leave.
//!
//! What the offload leaves behind, per map entry of the launch (libomptarget 19):
//! - storage already present on the device (mapped by any enclosing or earlier data construct,
//!   in any function or translation unit) changes on the device only; the host copy changes
//!   only through `always from`;
//! - storage the construct maps itself is copied back to the host at its end only if it is
//!   mapped `from`/`tofrom`; `to`/`alloc` storage changes on the device copy, which is freed.
//!
//! So the host version, around its run ([`enter`] before, [`exit`] after):
//! 1. saves the host bytes the offload would not change;
//! 2. brings the device copy of every present mapping the launch reaches into host memory (the
//!    whole mapping: a kernel may index past the section its entry names);
//! 3. runs;
//! 4. sends those mappings back to the device and restores the saved host bytes.
//!
//! Writes through pointer arguments of `declare target` functions need no rule of their own:
//! whatever the kernel writes lies in storage reached from its map entries, and every such
//! byte is either sent back or restored.
//!
//! Extents: a launch inside a data environment passes a pointer as a zero-length entry that
//! says only where the data starts, and libomptarget has no call that returns a mapping's
//! extent. The extent comes from what was mapped: the runtime's OMPT tool records every
//! mapping libomptarget makes, whoever asked for it ([`crate::mappings`]); `omp_get_mapped_ptr`
//! only says whether (and where) an address is present, which checks the record. Nothing is
//! inferred by sampling: two mappings whose host-to-device offsets coincide (adjacent arrays
//! on libomptarget's host plugin) stay two. Where the extent of present storage is not known
//! (no OMPT tool), or a pointer is in no mapping (memory from `omp_target_alloc`,
//! `is_device_ptr`, data the offload would read through a pointer it never mapped), the variant
//! is refused for that execution. The `declare target` variables the kernel reaches come with
//! their extents from the pass.
//!
//! Pointers inside present storage (a struct whose pointer member was attached by `map(s,
//! s.p[0:n])`) hold the pointee's device address on the device: their host values are kept
//! while the host version runs, their device values on the way back, and the pointee's mapping
//! is brought in too (searched in present storage of at most [`POINTER_SCAN_BYTES`], and at
//! every `PTR_AND_OBJ` entry of the launch).

use std::os::raw::{c_int, c_void};
use std::sync::{Mutex, OnceLock};

use ompadapt_abi::openmp;

/// Tells the OMPT tool `libompadapt_dataperf.so`, when loaded, that the calling thread's data
/// operations are this module's copies, not the program's mappings.
fn quiet_dataperf(on: bool) {
    static HOOK: OnceLock<Option<unsafe extern "C" fn(c_int)>> = OnceLock::new();
    let hook = HOOK.get_or_init(|| unsafe {
        let p = libc::dlsym(libc::RTLD_DEFAULT, ompadapt_abi::dataperf::symbols::RUNTIME_COPIES.as_ptr());
        (!p.is_null()).then(|| std::mem::transmute::<*mut c_void, unsafe extern "C" fn(c_int)>(p))
    });
    if let Some(f) = hook {
        unsafe { f(on as c_int) };
    }
}

/// libomptarget's map-type bits (`omptarget.h`).
mod map {
    pub const TO: i64 = 0x01;
    pub const FROM: i64 = 0x02;
    pub const ALWAYS: i64 = 0x04;
    pub const PTR_AND_OBJ: i64 = 0x10;
    pub const PRIVATE: i64 = 0x80;
    pub const IMPLICIT: i64 = 0x200;
    pub const PRESENT: i64 = 0x1000;
    pub const LITERAL: i64 = 0x100;
}

/// Present storage up to this size is searched for attached pointers word by word.
pub const POINTER_SCAN_BYTES: usize = 4096;
/// Pointee mappings followed from attached pointers (depth), and parts per launch at most.
const POINTER_DEPTH: usize = 4;
const MAX_PARTS: usize = 4096;

/// `__tgt_target_data_begin_mapper(loc, device, n, bases, begins, sizes, types, names, mappers)`.
type DataBegin = unsafe extern "C" fn(*mut c_void, i64, i32, *mut c_void, *mut c_void, *mut c_void, *mut c_void, *mut c_void, *mut c_void);

/// The libomptarget/libomp entry points, found in the process (the program links them).
struct Omp {
    get_mapped_ptr: unsafe extern "C" fn(*const c_void, c_int) -> *mut c_void,
    target_memcpy: unsafe extern "C" fn(*mut c_void, *const c_void, usize, usize, usize, c_int, c_int) -> c_int,
    default_device: unsafe extern "C" fn() -> c_int,
    /// `__tgt_target_data_begin_mapper`, with no entries: loads the image ([`Live::load_image`]).
    data_begin: DataBegin,
    initial_device: c_int,
    disabled: bool,
}

fn omp() -> Option<&'static Omp> {
    static OMP: OnceLock<Option<Omp>> = OnceLock::new();
    OMP.get_or_init(|| unsafe {
        let sym = |name: &std::ffi::CStr| {
            let p = libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr());
            (!p.is_null()).then_some(p)
        };
        let get_mapped_ptr = sym(openmp::GET_MAPPED_PTR)?;
        let target_memcpy = sym(openmp::TARGET_MEMCPY)?;
        let default_device = sym(openmp::GET_DEFAULT_DEVICE)?;
        let initial_device = sym(openmp::GET_INITIAL_DEVICE)?;
        let data_begin = sym(openmp::TARGET_DATA_BEGIN_MAPPER)?;
        let initial: unsafe extern "C" fn() -> c_int = std::mem::transmute(initial_device);
        // the launch runs the host fallback on host memory: what the host version does
        let disabled = std::env::var_os("OMP_TARGET_OFFLOAD").is_some_and(|v| v.eq_ignore_ascii_case("disabled"));
        Some(Omp {
            get_mapped_ptr: std::mem::transmute::<*mut c_void, _>(get_mapped_ptr),
            target_memcpy: std::mem::transmute::<*mut c_void, _>(target_memcpy),
            default_device: std::mem::transmute::<*mut c_void, _>(default_device),
            data_begin: std::mem::transmute::<*mut c_void, DataBegin>(data_begin),
            // Not asked when offloading is disabled: a program with no offload image (flang-19
            // builds target constructs without one, and runs them only disabled) never
            // initialised libomptarget, whose omp_get_initial_device then crashes; nothing is
            // copied then anyway.
            initial_device: if disabled { -1 } else { initial() },
            disabled,
        })
    })
    .as_ref()
}

/// The device a launch whose device argument is `device` runs on: `device`, or the default
/// device for -1 (when libomp is in the process).
pub fn launch_device(device: i64) -> i64 {
    match omp() {
        // SAFETY: omp_get_default_device has no preconditions.
        Some(o) if device < 0 => (unsafe { (o.default_device)() }) as i64,
        _ => device,
    }
}

/// One launch's map entry, as `KernelArgsTy` holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Base address (`ArgBasePtrs[i]`; 0 when the launch has none).
    pub base: usize,
    /// Address of the mapped section's first byte (`ArgPtrs[i]`).
    pub begin: usize,
    /// Bytes of the section (`ArgSizes[i]`; 0: a pointer into present storage).
    pub size: i64,
    /// libomptarget's map-type bits (`ArgTypes[i]`).
    pub map_type: i64,
}

/// The entries of a launch's `KernelArgsTy` (libomptarget 19, versions 1-3 share these
/// fields: NumArgs at byte 4, then ArgBasePtrs, ArgPtrs, ArgSizes, ArgTypes).
///
/// # Safety
/// `kargs` is null or points to a live `KernelArgsTy`.
pub unsafe fn entries(kargs: *const c_void) -> Vec<Entry> {
    if kargs.is_null() {
        return Vec::new();
    }
    let k = kargs as *const u8;
    let n = *(k.add(4) as *const u32) as usize;
    let bases = *(k.add(8) as *const *const usize);
    let ptrs = *(k.add(16) as *const *const usize);
    let sizes = *(k.add(24) as *const *const i64);
    let types = *(k.add(32) as *const *const i64);
    if ptrs.is_null() {
        return Vec::new();
    }
    (0..n)
        .map(|i| Entry {
            base: if bases.is_null() { 0 } else { *bases.add(i) },
            begin: *ptrs.add(i),
            size: if sizes.is_null() { 0 } else { *sizes.add(i) },
            map_type: if types.is_null() { 0 } else { *types.add(i) },
        })
        .collect()
}

pub use crate::mappings::{Extent, Mapping};

/// Where present storage is, and what is known of its extent.
pub trait Device {
    /// The device address of host address `q`, if `q` is mapped.
    fn device_of(&self, q: usize) -> Option<usize>;
    /// The storage holding host address `q`.
    fn extent(&self, q: usize) -> Extent;
    /// Present storage that starts inside host bytes `(lo, hi)`: a construct mapping a whole
    /// object of which a member is present (`target data map(from: d.c)` around a kernel that
    /// uses `d`) reaches it.
    fn present_within(&self, _lo: usize, _hi: usize) -> Vec<Mapping> {
        Vec::new()
    }
}

/// The read-only ranges of the loaded ELF objects (non-writable `PT_LOAD` segments and
/// `PT_GNU_RELRO`), rebuilt when objects are loaded or unloaded: `const` data the program maps
/// (lookup tables in `.rodata`) can be neither written by the host version nor copied into, and
/// its device copy is the host's.
fn read_only(lo: usize, hi: usize) -> bool {
    struct Ranges {
        adds: u64,
        subs: u64,
        ranges: Vec<(usize, usize)>,
    }
    static RANGES: Mutex<Option<Ranges>> = Mutex::new(None);
    unsafe extern "C" fn counts(info: *mut libc::dl_phdr_info, _size: usize, out: *mut c_void) -> c_int {
        let out = &mut *(out as *mut (u64, u64));
        *out = ((*info).dlpi_adds, (*info).dlpi_subs);
        1
    }
    unsafe extern "C" fn collect(info: *mut libc::dl_phdr_info, _size: usize, out: *mut c_void) -> c_int {
        let out = &mut *(out as *mut Vec<(usize, usize)>);
        let info = &*info;
        for i in 0..info.dlpi_phnum as usize {
            let ph = &*info.dlpi_phdr.add(i);
            let ro = (ph.p_type == libc::PT_LOAD && ph.p_flags & libc::PF_W == 0) || ph.p_type == libc::PT_GNU_RELRO;
            if ro && ph.p_memsz > 0 {
                let start = info.dlpi_addr as usize + ph.p_vaddr as usize;
                out.push((start, start + ph.p_memsz as usize));
            }
        }
        0
    }
    let mut now = (0u64, 0u64);
    unsafe { libc::dl_iterate_phdr(Some(counts), &mut now as *mut _ as *mut c_void) };
    let Ok(mut g) = RANGES.lock() else { return false };
    if g.as_ref().is_none_or(|r| (r.adds, r.subs) != now) {
        let mut ranges = Vec::new();
        unsafe { libc::dl_iterate_phdr(Some(collect), &mut ranges as *mut _ as *mut c_void) };
        *g = Some(Ranges { adds: now.0, subs: now.1, ranges });
    }
    g.as_ref().is_some_and(|r| r.ranges.iter().any(|&(a, b)| a < hi && lo < b))
}

/// Host bytes `[lo, hi)` and what the offload does with them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// First host byte.
    pub lo: usize,
    /// One past the last host byte.
    pub hi: usize,
    /// Present on the device at `dev` (None: the construct maps it itself).
    pub dev: Option<usize>,
    /// The host ends with the kernel's result (`from` of storage the construct maps, `always
    /// from`); otherwise the host bytes are restored.
    pub keep: bool,
    /// `always to`: the device copy starts as the host's (nothing to bring in).
    pub host_is_current: bool,
}

/// Why the host version cannot stand in for the launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The launch passes a pointer that no mapping holds (device memory, or memory the offload
    /// would read through an unmapped pointer).
    UnmappedPointer,
    /// The pass could not pair the region with its launch's arguments.
    NoLaunchArguments,
    /// The program has no libomptarget entry points to copy with.
    NoLibomptarget,
    /// Too many parts (pointer chains) to follow.
    TooManyParts,
    /// The launch reaches present storage whose extent nothing recorded.
    UnknownExtent,
    /// The launch maps `present` storage that is not present: the offload stops the program
    /// with libomptarget's error, which the host version must not run past.
    NotPresent,
    /// The launch maps a section explicitly around present storage that does not hold all of it
    /// ("explicit extension not allowed": the offload's error too).
    ExplicitExtension,
}

impl Refusal {
    /// The reason, as the warning and the report give it.
    pub fn text(&self) -> &'static str {
        match self {
            Refusal::UnmappedPointer => "its launch passes a pointer to memory that is not mapped (e.g. from omp_target_alloc)",
            Refusal::NoLaunchArguments => "the ompadapt pass could not pair the region with its launch",
            Refusal::NoLibomptarget => "the program has no libomptarget to copy device data with",
            Refusal::TooManyParts => "its launch reaches more than 4096 mappings through pointers",
            Refusal::NotPresent => "its launch maps storage 'present' that is not present (the offload reports the error)",
            Refusal::ExplicitExtension => "its launch maps a section around present storage that does not hold it all (the offload reports the error)",
            Refusal::UnknownExtent if crate::mappings::active() => {
                "its launch reaches a device mapping whose extent ompadapt's OMPT tool did not see being made"
            }
            Refusal::UnknownExtent => {
                "the extents of device mappings are unknown: ompadapt's OMPT tool is not running (OMP_TOOL=disabled, another ompt_start_tool linked into the program, or no ompadapt runtime when libomp started)"
            }
        }
    }
}

/// What the host version copies for one launch with `entries` whose kernel also reaches the
/// `declare target` variables `globals` (host address, bytes): the parts, merged and sorted.
pub fn plan(d: &dyn Device, entries: &[Entry], globals: &[(usize, usize)]) -> Result<Vec<Part>, Refusal> {
    let present = |m: Mapping| Part { lo: m.lo, hi: m.hi, dev: Some(m.dev), keep: false, host_is_current: false };
    let mut parts: Vec<Part> = Vec::new();
    // a global's device copy exists once the device's image is loaded ([`enter`] loads it):
    // present, its extent the variable's (from the pass), whatever the OMPT table saw
    let mut global_copies: Vec<Mapping> = Vec::new();
    for &(addr, bytes) in globals {
        if let Some(dev) = d.device_of(addr) {
            global_copies.push(Mapping { lo: addr, hi: addr + bytes, dev });
            parts.push(present(Mapping { lo: addr, hi: addr + bytes, dev }));
        }
    }
    // an entry into such a global (`map(to: table)` of a `declare target` variable: present,
    // so the construct copies nothing) is that global's device copy, which libomptarget made
    // when it loaded the image, without a data operation the OMPT table could record
    let extent = |q: usize| match global_copies.iter().find(|m| m.lo <= q && q < m.hi) {
        Some(m) => Extent::Known(*m),
        None => d.extent(q),
    };
    for e in entries {
        // a zero-length section the construct names itself (`map(to: p[:0])`, XSBench's empty
        // grids) reaches no byte where nothing holds it; only an implicit zero-length entry (a
        // pointer the kernel uses) or one into present storage does. (Its address may be
        // uninitialised: it is not read.)
        if e.size == 0
            && e.map_type & map::IMPLICIT == 0
            && e.map_type & (map::LITERAL | map::PTR_AND_OBJ) != map::LITERAL | map::PTR_AND_OBJ
        {
            match extent(e.begin) {
                Extent::Known(m) => parts.push(present(m)),
                // `map(present: p[0:0])` where nothing holds `p`: the offload's error
                Extent::Absent if e.map_type & map::PRESENT != 0 => return Err(Refusal::NotPresent),
                _ => {}
            }
            continue;
        }
        if e.begin == 0 {
            continue;
        }
        // a pointer captured by a lambda (PTR_AND_OBJ | LITERAL): its pointee counts when
        // present, otherwise the device sees the host address unchanged
        let capture = e.map_type & (map::PTR_AND_OBJ | map::LITERAL) == map::PTR_AND_OBJ | map::LITERAL;
        if capture {
            match extent(e.begin) {
                Extent::Known(m) => parts.push(present(m)),
                Extent::Unknown => return Err(Refusal::UnknownExtent),
                Extent::Absent => {}
            }
            continue;
        }
        if e.map_type & (map::LITERAL | map::PRIVATE) != 0 {
            continue;
        }
        mapped_entry(d, e, extent(e.begin), &mut parts)?;
    }
    Ok(merge(parts))
}

/// The parts of entry `e` of a launch, a section the construct maps, whose first byte is held
/// by `held` ([`plan`]).
fn mapped_entry(d: &dyn Device, e: &Entry, held: Extent, parts: &mut Vec<Part>) -> Result<(), Refusal> {
    let present = |m: Mapping| Part { lo: m.lo, hi: m.hi, dev: Some(m.dev), keep: false, host_is_current: false };
    let always = e.map_type & map::ALWAYS != 0;
    match held {
        Extent::Known(m) => parts.push(Part {
            keep: always && e.map_type & map::FROM != 0,
            host_is_current: always && e.map_type & map::TO != 0,
            ..present(m)
        }),
        Extent::Unknown => return Err(Refusal::UnknownExtent),
        // `map(present: ...)` of storage that is not present is the offload's run-time error
        Extent::Absent if e.map_type & map::PRESENT != 0 => return Err(Refusal::NotPresent),
        Extent::Absent if e.size > 0 => {
            let hi = e.begin.saturating_add(e.size as usize);
            parts.push(Part { lo: e.begin, hi, dev: None, keep: e.map_type & map::FROM != 0, host_is_current: true });
            // the offload finds the present parts of the section on the device (an implicit
            // map of a structure whose member is present), or refuses an explicit one: so
            // does the host version
            let inside = d.present_within(e.begin, hi);
            if !inside.is_empty() && e.map_type & map::IMPLICIT == 0 {
                return Err(Refusal::ExplicitExtension);
            }
            parts.extend(inside.into_iter().map(present));
        }
        Extent::Absent => return Err(Refusal::UnmappedPointer),
    }
    Ok(())
}

/// One part per present mapping (flags or-ed); storage the construct maps stays per entry.
fn merge(mut parts: Vec<Part>) -> Vec<Part> {
    parts.sort_by_key(|p| (p.lo, p.hi, p.dev.is_none()));
    let mut out: Vec<Part> = Vec::with_capacity(parts.len());
    for p in parts {
        if let Some(last) = out.last_mut() {
            if last.dev.is_some() && last.dev == p.dev && last.lo == p.lo && last.hi == p.hi {
                last.keep |= p.keep;
                last.host_is_current |= p.host_is_current;
                continue;
            }
            if last.dev.is_none() && p.dev.is_none() && *last == p {
                continue;
            }
        }
        out.push(p);
    }
    out
}

/// A pointer field of present storage: its host value and the device value attached to it.
#[derive(Clone, Copy, Debug)]
struct Field {
    at: usize,
    host: usize,
    device: usize,
}

/// The state between [`enter`] and [`exit`] of one execution of the host version.
pub struct HostRun {
    dev: c_int,
    parts: Vec<Part>,
    /// Saved host bytes of the parts the offload would not change on the host (same order).
    saved: Vec<Option<Vec<u8>>>,
    fields: Vec<Field>,
    /// The region whose execution this is (set by `ompadapt_host_enter`; null: none).
    pub(crate) region: *const crate::region::Region,
    /// Bytes of the present mappings the launch reaches (what the offload finds on the
    /// device): each is brought in whole, and only it.
    pub mapped: u64,
    /// Bytes brought from the device into host memory.
    pub brought_in: u64,
    /// Bytes moved between host and device (both ways).
    pub transferred: u64,
    /// Host bytes saved and restored.
    pub preserved: u64,
    /// Clock ticks spent copying, in enter and exit.
    pub ticks: u64,
}

unsafe fn bytes(lo: usize, hi: usize) -> &'static [u8] {
    std::slice::from_raw_parts(lo as *const u8, hi - lo)
}

thread_local! {
    /// Buffers of earlier executions: a fresh allocation of megabytes would page-fault on every
    /// page each time (the copies run once per execution of the region).
    static POOL: std::cell::RefCell<Vec<Vec<u8>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A copy of host bytes `[lo, hi)` in a buffer from the pool.
unsafe fn copy_of(lo: usize, hi: usize) -> Vec<u8> {
    let src = bytes(lo, hi);
    let mut b = POOL
        .with(|p| {
            let mut p = p.borrow_mut();
            let best = p.iter().position(|b| b.capacity() >= src.len()).or((!p.is_empty()).then(|| p.len() - 1));
            best.map(|i| p.swap_remove(i))
        })
        .unwrap_or_default();
    b.clear();
    b.extend_from_slice(src);
    b
}

/// Gives buffers back to the pool (at most a few, and at most 1 GiB in all).
fn recycle(bufs: impl IntoIterator<Item = Vec<u8>>) {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        for b in bufs {
            let held: usize = p.iter().map(Vec::capacity).sum();
            if p.len() < 64 && held + b.capacity() <= 1 << 30 {
                p.push(b);
            }
        }
    });
}

struct Live<'a> {
    omp: &'a Omp,
    dev: c_int,
}

impl Device for Live<'_> {
    fn device_of(&self, q: usize) -> Option<usize> {
        // a null pointer is never mapped, and libomptarget prints an error when asked about one
        // (XSBench passes null for the grids its mode does not use)
        if q == 0 {
            return None;
        }
        let a = unsafe { (self.omp.get_mapped_ptr)(q as *const c_void, self.dev) } as usize;
        (a != 0).then_some(a)
    }
    fn extent(&self, q: usize) -> Extent {
        crate::mappings::extent(self.dev, q, self.device_of(q))
    }
    fn present_within(&self, lo: usize, hi: usize) -> Vec<Mapping> {
        // recorded mappings that libomptarget still has, where the table says
        let live = |m: &Mapping| self.device_of(m.lo) == Some(m.dev);
        crate::mappings::starting_within(self.dev, lo, hi).into_iter().filter(live).collect()
    }
}

impl Live<'_> {
    /// Makes libomptarget load the program's image on the device, once per device: until a
    /// first construct uses the device it has not, and its `declare target` variables have no
    /// device copy yet (`omp_get_mapped_ptr` answers null). A `cpu` variant pinned from the
    /// first execution would otherwise see no device copy, and run its kernel on the host's
    /// copies of those variables; the offload it stands for would have loaded the image and
    /// used the device's (issue 41: `counter += 1` on a `declare target` global). An empty
    /// `target enter data` loads it and maps nothing.
    fn load_image(&self) {
        static LOADED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let bit = 1u64 << (self.dev as u32 % 64);
        if LOADED.load(std::sync::atomic::Ordering::Relaxed) & bit != 0 {
            return;
        }
        let null = std::ptr::null_mut();
        quiet_dataperf(true);
        // SAFETY: no map entries: libomptarget reads none of the null arrays.
        unsafe { (self.omp.data_begin)(null, self.dev as i64, 0, null, null, null, null, null, null) };
        quiet_dataperf(false);
        if (0..64).contains(&self.dev) {
            LOADED.fetch_or(bit, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Device to host (`to_host`) or host to device; false when libomptarget fails.
    fn copy(&self, host: usize, dev: usize, len: usize, to_host: bool) -> bool {
        if len == 0 {
            return true;
        }
        let o = self.omp;
        quiet_dataperf(true);
        let ok = unsafe {
            if to_host {
                (o.target_memcpy)(host as *mut c_void, dev as *const c_void, len, 0, 0, o.initial_device, self.dev) == 0
            } else {
                (o.target_memcpy)(dev as *mut c_void, host as *const c_void, len, 0, 0, self.dev, o.initial_device) == 0
            }
        };
        quiet_dataperf(false);
        ok
    }
}

/// Before the host version of a launch on `device` (-1: the default device) with `kargs`, whose
/// kernel reaches the `declare target` variables `globals`:
/// Ok(None) when nothing needs copying (the launch would run on the host anyway).
///
/// # Safety
/// `kargs` is null or the launch's live `KernelArgsTy`, whose entries describe storage the
/// program owns.
pub unsafe fn enter(device: i64, kargs: *const c_void, globals: &[(usize, usize)]) -> Result<Option<Box<HostRun>>, Refusal> {
    if kargs.is_null() {
        return Err(Refusal::NoLaunchArguments);
    }
    let omp = omp().ok_or(Refusal::NoLibomptarget)?;
    let dev = if device == -1 { (omp.default_device)() } else { device as c_int };
    if omp.disabled || dev == omp.initial_device || dev < 0 {
        return Ok(None);
    }
    let live = Live { omp, dev };
    live.load_image();
    let mut parts = plan(&live, &entries(kargs), globals)?;
    parts.retain(|p| !read_only(p.lo, p.hi));
    if parts.is_empty() {
        return Ok(None);
    }
    let mut run = HostRun {
        dev,
        parts: Vec::new(),
        saved: Vec::new(),
        fields: Vec::new(),
        region: std::ptr::null(),
        mapped: 0,
        brought_in: 0,
        transferred: 0,
        preserved: 0,
        ticks: 0,
    };
    // PTR_AND_OBJ entries name their pointer fields exactly
    let mut fields_at: Vec<usize> =
        entries(kargs).iter().filter(|e| e.map_type & map::PTR_AND_OBJ != 0 && e.base != 0).map(|e| e.base).collect();
    let mut next = 0;
    for depth in 0..=POINTER_DEPTH {
        let start = next;
        next = parts.len();
        let mut found: Vec<Part> = Vec::new();
        for p in &parts[start..next] {
            found.extend(bring_in(&live, &mut run, p.clone(), &fields_at, depth < POINTER_DEPTH)?);
        }
        found.retain(|f| !parts.iter().any(|p| p.dev == f.dev && p.lo == f.lo) && !read_only(f.lo, f.hi));
        let found = merge(found);
        if found.is_empty() {
            break;
        }
        if parts.len() + found.len() > MAX_PARTS {
            exit_parts(&live, &mut run, false);
            return Err(Refusal::TooManyParts);
        }
        parts.extend(found);
        fields_at.clear();
    }
    Ok(Some(Box::new(run)))
}

/// Brings part `p` into host memory: saves the host bytes the offload would not change,
/// copies a present mapping's device image in, and gives attached pointers inside it their
/// host values back. Returns the mappings those pointers reach (when `follow`). A failed copy
/// puts back what was already changed and refuses.
unsafe fn bring_in(live: &Live<'_>, run: &mut HostRun, p: Part, fields_at: &[usize], follow: bool) -> Result<Vec<Part>, Refusal> {
    let saved = (!p.keep).then(|| copy_of(p.lo, p.hi));
    let mut found = Vec::new();
    if p.dev.is_some() {
        run.mapped += (p.hi - p.lo) as u64;
    }
    if let Some(d) = p.dev.filter(|_| !p.host_is_current) {
        let words = pointer_words(&p, fields_at);
        if !live.copy(p.lo, d, p.hi - p.lo, true) {
            run.saved.push(saved);
            run.parts.push(p);
            exit_parts(live, run, false);
            return Err(Refusal::NoLibomptarget);
        }
        run.transferred += (p.hi - p.lo) as u64;
        run.brought_in += (p.hi - p.lo) as u64;
        found = match keep_host_pointers(live, run, &words, fields_at, follow) {
            Ok(found) => found,
            Err(refusal) => {
                run.saved.push(saved);
                run.parts.push(p);
                exit_parts(live, run, false);
                return Err(refusal);
            }
        };
    }
    if let Some(s) = &saved {
        run.preserved += s.len() as u64;
    }
    run.saved.push(saved);
    run.parts.push(p);
    Ok(found)
}

/// Where attached pointers may be in `p` (every word of small storage, else the fields
/// PTR_AND_OBJ entries name), with the host's words there before the copy.
unsafe fn pointer_words(p: &Part, fields_at: &[usize]) -> Vec<(usize, usize)> {
    let at: Vec<usize> = if p.hi - p.lo <= POINTER_SCAN_BYTES {
        ((p.lo + 7) & !7..p.hi.saturating_sub(7)).step_by(8).collect()
    } else {
        fields_at.iter().copied().filter(|&at| at >= p.lo && at + 8 <= p.hi).collect()
    };
    at.into_iter().map(|at| (at, (at as *const usize).read_unaligned())).collect()
}

/// Attached pointers: a word the copy changed from a host pointer to that pointer's device
/// address keeps its host value during the host version; the pointee's mapping comes in too
/// (returned, when `follow`; refused when its extent is not known).
///
/// A pointer field the construct attaches itself (a `PTR_AND_OBJ` entry's base, `attached`)
/// keeps its host value whatever the device copy held: the offload writes the pointee's new
/// device address there, and the host version uses the host's pointee (a device copy of the
/// pointer left present by an earlier construct holds a stale address then: LLVM's
/// target_derefence_array_pointrs.cpp lost a write with its second launch on the host).
unsafe fn keep_host_pointers(
    live: &Live<'_>,
    run: &mut HostRun,
    words: &[(usize, usize)],
    attached: &[usize],
    follow: bool,
) -> Result<Vec<Part>, Refusal> {
    let mut found = Vec::new();
    for &(at, host) in words {
        let now = (at as *const usize).read_unaligned();
        if host == now || host == 0 || (!attached.contains(&at) && live.device_of(host) != Some(now)) {
            continue;
        }
        (at as *mut usize).write_unaligned(host);
        run.fields.push(Field { at, host, device: now });
        if follow {
            match live.extent(host) {
                Extent::Known(m) => found.push(Part { lo: m.lo, hi: m.hi, dev: Some(m.dev), keep: false, host_is_current: false }),
                Extent::Unknown => return Err(Refusal::UnknownExtent),
                Extent::Absent => {}
            }
        }
    }
    Ok(found)
}

/// After the host version: present storage goes back to the device, the host bytes the
/// offload would not change are restored.
///
/// # Safety
/// `run` comes from [`enter`] of this execution, and the storage it describes is still live.
pub unsafe fn exit(mut run: Box<HostRun>) -> Box<HostRun> {
    if let Some(omp) = omp() {
        let live = Live { omp, dev: run.dev };
        exit_parts(&live, &mut run, true);
    }
    run
}

unsafe fn exit_parts(live: &Live<'_>, run: &mut HostRun, send: bool) {
    if send {
        for p in &run.parts {
            let Some(d) = p.dev else { continue };
            // the device keeps its attached pointers
            let inside: Vec<&Field> = run.fields.iter().filter(|f| f.at >= p.lo && f.at + 8 <= p.hi).collect();
            for f in &inside {
                (f.at as *mut usize).write_unaligned(f.device);
            }
            live.copy(p.lo, d, p.hi - p.lo, false);
            run.transferred += (p.hi - p.lo) as u64;
            for f in &inside {
                (f.at as *mut usize).write_unaligned(f.host);
            }
        }
    }
    // Results the host keeps, where a restored part overlaps them.
    let restored: Vec<(usize, usize)> = run.parts.iter().zip(&run.saved).filter(|(_, s)| s.is_some()).map(|(p, _)| (p.lo, p.hi)).collect();
    let kept: Vec<(usize, Vec<u8>)> = run
        .parts
        .iter()
        .filter(|p| p.keep && restored.iter().any(|&(lo, hi)| lo < p.hi && p.lo < hi))
        .map(|p| (p.lo, copy_of(p.lo, p.hi)))
        .collect();
    for (p, s) in run.parts.iter().zip(&run.saved) {
        if let Some(s) = s {
            std::ptr::copy_nonoverlapping(s.as_ptr(), p.lo as *mut u8, s.len());
        }
    }
    for (lo, k) in &kept {
        std::ptr::copy_nonoverlapping(k.as_ptr(), *lo as *mut u8, k.len());
    }
    recycle(run.saved.drain(..).flatten().chain(kept.into_iter().map(|(_, k)| k)));
    // a host copy that receives the device's bytes keeps its own pointers (libomptarget's
    // shadow pointers do the same)
    for f in &run.fields {
        (f.at as *mut usize).write_unaligned(f.host);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mappings at fixed device offsets, all recorded (`unknown`: present, extent not recorded).
    struct Fake(Vec<(usize, usize, usize)>);
    impl Device for Fake {
        fn device_of(&self, q: usize) -> Option<usize> {
            self.0.iter().find(|&&(lo, hi, _)| q >= lo && q < hi).map(|&(lo, _, d)| d + (q - lo))
        }
        fn extent(&self, q: usize) -> Extent {
            match self.0.iter().find(|&&(lo, hi, _)| q >= lo && q < hi) {
                Some(&(lo, hi, dev)) if dev != UNRECORDED => Extent::Known(Mapping { lo, hi, dev }),
                Some(_) => Extent::Unknown,
                None => Extent::Absent,
            }
        }
        fn present_within(&self, lo: usize, hi: usize) -> Vec<Mapping> {
            self.0.iter().filter(|&&(l, _, d)| l > lo && l < hi && d != UNRECORDED).map(|&(lo, hi, dev)| Mapping { lo, hi, dev }).collect()
        }
    }

    #[test]
    fn present_maps_of_storage_that_is_not_present_are_refused() {
        let d = Fake(vec![(0x1000, 0x1014, 0x9000)]);
        let at = |begin, size| Entry { base: begin, begin, size, map_type: map::PRESENT | 0x20 };
        // held by a mapping: fine, with a section or a zero-length one
        assert!(plan(&d, &[at(0x1000, 20)], &[]).is_ok());
        assert!(plan(&d, &[at(0x1004, 0)], &[]).is_ok());
        // held by none: the offload's error
        assert!(matches!(plan(&d, &[at(0x2000, 20)], &[]), Err(Refusal::NotPresent)));
        assert!(matches!(plan(&d, &[at(0x2000, 0)], &[]), Err(Refusal::NotPresent)));
    }

    #[test]
    fn a_section_around_a_present_member_reaches_the_member() {
        // `target data map(from: d.c)`, then a kernel mapping all of `d` (8 bytes, not present)
        let d = Fake(vec![(0x1004, 0x1008, 0x9004)]);
        let e = Entry { base: 0x1000, begin: 0x1000, size: 8, map_type: map::TO | map::FROM | map::IMPLICIT };
        let parts = plan(&d, &[e], &[]).unwrap();
        assert!(parts.iter().any(|p| p.lo == 0x1000 && p.hi == 0x1008 && p.dev.is_none()), "{parts:?}");
        assert!(parts.iter().any(|p| p.lo == 0x1004 && p.hi == 0x1008 && p.dev == Some(0x9004)), "{parts:?}");
    }
    /// The device address of a mapping [`Fake`] says nothing about.
    const UNRECORDED: usize = 1 << 50;

    #[test]
    fn mappings_at_one_offset_stay_apart() {
        // three arrays next to each other, their device copies at one offset (the host plugin
        // allocates as the host did): each is its own part, nothing in between is copied
        let off = 1 << 30;
        let f = Fake(vec![(1000, 1800, 1000 + off), (1816, 2616, 1816 + off), (2632, 3432, 2632 + off)]);
        let e = |begin| Entry { base: begin, begin, size: 0, map_type: 0x220 };
        let p = plan(&f, &[e(1000), e(1816), e(2632)], &[]).unwrap();
        let spans: Vec<(usize, usize)> = p.iter().map(|p| (p.lo, p.hi)).collect();
        assert_eq!(spans, [(1000, 1800), (1816, 2616), (2632, 3432)]);
        assert_eq!(p.iter().map(|p| p.hi - p.lo).sum::<usize>(), 3 * 800, "bytes copied are bytes mapped");
        // present storage whose extent nothing recorded: refused, not guessed
        let g = Fake(vec![(1000, 1800, UNRECORDED)]);
        assert_eq!(plan(&g, &[e(1200)], &[]), Err(Refusal::UnknownExtent));
    }

    static TABLE: [u8; 64] = [7; 64];

    #[test]
    fn read_only_data_is_recognised() {
        let t = TABLE.as_ptr() as usize;
        assert!(read_only(t, t + 64), "a static table in .rodata");
        let heap = vec![0u8; 64];
        let h = heap.as_ptr() as usize;
        assert!(!read_only(h, h + 64));
        let mut stack = [0u8; 16];
        stack[0] = 1;
        let s = stack.as_ptr() as usize;
        assert!(!read_only(s, s + 16));
    }

    #[test]
    fn plans_follow_the_offload() {
        let f = Fake(vec![(1000, 1800, 50_000)]);
        let e = |begin, size, map_type| Entry { base: begin, begin, size, map_type };
        // a zero-length pointer into a present array: the whole mapping; a section the
        // construct maps `from`: kept; `to`: restored; literals ignored
        let p = plan(&f, &[e(1200, 0, 0x220), e(3000, 64, 0x22), e(4000, 8, 0x21), e(7, 4, 0x320)], &[]).unwrap();
        assert_eq!(
            p,
            vec![
                Part { lo: 1000, hi: 1800, dev: Some(50_000), keep: false, host_is_current: false },
                Part { lo: 3000, hi: 3064, dev: None, keep: true, host_is_current: true },
                Part { lo: 4000, hi: 4008, dev: None, keep: false, host_is_current: true },
            ]
        );
        // two entries in one present mapping are one part; always from keeps
        let p = plan(&f, &[e(1000, 800, 0x23), e(1100, 0, 0x220), e(1000, 8, 0x06)], &[]).unwrap();
        assert_eq!(p, vec![Part { lo: 1000, hi: 1800, dev: Some(50_000), keep: true, host_is_current: false }]);
        // a pointer mapped nowhere
        assert_eq!(plan(&f, &[e(9000, 0, 0x220)], &[]), Err(Refusal::UnmappedPointer));
        // a zero-length section the construct names: nothing where nothing holds it (a struct
        // member's, MEMBER_OF | PTR_AND_OBJ | TO), the whole mapping where one does
        assert_eq!(plan(&f, &[e(9000, 0, 0x21), e(9100, 0, 0x2000_0000_0011)], &[]), Ok(vec![]));
        assert_eq!(
            plan(&f, &[e(1200, 0, 0x21)], &[]).unwrap(),
            vec![Part { lo: 1000, hi: 1800, dev: Some(50_000), keep: false, host_is_current: false }]
        );
        // pointers a lambda captured (PTR_AND_OBJ | LITERAL | MEMBER_OF): a present pointee is
        // the whole mapping, one mapped nowhere keeps its host address
        let p = plan(&f, &[e(4000, 64, 0x321), e(1400, 0, 0x2000_0000_0310), e(9000, 0, 0x2000_0000_0310)], &[]).unwrap();
        assert_eq!(p, vec![Part { lo: 1000, hi: 1800, dev: Some(50_000), keep: false, host_is_current: false }]);
        // a declare target variable the kernel reaches: present (another device's copy is not)
        let g = Fake(vec![(1000, 1800, 50_000), (6000, 6004, 70_000)]);
        let p = plan(&g, &[], &[(6000, 4), (8000, 4)]).unwrap();
        assert_eq!(p, vec![Part { lo: 6000, hi: 6004, dev: Some(70_000), keep: false, host_is_current: false }]);
    }
}
