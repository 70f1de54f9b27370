//! `ompadapt_rt`: the runtime of ompadapt (machine-learning-driven adaptive OpenMP).
//!
//! The Clang plugin lowers `#pragma omp begin adaptation ...` into calls of the C ABI declared
//! in `include/ompadapt.h` ([`ffi`]): `ompadapt_begin` picks a variant for one execution of a
//! region and starts its clock, `ompadapt_end` records its time. Each region explores its
//! variants round-robin per feature vector, trains a decision tree (or a bagged forest) with
//! linfa once it has enough training samples, and from then on lets the compiled model choose.
//!
//! Modules:
//! * [`ffi`] — the exported C functions and the `ompadapt_rt_api` table;
//! * [`ctx`] — `ompadapt_ctx`, layout-checked against the header;
//! * [`spec`] — parsing the region descriptor;
//! * [`registry`] — the process-wide table of regions (and the exit handler);
//! * [`region`] — exploration, recording, training trigger, model-driven selection;
//! * [`stats`] — feature-vector keys and timing statistics (mean, median);
//! * [`model`] — training with linfa-trees and flat compiled trees for inference;
//! * [`report`] — the `OMPADAPT_REPORT=1` exit report;
//! * [`persist`] — samples saved across runs;
//! * [`config`] — environment variables;
//! * [`clock`] — the timer;
//! * [`diag`] — one-line stderr diagnostics.

pub mod clock;
pub mod config;
pub mod ctx;
pub mod diag;
pub mod ffi;
pub mod model;
#[cfg(feature = "mpi")] pub mod mpi;
pub mod persist;
pub mod region;
pub mod registry;
pub mod report;
pub mod spec;
pub mod stats;

pub use ctx::Ctx;
pub use ffi::{ompadapt_begin, ompadapt_end, ompadapt_rt_api, ompadapt_unlowered_offload_site, Api};
