//! `ompadapt_rt`: the runtime of ompadapt (machine-learning-driven adaptive OpenMP).
//!
//! The Clang plugin lowers `#pragma omp begin adaptation ...` into calls of the C ABI declared
//! in `include/ompadapt.h` ([`ffi`]): `ompadapt_begin` picks a variant for one execution of a
//! region and starts its clock, `ompadapt_end` records its time. Each region explores its
//! variants per feature vector (round-robin, random or successive elimination), trains a model
//! once it has enough training samples, lets the compiled model choose, keeps checking the
//! times against a time model and explores again when they drift. What it learned is saved
//! per program and region and loaded by the next run.
//!
//! Modules (the papers cited by author in them are listed in docs/references.md):
//! * [`ffi`] — the exported C functions and the `ompadapt_rt_api` table;
//! * [`ctx`] — `ompadapt_ctx`, layout-checked against the header;
//! * [`host_run`] — the `cpu` variant of an offload: host memory as the kernel would see it;
//! * [`mappings`] — every device mapping's exact extent, from [`ompt_tool`], the runtime's OMPT
//!   tool (started by the generated code's `ompt_start_tool`, beside any other tool);
//! * [`dataflow`] — data movement per execution, from the OMPT tool `libompadapt_dataperf.so`;
//! * [`spec`] — parsing the region descriptor;
//! * [`registry`] — the process-wide table of regions (and the exit handler);
//! * [`region`] — one region: selection, recording, training, drift reset, settings;
//! * [`shard`] — per-thread decision cache and counters of trained executions (lock-free);
//! * [`program_memo`] — the generated code's memo of trained executions (API version 6);
//! * [`measurements`] — a region's exploration measurements and training-trigger counters;
//! * [`explore`] — exploration strategies and labels from repeated measurements;
//! * [`drift`] — the time model and drift detection;
//! * [`stats`] — feature-vector keys, hashing, medians;
//! * [`model`] — model training and compiled models for inference;
//! * [`report`] — the exit report (text or JSON);
//! * [`trace`] — the timeline of region executions (`OMPADAPT_TRACE`, Chrome trace-event JSON);
//! * [`whole_run`] — whole-run trials: trained labels against whole runs of the program as written;
//! * [`store`] — data and models saved across runs, safe with many writers;
//! * [`config`] — environment variables (the table of every `OMPADAPT_` variable);
//! * [`env`](mod@env) — the one place the environment is read, and the secure-execution check;
//! * [`safe_fs`] — files in shared folders: no symbolic links followed, bounded reads;
//! * [`team`] — what the team-size variants of a host parallel region mean on this machine;
//! * [`clock`] — the timer (invariant TSC or CLOCK_MONOTONIC);
//! * [`diag`] — one-line stderr diagnostics.

#![deny(missing_docs)]

pub mod apollo;
pub mod clock;
pub mod config;
pub mod control;
pub mod ctx;
pub mod dataflow;
pub mod diag;
pub mod drift;
pub mod env;
pub mod every_execution;
pub mod explore;
pub mod feature_grid;
pub mod ffi;
pub mod host_run;
pub mod mappings;
pub mod measurements;
pub mod model;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod offload_build;
pub mod ompt_tool;
pub mod openmp_start;
pub mod program_memo;
pub mod recheck;
pub mod region;
pub mod registry;
pub mod report;
pub mod safe_fs;
pub mod shard;
pub mod spec;
pub mod stats;
pub mod store;
pub mod summaries;
pub mod team;
pub mod trace;
pub mod whole_run;

pub use ctx::{Ctx, Start};
pub use ffi::{
    ompadapt_begin, ompadapt_end, ompadapt_host_enter, ompadapt_host_exit, ompadapt_ompt_start_tool, ompadapt_rt_api, ompadapt_save,
    ompadapt_set_dir, ompadapt_train, ompadapt_unlowered_offload_site, ompadapt_variant_unavailable, Api,
};
