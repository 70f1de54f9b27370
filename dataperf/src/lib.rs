//! `ompadapt-dataperf`: an OMPT tool that finds inefficient OpenMP data mappings (OMPDataPerf's
//! duplicate and round-trip transfers, repeated and unused allocations, unused transfers),
//! attributes them to `file:line:column`, mapped variable and adaptive region, says for each
//! what to write instead and estimates what that would save — in bounded memory. OMPDataPerf:
//! see docs/references.md; the user's guide: docs/data-movement.md.
//!
//! Modules:
//! * [`ompt`] — bindgen's bindings to `omp-tools.h` (the `ompadapt-ompt` crate, shared with the
//!   runtime's OMPT tool);
//! * [`tool`] — `ompt_start_tool` and the OMPT callbacks;
//! * [`sites`] — the call sites and map-clause names events refer to, interned;
//! * [`intercept`] — map-clause names from libomptarget's entry points;
//! * [`event`] — the events the analysis consumes;
//! * [`analysis`] — the streaming detectors;
//! * [`symbolize`] — return addresses to source locations (addr2line);
//! * [`report`] — the report (text tables and JSON);
//! * [`suggest`] — what to write instead of each finding, and what it would save;
//! * [`source`] — the loop around a line of source, for the suggestions;
//! * [`unwind`] — the caller of a construct's function, from the stack at its first event;
//! * [`counters`] — per-thread bytes and time the ompadapt runtime reads per region;
//! * [`config`], [`output`], [`mem`], [`units`] — environment, safe report files, memory
//!   accounting, durations and sizes for humans.

#![deny(missing_docs)]

pub mod analysis;
pub mod config;
pub mod counters;
pub mod event;
pub mod intercept;
pub mod mem;
pub use ompadapt_ompt as ompt;
pub mod output;
pub mod report;
pub mod sites;
pub mod source;
pub mod suggest;
pub mod symbolize;
pub mod tool;
pub mod units;
pub mod unwind;

#[global_allocator]
static ALLOC: mem::Counting = mem::Counting;
