//! A seeded random program generator in the spirit of Csmith and YARPGen, for OpenMP semantics:
//! it writes small C and Fortran programs that combine worksharing, reductions (correct ones and
//! ones updated with the wrong operator), synchronisation, tasks, thread queries, threadprivate
//! data, declare-target globals and offload regions, builds each with stock clang-19/flang-19 and
//! with ompadapt (zero-source-change mode and pass-only mode), runs them with every region pinned
//! to each variant and under the real runtime, and reduces every difference from stock to a
//! small reproducer.
//!
//! Programs use only integer arithmetic (wrapping `unsigned long long` in C, small values in
//! Fortran) and are race-free by construction, so a correct program prints the same for any
//! split of its iterations; what they print may still depend on the team (thread queries, an
//! effect every thread has, a reduction updated with the wrong operator): that is the point,
//! since ompadapt may only change the team of regions that cannot observe it.
//!
//! Case `i` of seed `s` is always the same program: `ompadapt-generate --seed s --only i`.

pub mod ast;
pub mod campaign;
pub mod check;
pub mod emit;
pub mod process;
pub mod random;
pub mod reduce;
pub mod table;
pub mod toolchain;
