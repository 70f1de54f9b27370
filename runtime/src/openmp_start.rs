//! Starts the program's OpenMP runtime before the first region execution is timed.
//!
//! libomp initialises itself at the first parallel region of a process: it reads the machine's
//! topology and creates its thread pool, several milliseconds. A program that executes its
//! adaptive region once per process (one kernel launch per run, as HeCBench programs do) would
//! put that cost into the one measurement each run makes, and whichever variant happened to
//! run first in a process would look milliseconds slower than it is: one-shot programs could
//! never learn which variant is faster. The program pays the start-up anyway (at its first
//! parallel region), so the runtime pays it once, when its first region is created, with an
//! empty parallel region. Programs whose OpenMP runtime is not libomp (no `__kmpc_fork_call`)
//! are left alone.

use std::os::raw::c_char;
use std::sync::Once;

/// libomp's `ident_t`: where a construct is, for its diagnostics.
#[repr(C)]
struct Ident {
    reserved_1: i32,
    flags: i32,
    reserved_2: i32,
    reserved_3: i32,
    psource: *const c_char,
}

type Microtask = unsafe extern "C" fn(gtid: *mut i32, btid: *mut i32);
type ForkCall = unsafe extern "C" fn(loc: *const Ident, argc: i32, microtask: Microtask, ...);

unsafe extern "C" fn nothing(_gtid: *mut i32, _btid: *mut i32) {}

/// Runs one empty parallel region through libomp, once per process (nothing when the program
/// has no libomp).
pub fn start() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: dlsym with a NUL-terminated name; the symbol, when present, is libomp's
        // `void __kmpc_fork_call(ident_t *, kmp_int32, kmpc_micro, ...)`, called with no
        // shared arguments and a microtask that touches nothing.
        unsafe {
            let f = libc::dlsym(libc::RTLD_DEFAULT, ompadapt_abi::openmp::FORK_CALL.as_ptr());
            if f.is_null() {
                return;
            }
            let fork: ForkCall = std::mem::transmute::<*mut libc::c_void, ForkCall>(f);
            // KMP_IDENT_KMPC (0x02): a construct compiled for the kmpc interface
            let loc = Ident { reserved_1: 0, flags: 0x02, reserved_2: 0, reserved_3: 0, psource: c";ompadapt;start;0;0;;".as_ptr() };
            fork(&loc, 0, nothing);
        }
    });
}
