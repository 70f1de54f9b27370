//! Which map clause a data operation belongs to.
//!
//! OMPT reports a data operation with host and device addresses but not the variable. Clang
//! passes the map clauses' names (the `.offload_mapnames` strings `;a[0:n];file.c;5;11;;`
//! that it emits with `-g`) to libomptarget's entry points, together with the host addresses
//! and sizes of every mapped section. When this library is loaded ahead of libomptarget
//! (`LD_PRELOAD`, which the `ompadapt-dataperf` launcher sets, or linked into the program),
//! these entry points resolve to the stubs below. Each stub notes the call's arguments in a
//! thread-local record and *jumps* (not calls) into libomptarget, so libomptarget and every
//! OMPT callback see the program's own return address, exactly as without the tool. A data
//! operation reported while that record is current (same thread, same return address) is
//! matched to the argument with its host address and size, and so to its name.
//!
//! Loaded through `OMP_TOOL_LIBRARIES` alone, the stubs are never called and reports simply
//! have no variable names. Only x86-64 has the stubs.

use std::cell::Cell;
use std::os::raw::{c_char, c_void};

/// The arguments of the libomptarget entry point the current thread is inside.
#[derive(Clone, Copy)]
pub struct Call {
    /// Return address of the entry point's caller.
    pub ra: usize,
    /// Number of mapped arguments.
    pub n: usize,
    /// Host addresses of the arguments.
    pub args: *const *const c_void,
    /// Sizes of the arguments in bytes.
    pub sizes: *const i64,
    /// Map types of the arguments (`OMP_TGT_MAPTYPE_*` bits; may be null).
    pub types: *const i64,
    /// The compiler's map-clause names of the arguments (may be null).
    pub names: *const *const c_char,
    /// Kernel launches: the offload entry's host address (its symbol names the function and
    /// line of the target region).
    pub entry: usize,
    /// The `ident_t *` every entry point takes first: its `psource` is the construct's
    /// `;file;function;line;column;;` as the compiler saw it.
    pub ident: usize,
}

impl Call {
    /// The construct's source location string (`;file;function;line;column;;`), if the
    /// compiler recorded one.
    ///
    /// # Safety
    /// `ident` is null or points to a live `ident_t` (they are constants in the program).
    pub unsafe fn psource(&self) -> Option<String> {
        if self.ident == 0 {
            return None;
        }
        // ident_t: i32 reserved_1, flags, reserved_2, reserved_3; char *psource.
        let p = *((self.ident + 16) as *const *const c_char);
        if p.is_null() {
            return None;
        }
        Some(std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned())
    }
}

/// The file, function, line and column of a `psource` string `;file;function;line;col;;`
/// (None for clang's `;unknown;unknown;0;0;;` and anything malformed).
pub fn parse_psource(s: &str) -> Option<(String, String, u32, u32)> {
    let mut f = s.strip_prefix(';')?.split(';');
    let (file, func, line, col) = (f.next()?, f.next()?, f.next()?, f.next()?);
    let line: u32 = line.parse().ok()?;
    let col: u32 = col.parse().unwrap_or(0);
    (line > 0 && file != "unknown").then(|| (file.to_owned(), func.to_owned(), line, col))
}

impl Call {
    const NONE: Call = Call {
        ra: 0,
        n: 0,
        args: std::ptr::null(),
        sizes: std::ptr::null(),
        types: std::ptr::null(),
        names: std::ptr::null(),
        entry: 0,
        ident: 0,
    };

    /// The map-clause name (its `.offload_mapnames` string) and map type of the argument at
    /// host address `host` with `bytes` bytes; an argument at that address with another size (a
    /// pointer attached to a section, a zero-length section inside a data environment) if none
    /// has exactly that size. A null name when none matches.
    ///
    /// # Safety
    /// Only while the entry point this record describes is running (its arrays live in the
    /// caller's frame).
    pub unsafe fn name_of(&self, host: usize, bytes: u64) -> (*const c_char, Option<u64>) {
        if self.names.is_null() || self.args.is_null() || host == 0 {
            return (std::ptr::null(), None);
        }
        let item = |i: usize| (*self.names.add(i), (!self.types.is_null()).then(|| *self.types.add(i) as u64));
        let mut fallback = None;
        for i in 0..self.n.min(1 << 16) {
            if *self.args.add(i) as usize != host {
                continue;
            }
            if self.sizes.is_null() || *self.sizes.add(i) as u64 == bytes {
                return item(i);
            }
            if fallback.is_none() {
                fallback = Some(i);
            }
        }
        fallback.map_or((std::ptr::null(), None), item)
    }
}

thread_local! {
    static CURRENT: Cell<Call> = const { Cell::new(Call::NONE) };
}

/// The record of the entry point this thread is in, if its return address is `ra`.
pub fn current(ra: usize) -> Option<Call> {
    let c = CURRENT.with(|c| c.get());
    (c.ra == ra && ra != 0).then_some(c)
}

/// Splits `;name;file;line;col;;` into its name.
pub fn mapname(s: &str) -> &str {
    let s = s.strip_prefix(';').unwrap_or(s);
    s.split(';').next().unwrap_or("")
}

#[cfg(target_arch = "x86_64")]
mod x86_64 {
    use super::*;
    use ompadapt_abi::openmp;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    // The entry points clang 19 calls, in stub order: each stub below is the function of that
    // name (its item's name is its symbol; the test at the end checks they agree).
    const NAMES: [&std::ffi::CStr; 8] = [
        openmp::TARGET_DATA_BEGIN_MAPPER,
        openmp::TARGET_DATA_END_MAPPER,
        openmp::TARGET_DATA_UPDATE_MAPPER,
        openmp::TARGET_DATA_BEGIN_NOWAIT_MAPPER,
        openmp::TARGET_DATA_END_NOWAIT_MAPPER,
        openmp::TARGET_DATA_UPDATE_NOWAIT_MAPPER,
        openmp::TARGET_KERNEL,
        openmp::TARGET_KERNEL_NOWAIT,
    ];
    const KERNEL_FIRST: usize = 6;
    static REAL: [AtomicUsize; 8] = [const { AtomicUsize::new(0) }; 8];

    /// Called by a stub with the saved argument registers: `regs[0..6]` = r9, r8, rcx, rdx,
    /// rsi, rdi; `regs[6]` the return address; `regs[7..]` the arguments passed on the stack.
    /// Returns the address of libomptarget's function to jump to.
    unsafe extern "C" fn note(which: usize, regs: *const usize) -> usize {
        let r = |i: usize| *regs.add(i);
        let (rdx, r8, r9, ra) = (r(3), r(1), r(0), r(6));
        let call = if which >= KERNEL_FIRST {
            // __tgt_target_kernel(loc, device, teams, threads, host_ptr, KernelArgsTy *args):
            // KernelArgsTy (version 3): u32 Version, u32 NumArgs, void **ArgBasePtrs,
            // void **ArgPtrs, i64 *ArgSizes, i64 *ArgTypes, void **ArgNames, ...
            let ka = r9 as *const u8;
            // Versions 1-3 (LLVM 17-19) share this prefix; anything else is not read.
            if ka.is_null() || !(1..=3).contains(&*(ka as *const u32)) {
                Call { ra, entry: r8, ident: r(5), ..Call::NONE }
            } else {
                Call {
                    ra,
                    n: *(ka.add(4) as *const u32) as usize,
                    args: *(ka.add(16) as *const *const *const c_void),
                    sizes: *(ka.add(24) as *const *const i64),
                    types: *(ka.add(32) as *const *const i64),
                    names: *(ka.add(40) as *const *const *const c_char),
                    entry: r8,
                    ident: r(5),
                }
            }
        } else {
            // __tgt_target_data_*_mapper(loc, device, i32 n, void **base, void **args,
            // i64 *sizes, i64 *types, void **names, void **mappers, ...): types and names are
            // the first two arguments on the stack.
            Call {
                ra,
                n: (rdx as u32) as usize,
                args: r8 as *const *const c_void,
                sizes: r9 as *const i64,
                types: r(7) as *const i64,
                names: r(8) as *const *const c_char,
                entry: 0,
                ident: r(5),
            }
        };
        CURRENT.with(|c| c.set(call));
        let f = REAL[which].load(Relaxed);
        if f != 0 {
            return f;
        }
        let f = libc::dlsym(libc::RTLD_NEXT, NAMES[which].as_ptr()) as usize;
        if f == 0 {
            // The program calls libomptarget, so the dynamic linker has loaded it: unreachable
            // unless the process is broken; there is nothing to jump to.
            let msg = b"ompadapt-dataperf: libomptarget entry point not found after this library; aborting\n";
            libc::write(2, msg.as_ptr() as *const c_void, msg.len());
            libc::abort();
        }
        REAL[which].store(f, Relaxed);
        f
    }

    macro_rules! stub {
        ($name:ident, $which:expr) => {
            #[unsafe(no_mangle)]
            #[unsafe(naked)]
            pub unsafe extern "C" fn $name() {
                core::arch::naked_asm!(
                    // Entry: rsp points at the return address (rsp % 16 == 8).
                    "push rdi", "push rsi", "push rdx", "push rcx", "push r8", "push r9",
                    "sub rsp, 8",              // 16-byte alignment for the call
                    "mov edi, {which}",
                    "lea rsi, [rsp + 8]",      // -> saved r9, r8, rcx, rdx, rsi, rdi, ra, stack args
                    "call {note}",
                    "add rsp, 8",
                    "pop r9", "pop r8", "pop rcx", "pop rdx", "pop rsi", "pop rdi",
                    "jmp rax",                 // libomptarget returns straight to the program
                    which = const $which,
                    note = sym note,
                );
            }
        };
    }

    stub!(__tgt_target_data_begin_mapper, 0);
    stub!(__tgt_target_data_end_mapper, 1);
    stub!(__tgt_target_data_update_mapper, 2);
    stub!(__tgt_target_data_begin_nowait_mapper, 3);
    stub!(__tgt_target_data_end_nowait_mapper, 4);
    stub!(__tgt_target_data_update_nowait_mapper, 5);
    stub!(__tgt_target_kernel, 6);
    stub!(__tgt_target_kernel_nowait, 7);

    #[cfg(test)]
    mod tests {
        use super::*;

        /// The symbol of a `#[no_mangle]` function is its item's name: the last segment of the
        /// name of its function-item type.
        fn symbol_of<F>(_: F) -> &'static str {
            std::any::type_name::<F>().rsplit("::").next().unwrap()
        }

        #[test]
        fn each_stub_is_the_entry_point_it_passes_the_call_to() {
            let stubs = [
                symbol_of(__tgt_target_data_begin_mapper),
                symbol_of(__tgt_target_data_end_mapper),
                symbol_of(__tgt_target_data_update_mapper),
                symbol_of(__tgt_target_data_begin_nowait_mapper),
                symbol_of(__tgt_target_data_end_nowait_mapper),
                symbol_of(__tgt_target_data_update_nowait_mapper),
                symbol_of(__tgt_target_kernel),
                symbol_of(__tgt_target_kernel_nowait),
            ];
            let names = NAMES.map(|n| n.to_str().unwrap());
            assert_eq!(stubs, names);
            assert!(names[KERNEL_FIRST..].iter().all(|n| n.contains("kernel")));
            assert!(names[..KERNEL_FIRST].iter().all(|n| n.contains("_data_")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapnames() {
        assert_eq!(mapname(";a[0:n];t1.c;5;11;;"), "a[0:n]");
        assert_eq!(mapname(";s.x;dir/f.c;12;3;;"), "s.x");
        assert_eq!(mapname(""), "");
        assert_eq!(mapname("plain"), "plain");
        assert_eq!(parse_psource(";dup.c;main;14;1;;"), Some(("dup.c".into(), "main".into(), 14, 1)));
        assert_eq!(parse_psource(";unknown;unknown;0;0;;"), None);
        assert_eq!(parse_psource("garbage"), None);
    }

    #[test]
    fn matches_by_address_then_size() {
        let a = [1u8; 8];
        let b = [2u8; 8];
        let args: [*const c_void; 3] = [a.as_ptr() as _, a.as_ptr() as _, b.as_ptr() as _];
        let sizes: [i64; 3] = [0, 8, 8];
        let types: [i64; 3] = [0x20, 0x21, 0x23];
        let n0 = c";a;f.c;1;1;;";
        let n1 = c";a[0:2];f.c;1;1;;";
        let n2 = c";b[0:2];f.c;1;1;;";
        let names = [n0.as_ptr(), n1.as_ptr(), n2.as_ptr()];
        let c = Call {
            ra: 1,
            n: 3,
            args: args.as_ptr(),
            sizes: sizes.as_ptr(),
            types: types.as_ptr(),
            names: names.as_ptr(),
            entry: 0,
            ident: 0,
        };
        unsafe {
            assert_eq!(c.name_of(a.as_ptr() as usize, 8), (n1.as_ptr(), Some(0x21)));
            assert_eq!(c.name_of(a.as_ptr() as usize, 4), (n0.as_ptr(), Some(0x20)));
            assert_eq!(c.name_of(b.as_ptr() as usize, 8), (n2.as_ptr(), Some(0x23)));
            assert!(c.name_of(7, 8).0.is_null());
            let untyped = Call { types: std::ptr::null(), ..c };
            assert_eq!(untyped.name_of(b.as_ptr() as usize, 8), (n2.as_ptr(), None));
        }
    }
}
