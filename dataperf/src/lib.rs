//! `ompadapt-dataperf`: an OMPT tool that finds inefficient OpenMP data mappings (OMPDataPerf's
//! duplicate and round-trip transfers, repeated and unused allocations, unused transfers),
//! attributes them to `file:line:column`, mapped variable and adaptive region, and estimates
//! what fixing them would save — in bounded memory. OMPDataPerf: see docs/references.md.
//!
//! Modules:
//! * [`ompt`] — bindgen's bindings to `omp-tools.h`;
//! * [`tool`] — `ompt_start_tool` and the OMPT callbacks;
//! * [`sites`] — the call sites and map-clause names events refer to, interned;
//! * [`intercept`] — map-clause names from libomptarget's entry points;
//! * [`event`] — the events the analysis consumes;
//! * [`analysis`] — the streaming detectors;
//! * [`symbolize`] — return addresses to source locations (addr2line);
//! * [`report`] — the report (text tables and JSON);
//! * [`counters`] — per-thread bytes and time the ompadapt runtime reads per region;
//! * [`config`], [`output`], [`mem`] — environment, safe report files, memory accounting.

#![deny(missing_docs)]

pub mod analysis;
pub mod config;
pub mod counters;
pub mod event;
pub mod intercept;
pub mod mem;
pub mod ompt;
pub mod output;
pub mod report;
pub mod sites;
pub mod symbolize;
pub mod tool;

#[global_allocator]
static ALLOC: mem::Counting = mem::Counting;
