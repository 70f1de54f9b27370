//! The report: a model built from the analysis, printed as text tables or written as JSON
//! (schema `ompadapt-dataperf/1`, documented in docs/data-movement.md).
//!
//! [`resolve`] turns the analysis' ids into places, names and suggestions; [`text`] prints
//! the tables.

pub mod changes;
mod resolve;
mod text;

use serde::Serialize;

use crate::analysis::{Agg, Analyzer, Dropped};
use crate::config::{warn, Config, Output};
use crate::sites::{SiteInfo, VarInfo};
use crate::suggest::Suggestion;
use crate::symbolize::Location;
use resolve::{call_sites, findings, Resolver};

/// The JSON report's schema name and version.
pub const SCHEMA: &str = "ompadapt-dataperf/1";

/// A call site as the report shows it.
#[derive(Clone, Debug, Serialize)]
pub struct Site {
    /// Return address of the call into the OpenMP runtime (hex).
    pub address: String,
    /// `target`, `target enter data`, `target exit data`, `target update`, or `device memory
    /// routine` (omp_target_alloc and friends).
    pub construct: String,
    /// Where it is in the source.
    #[serde(flatten)]
    pub location: Location,
}

/// One row of a findings table.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Finding {
    /// Events it stands for.
    pub count: u64,
    /// Bytes of those events.
    pub bytes: u64,
    /// Time of those events.
    pub ns: u64,
    /// The device the finding is about (receiving device of a duplicate, the device memory of
    /// an allocation or unused transfer).
    pub device: i32,
    /// Sending device (duplicates) or the device the content went to and came back from
    /// (round trips).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_device: Option<i32>,
    /// Where the program issued the operation.
    pub site: Option<Site>,
    /// The mapped variable.
    pub variable: Option<String>,
    /// Round trips: where the content was sent out. Allocations: where it was deleted.
    /// Unused transfers overwritten: the transfer that overwrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related_site: Option<Site>,
    /// The variable at `related_site`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related_variable: Option<String>,
    /// Duplicates: where the device first received this content (as far as the tool
    /// remembers). Repeated allocations: where the first of these allocations was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_site: Option<Site>,
    /// The map type of the variable's clause (`to`, `from`, `tofrom`, `alloc`, `delete`;
    /// `implicit tofrom` and the like when the compiler mapped it without a clause), when the
    /// tool saw it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map_type: Option<String>,
    /// Unused transfers: `overwritten`, `deleted` or `no_kernel_after`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// The adaptive region the operation ran in.
    pub region: Option<String>,
    /// What to write instead, and what it would save.
    pub suggestion: Suggestion,
    /// The number of the change (`changes`) that clears it: the same edit as other findings'
    /// (0: none, its suggestion was withheld).
    pub change: usize,
}

impl FindingLists {
    /// Each list with the name of its kind, in the report's order.
    pub fn each_mut(&mut self) -> [(&'static str, &mut Vec<Finding>); 6] {
        [
            ("duplicate transfers", &mut self.duplicate_transfers),
            ("round trips", &mut self.round_trips),
            ("repeated allocations", &mut self.repeated_allocations),
            ("unused allocations", &mut self.unused_allocations),
            ("unused transfers", &mut self.unused_transfers),
            ("unmatched deletes", &mut self.unmatched_deletes),
        ]
    }
}

/// The findings, one list per pattern, costliest first.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FindingLists {
    /// A device received data it already received (the same host data, the same bytes).
    pub duplicate_transfers: Vec<Finding>,
    /// Data sent out came back to it unmodified (the same host data, not other data with the same bytes).
    pub round_trips: Vec<Finding>,
    /// The same data allocated and deleted again.
    pub repeated_allocations: Vec<Finding>,
    /// Allocations no kernel ran during.
    pub unused_allocations: Vec<Finding>,
    /// Transfers no kernel could read.
    pub unused_transfers: Vec<Finding>,
    /// Deletions of memory never seen allocated.
    pub unmatched_deletes: Vec<Finding>,
}

/// Events per pattern.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Counts {
    /// Duplicate transfers.
    pub duplicate_transfers: u64,
    /// Round trips.
    pub round_trips: u64,
    /// Repeated allocations.
    pub repeated_allocations: u64,
    /// Unused allocations.
    pub unused_allocations: u64,
    /// Unused transfers.
    pub unused_transfers: u64,
    /// Deletions of memory never seen allocated.
    pub unmatched_deletes: u64,
}

/// One target device.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceRow {
    /// Its number.
    pub device: i32,
    /// Most memory allocated at once.
    pub peak_bytes: u64,
    /// Memory still allocated when the program ended.
    pub live_bytes_at_exit: u64,
    /// Kernels launched.
    pub kernels: u64,
    /// Time in kernels.
    pub kernel_ns: u64,
}

/// All operations of one kind.
#[derive(Clone, Debug, Serialize)]
pub struct OpRow {
    /// The kind.
    pub op: &'static str,
    /// Operations.
    pub count: u64,
    /// Bytes.
    pub bytes: u64,
    /// Time.
    pub ns: u64,
}

/// One call site's operations of one kind on one device.
#[derive(Clone, Debug, Serialize)]
pub struct SiteRow {
    /// The site.
    pub site: Option<Site>,
    /// `alloc`, `to_device`, `from_device`, `device_to_device`, `delete`, `associate`,
    /// `disassociate`, or `kernel`.
    pub op: &'static str,
    /// The device.
    pub device: i32,
    /// Operations.
    pub count: u64,
    /// Bytes.
    pub bytes: u64,
    /// Total time.
    pub ns: u64,
    /// Shortest operation.
    pub min_ns: u64,
    /// Longest operation.
    pub max_ns: u64,
}

/// What fixing every finding would save.
#[derive(Clone, Debug, Serialize)]
pub struct SavingsOut {
    /// Time of the avoidable operations, each counted once.
    pub ns: u64,
    /// `ns` over the program's wall time.
    pub fraction_of_wall: f64,
    /// Avoidable transfers.
    pub transfers: Agg,
    /// Avoidable allocate/delete pairs.
    pub allocations: Agg,
}

/// The tool's own memory and hashing.
#[derive(Clone, Debug, Serialize)]
pub struct MemoryOut {
    /// The cap on its tables (`OMPADAPT_DATA_MEM`).
    pub cap_bytes: u64,
    /// The most heap the tool held at once (its own allocations, counted exactly).
    pub peak_bytes: u64,
    /// False when some detail was forgotten to stay under the cap (see `dropped`).
    pub complete: bool,
    /// What was forgotten to stay under the cap.
    pub dropped: Dropped,
    /// Transfers with no host side to hash (between two target devices): not checked for
    /// duplicates or round trips.
    pub unhashed_transfers: u64,
    /// Bytes hashed.
    pub hashed_bytes: u64,
    /// Time spent hashing.
    pub hash_ns: u64,
}

/// The report of one program run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The executable.
    pub program: String,
    /// Its process id.
    pub pid: u32,
    /// From tool initialisation to finalisation.
    pub wall_ns: u64,
    /// The host's device number in the events (libomptarget: the number of target devices).
    pub host_device: Option<i32>,
    /// Target devices.
    pub devices: Vec<DeviceRow>,
    /// Totals per kind of operation.
    pub totals: Vec<OpRow>,
    /// Events per pattern.
    pub counts: Counts,
    /// What fixing the findings would save.
    pub savings: SavingsOut,
    /// The findings.
    pub findings: FindingLists,
    /// One entry per edit of the program, with the findings it clears (`changes`).
    pub changes: Vec<changes::Change>,
    /// Every call site's profile, costliest first.
    pub call_sites: Vec<SiteRow>,
    /// The tool's own costs.
    pub memory: MemoryOut,
}

/// The target devices (not the host): memory at peak and at exit, kernels.
fn devices(a: &Analyzer) -> Vec<DeviceRow> {
    a.devices()
        .iter()
        .filter(|(d, _)| Some(**d) != a.host_device())
        .map(|(&device, s)| DeviceRow {
            device,
            peak_bytes: s.peak_bytes,
            live_bytes_at_exit: s.live_bytes,
            kernels: s.kernels,
            kernel_ns: s.kernel_ns,
        })
        .collect()
}

impl Report {
    /// The report of the analysis `a`: its events' sites and variables resolved through
    /// `sites` and `vars`; `wall_ns` the program's time, `cap` the memory cap, `hashed` the
    /// bytes hashed and the time it took.
    pub fn build(a: &Analyzer, sites: &[SiteInfo], vars: &[VarInfo], wall_ns: u64, cap: usize, hashed: (u64, u64)) -> Report {
        let mut r = Resolver::new(sites, vars);
        let (mut findings, counts) = findings(a, &mut r);
        let changes = changes::group(&mut findings);
        let call_sites = call_sites(a, &mut r);
        let dropped = a.dropped();
        let savings_ns = a.savings.transfers.ns + a.savings.allocations.ns;
        Report {
            schema: SCHEMA,
            program: std::fs::read_link("/proc/self/exe").map(|p| p.display().to_string()).unwrap_or_default(),
            pid: std::process::id(),
            wall_ns,
            host_device: a.host_device(),
            devices: devices(a),
            totals: a.totals().iter().map(|(k, v)| OpRow { op: k.name(), count: v.count, bytes: v.bytes, ns: v.ns }).collect(),
            counts,
            savings: SavingsOut {
                ns: savings_ns,
                fraction_of_wall: if wall_ns > 0 { savings_ns as f64 / wall_ns as f64 } else { 0.0 },
                transfers: a.savings.transfers,
                allocations: a.savings.allocations,
            },
            findings,
            changes,
            call_sites,
            memory: MemoryOut {
                cap_bytes: cap as u64,
                peak_bytes: crate::mem::peak() as u64,
                complete: !dropped.any(),
                dropped,
                unhashed_transfers: a.unhashed_transfers,
                hashed_bytes: hashed.0,
                hash_ns: hashed.1,
            },
        }
    }

    /// The report as JSON (schema [`SCHEMA`]).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serialises")
    }

    /// Text tables, the `top` costliest rows of each, every finding with its suggestion.
    pub fn to_text(&self, top: usize) -> String {
        text::text(self, top)
    }

    /// Writes the report where the configuration asks for it (stderr, a text or a JSON file).
    pub fn write(&self, cfg: &Config) {
        let write = |path: &std::path::Path, text: String| {
            if let Err(e) = crate::output::write_report(path, text.as_bytes()) {
                warn(&format!("cannot write the report to {}: {e}", path.display()));
                false
            } else {
                true
            }
        };
        match &cfg.output {
            Output::Stderr => eprint!("{}", self.to_text(cfg.top)),
            Output::Text(p) => {
                write(p, self.to_text(cfg.top));
            }
            Output::Json(p) => {
                if write(p, self.to_json()) {
                    let c = &self.counts;
                    eprintln!(
                        "ompadapt-dataperf: {} duplicate transfers, {} round trips, {} repeated allocations, {} unused allocations, {} unused transfers; report in {}",
                        c.duplicate_transfers, c.round_trips, c.repeated_allocations, c.unused_allocations, c.unused_transfers, p.display()
                    );
                }
            }
            Output::CountersOnly => {}
        }
    }
}
