//! What a function the compiler cannot see into may do, from LLVM's own knowledge
//! (shim/library.cpp): whether it is a function of the C or C++ standard library (LLVM's
//! `TargetLibraryInfo` recognises it by name and prototype), and the memory it may read or
//! write (the attributes LLVM infers for it, or those it carries).
//!
//! Beyond that, two families of code are known not to ask for the team: the C++ standard
//! library's own functions (`std::`, compiled into libstdc++/libc++, which use no OpenMP) and
//! the C++ ABI's runtime (`__cxa_*`: exceptions, guards of static locals). flang-19's runtime
//! (`_FortranA*`), which flang declares without attributes, is described by its own table
//! ([`super::flang_runtime`]).
// Raw `LLVMValueRef`s passed around here are values of the module being analysed.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use super::flang_runtime::{self, Effect};
use crate::ir::ValueRef;

#[repr(C)]
#[derive(Default)]
struct RawEffects {
    library: i32,
    allocates: i32,
    memory: u32,
    writable: u64,
}

extern "C" {
    fn ompadapt_callee_effects(function: ValueRef, out: *mut RawEffects);
}

/// How a function may touch memory: LLVM's `ModRefInfo` per location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Memory {
    /// Memory its pointer arguments point at.
    pub arg: u8,
    /// Memory no IR can reach (the allocator's, `errno` on some systems, I/O state).
    pub inaccessible: u8,
    /// Anything else (globals, memory reached through loaded pointers).
    pub other: u8,
}

impl Memory {
    const MOD: u8 = 2;
    fn writes(bits: u8) -> bool {
        bits & Self::MOD != 0
    }
    /// Whether it may write memory the program can see (not its arguments' or hidden state).
    pub fn writes_other(self) -> bool {
        Self::writes(self.other)
    }
    /// Whether it may write through its pointer arguments.
    pub fn writes_args(self) -> bool {
        Self::writes(self.arg)
    }
}

/// What a called function may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CalleeEffects {
    /// A function of the C or C++ standard library that LLVM recognises.
    pub library: bool,
    /// It returns fresh memory (malloc, operator new, ...).
    pub allocates: bool,
    pub memory: Memory,
    /// Bit i: parameter i is a pointer the function may write through.
    pub writable: u64,
}

/// What `function` (a declaration or an intrinsic) may do: for flang's runtime, what its
/// headers declare ([`flang_runtime`]), else what LLVM knows.
pub fn effects(function: ValueRef) -> CalleeEffects {
    if let Some(effect) = flang_runtime::classify(&crate::ir::name(function)) {
        return flang_effects(effect, function);
    }
    let mut raw = RawEffects::default();
    unsafe { ompadapt_callee_effects(function, &mut raw) };
    let bits = |loc: u32| ((raw.memory >> (2 * loc)) & 3) as u8;
    CalleeEffects {
        library: raw.library != 0,
        allocates: raw.allocates != 0,
        memory: Memory { arg: bits(0), inaccessible: bits(1), other: bits(2) },
        writable: raw.writable,
    }
}

/// A flang runtime function's effects as LLVM's locations: what it reads and writes of its
/// arguments' memory and of other memory (reached through descriptors), and which pointer
/// arguments it writes through.
fn flang_effects(effect: Effect, function: ValueRef) -> CalleeEffects {
    const REF: u8 = 1;
    const MOD_REF: u8 = 3;
    let known = |memory, writable| CalleeEffects { library: true, allocates: false, memory, writable };
    match effect {
        Effect::Value => known(Memory { arg: REF, inaccessible: 0, other: 0 }, 0),
        Effect::Reads => known(Memory { arg: REF, inaccessible: 0, other: REF }, 0),
        Effect::WritesFirst => known(Memory { arg: MOD_REF, inaccessible: 0, other: REF }, 1),
        // Anything: counted when every thread does it. (A library function that writes memory
        // and takes no pointer only sets errno: such an entry stays unknown.)
        Effect::Writes | Effect::Io => CalleeEffects {
            library: crate::ir::params(function).iter().any(|p| is_pointer(*p)),
            allocates: false,
            memory: Memory { arg: MOD_REF, inaccessible: MOD_REF, other: MOD_REF },
            writable: u64::MAX,
        },
    }
}

fn is_pointer(v: ValueRef) -> bool {
    use llvm_sys::core::{LLVMGetTypeKind, LLVMTypeOf};
    unsafe { LLVMGetTypeKind(LLVMTypeOf(v)) == llvm_sys::LLVMTypeKind::LLVMPointerTypeKind }
}

/// Whether `name` (a mangled symbol) is a function of the C++ standard library's namespace
/// `std` (Itanium mangling: `St` for `std::`, or one of its abbreviations `Sa` allocator, `Sb`
/// basic_string, `Ss` string, `Si` istream, `So` ostream, `Sd` iostream, after an optional
/// nested-name `N` and its qualifiers).
pub fn is_cxx_standard_library(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("_Z") else { return false };
    let rest = rest.strip_prefix('N').map(|r| r.trim_start_matches(['K', 'V', 'r', 'R', 'O'])).unwrap_or(rest);
    ["St", "Sa", "Sb", "Ss", "Si", "So", "Sd"].iter().any(|p| rest.starts_with(p))
}

/// Whether `name` is the C++ ABI's runtime (exceptions, guards of function-local statics).
pub fn is_cxx_abi_runtime(name: &str) -> bool {
    name.starts_with("__cxa_") || name.starts_with("_Unwind_") || name == "__gxx_personality_v0"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_library_names() {
        assert!(is_cxx_standard_library("_ZSt9terminatev"));
        assert!(is_cxx_standard_library("_ZNSt6chrono3_V212steady_clock3nowEv"));
        assert!(is_cxx_standard_library("_ZNKSt5ctypeIcE13_M_widen_initEv"));
        assert!(is_cxx_standard_library("_ZNSolsEd"));
        assert!(is_cxx_standard_library("_ZSt20__throw_length_errorPKc"));
        assert!(!is_cxx_standard_library("_Z6helperPdi"));
        assert!(!is_cxx_standard_library("_ZN7Domain6volumeEv"));
        assert!(!is_cxx_standard_library("printf"));
        assert!(is_cxx_abi_runtime("__cxa_guard_acquire"));
        assert!(!is_cxx_abi_runtime("cxa"));
    }
}
