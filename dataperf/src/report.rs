//! The report: a model built from the analysis, printed as text tables or written as JSON
//! (schema `ompadapt-dataperf/1`, documented in the README).

use std::fmt::Write as _;

use serde::Serialize;

use crate::analysis::{Agg, Analyzer, Dropped, Key};
use crate::config::{warn, Config, Output};
use crate::counters::region_name;
use crate::event::{SiteId, VarId};
use crate::intercept::parse_psource;
use crate::sites::SiteInfo;
use crate::symbolize::{generated, offload_entry, Location, Symbolizer};

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
#[derive(Clone, Debug, Serialize)]
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
    /// Unused transfers: `overwritten`, `deleted` or `no_kernel_after`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// The adaptive region the operation ran in.
    pub region: Option<String>,
}

/// The findings, one list per pattern, costliest first.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FindingLists {
    /// A device received content it already received.
    pub duplicate_transfers: Vec<Finding>,
    /// Content sent out came back unmodified.
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
    /// Every call site's profile, costliest first.
    pub call_sites: Vec<SiteRow>,
    /// The tool's own costs.
    pub memory: MemoryOut,
}

struct Resolver<'a> {
    sym: Symbolizer,
    sites: &'a [SiteInfo],
    vars: &'a [String],
    cache: std::collections::HashMap<SiteId, Site>,
}

impl Resolver<'_> {
    fn site(&mut self, id: SiteId) -> Option<Site> {
        if id == 0 {
            return None;
        }
        if let Some(s) = self.cache.get(&id) {
            return Some(s.clone());
        }
        let info = self.sites.get(id as usize)?;
        let mut location = self.sym.locate(info.ra as u64);
        // The compiler's own record of the construct (its ident_t), where the stubs saw it:
        // clang emits the runtime calls of data constructs without a debug location, so the
        // line table at the call says nothing reliable about them.
        if let Some((file, func, line, col)) = info.source.as_deref().and_then(parse_psource) {
            location.file = Some(file);
            location.line = line;
            location.column = col;
            if location.function.as_deref().is_none_or(generated) {
                location.function = Some(func);
            }
        }
        // A kernel launched from a helper the compiler generated (a `nowait` task): its offload
        // entry names the function and line the programmer wrote.
        if info.entry != 0 && location.function.as_deref().is_none_or(generated) {
            if let Some((func, line)) = self.sym.symbol(info.entry as u64).as_deref().and_then(offload_entry) {
                location.function = Some(func);
                if location.line == 0 {
                    location.line = line;
                }
            }
        }
        let s = Site { address: format!("{:#x}", info.ra), construct: info.construct.name().to_owned(), location };
        self.cache.insert(id, s.clone());
        Some(s)
    }

    fn var(&self, id: VarId) -> Option<String> {
        self.vars.get(id as usize).filter(|v| !v.is_empty()).cloned()
    }
}

/// The analysis' findings, costliest first, resolved to sites and variables; with their counts.
fn findings(a: &Analyzer, r: &mut Resolver) -> (FindingLists, Counts) {
    let mut f = FindingLists::default();
    let mut counts = Counts::default();
    let mut rows: Vec<(&Key, &Agg)> = a.findings.rows().collect();
    rows.sort_by(|x, y| y.1.ns.cmp(&x.1.ns).then(y.1.count.cmp(&x.1.count)).then(x.0.cmp(y.0)));
    for (k, agg) in rows {
        let base = |r: &mut Resolver, device, site, var, region: u32| Finding {
            count: agg.count,
            bytes: agg.bytes,
            ns: agg.ns,
            device,
            other_device: None,
            site: r.site(site),
            variable: r.var(var),
            related_site: None,
            related_variable: None,
            reason: None,
            region: region_name(region),
        };
        match *k {
            Key::Duplicate { dev, src, site, var, region } => {
                counts.duplicate_transfers += agg.count;
                f.duplicate_transfers.push(Finding { other_device: Some(src), ..base(r, dev, site, var, region) });
            }
            Key::RoundTrip { a, b, send_site, send_var, site, var, region } => {
                counts.round_trips += agg.count;
                let related_site = r.site(send_site);
                f.round_trips.push(Finding {
                    other_device: Some(b),
                    related_site,
                    related_variable: r.var(send_var),
                    ..base(r, a, site, var, region)
                });
            }
            Key::RepeatedAlloc { dev, site, delete_site, var, region } => {
                counts.repeated_allocations += agg.count;
                let related_site = r.site(delete_site);
                f.repeated_allocations.push(Finding { related_site, ..base(r, dev, site, var, region) });
            }
            Key::UnusedAlloc { dev, site, delete_site, var, region } => {
                counts.unused_allocations += agg.count;
                let related_site = r.site(delete_site);
                f.unused_allocations.push(Finding { related_site, ..base(r, dev, site, var, region) });
            }
            Key::UnusedTransfer { dev, site, var, region, why, by_site } => {
                counts.unused_transfers += agg.count;
                let related_site = r.site(by_site);
                f.unused_transfers.push(Finding { related_site, reason: Some(why.name()), ..base(r, dev, site, var, region) });
            }
            Key::UnmatchedDelete { dev, site, region } => {
                counts.unmatched_deletes += agg.count;
                f.unmatched_deletes.push(base(r, dev, site, 0, region));
            }
        }
    }
    (f, counts)
}

/// Every call site's profile per operation and device (kernels included), costliest first.
fn call_sites(a: &Analyzer, r: &mut Resolver) -> Vec<SiteRow> {
    let mut call_sites: Vec<SiteRow> = a
        .profile()
        .map(|(&(site, op, device), p)| (site, op.name(), device, *p))
        .chain(a.kernel_profile().map(|(&(site, device), p)| (site, "kernel", device, *p)))
        .map(|(site, op, device, p)| SiteRow {
            site: r.site(site),
            op,
            device,
            count: p.count,
            bytes: p.bytes,
            ns: p.ns,
            min_ns: p.min_ns,
            max_ns: p.max_ns,
        })
        .collect();
    call_sites.sort_by(|x, y| y.ns.cmp(&x.ns).then(y.count.cmp(&x.count)));
    call_sites
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
    pub fn build(a: &Analyzer, sites: &[SiteInfo], vars: &[String], wall_ns: u64, cap: usize, hashed: (u64, u64)) -> Report {
        let mut r = Resolver { sym: Symbolizer::new(), sites, vars, cache: Default::default() };
        let (findings, counts) = findings(a, &mut r);
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

    /// Text tables, the `top` costliest rows of each.
    pub fn to_text(&self, top: usize) -> String {
        let mut t = Text { r: self, top, o: String::new() };
        let _ = writeln!(t.o, "=== ompadapt-dataperf: OpenMP data movement of {} (pid {})", self.program, self.pid);
        let _ = writeln!(
            t.o,
            "    {} duplicate transfers, {} round trips, {} repeated allocations, {} unused allocations, {} unused transfers",
            self.counts.duplicate_transfers,
            self.counts.round_trips,
            self.counts.repeated_allocations,
            self.counts.unused_allocations,
            self.counts.unused_transfers
        );
        t.findings();
        t.savings_and_devices();
        t.call_sites();
        t.tool();
        t.o
    }
}

/// The text report being written: the report, the rows shown per table, the text so far.
struct Text<'a> {
    r: &'a Report,
    top: usize,
    o: String,
}

fn loc(s: &Option<Site>) -> String {
    s.as_ref().map_or("?".to_owned(), |s| s.location.short())
}

fn var(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "-".into())
}

fn region(r: &Option<String>) -> String {
    r.as_ref().map_or(String::new(), |r| format!("  [region {r}]"))
}

impl Text<'_> {
    /// `ns` in percent of the program's time.
    fn pct(&self, ns: u64) -> f64 {
        if self.r.wall_ns > 0 {
            100.0 * ns as f64 / self.r.wall_ns as f64
        } else {
            0.0
        }
    }

    fn dev(&self, d: i32) -> String {
        if Some(d) == self.r.host_device {
            "host".to_owned()
        } else {
            format!("dev {d}")
        }
    }

    /// One table of findings: the `top` costliest, each described by `line`.
    fn section(&mut self, title: &str, rows: &[Finding], line: &dyn Fn(&Self, &Finding) -> String) {
        let _ = writeln!(self.o, "\n--- {title}");
        if rows.is_empty() {
            let _ = writeln!(self.o, "    none");
            return;
        }
        let _ = writeln!(self.o, "{:>8} {:>10} {:>8} {:>12}  where", "time%", "time", "count", "bytes");
        for f in rows.iter().take(self.top) {
            let text = line(self, f);
            let _ = writeln!(self.o, "{:>7.2}% {:>10} {:>8} {:>12}  {}", self.pct(f.ns), fmt_ns(f.ns), f.count, f.bytes, text);
        }
        if rows.len() > self.top {
            let _ = writeln!(self.o, "    ... {} more rows (OMPADAPT_DATA_TOP, or the JSON report)", rows.len() - self.top);
        }
    }

    /// A table per kind of finding, and a note when variables are unknown.
    fn findings(&mut self) {
        let r = self.r;
        let f = &r.findings;
        self.section("duplicate transfers (a device receives content it already received)", &f.duplicate_transfers, &|t, f| {
            format!(
                "{} <- {}  {}  {}{}",
                t.dev(f.device),
                t.dev(f.other_device.unwrap_or(-1)),
                loc(&f.site),
                var(&f.variable),
                region(&f.region)
            )
        });
        self.section("round trips (content sent out comes back unmodified)", &f.round_trips, &|t, f| {
            format!(
                "{} -> {} at {} {} ; back at {} {}{}",
                t.dev(f.device),
                t.dev(f.other_device.unwrap_or(-1)),
                loc(&f.related_site),
                var(&f.related_variable),
                loc(&f.site),
                var(&f.variable),
                region(&f.region)
            )
        });
        self.section("repeated allocations (same data allocated and deleted again)", &f.repeated_allocations, &|t, f| {
            format!(
                "{}  alloc {} {} ; delete {}{}",
                t.dev(f.device),
                loc(&f.site),
                var(&f.variable),
                loc(&f.related_site),
                region(&f.region)
            )
        });
        self.section("unused allocations (no kernel ran while allocated)", &f.unused_allocations, &|t, f| {
            let del = if f.related_site.is_some() { loc(&f.related_site) } else { "never deleted".into() };
            format!("{}  alloc {} {} ; delete {}{}", t.dev(f.device), loc(&f.site), var(&f.variable), del, region(&f.region))
        });
        self.section("unused transfers (no kernel could read them)", &f.unused_transfers, &|t, f| {
            let why = match f.reason {
                Some("overwritten") => format!("overwritten at {}", loc(&f.related_site)),
                Some("deleted") => "deleted before any kernel".into(),
                _ => "no kernel after it".into(),
            };
            format!("{}  {} {} ({why}){}", t.dev(f.device), loc(&f.site), var(&f.variable), region(&f.region))
        });
        if !f.unmatched_deletes.is_empty() {
            self.section("deletions of device memory never seen allocated", &f.unmatched_deletes, &|t, f| {
                format!("{}  {}{}", t.dev(f.device), loc(&f.site), region(&f.region))
            });
        }
        let unnamed = [&f.duplicate_transfers, &f.round_trips, &f.repeated_allocations, &f.unused_allocations, &f.unused_transfers]
            .iter()
            .flat_map(|rows| rows.iter().take(self.top))
            .any(|r| r.variable.is_none());
        if unnamed {
            let _ = writeln!(self.o, "\n    '-': variable unknown (the program has no debug information: rebuild it with -g for names)");
        }
    }

    /// What fixing the findings would save, and the devices' memory and kernels.
    fn savings_and_devices(&mut self) {
        let (o, r) = (&mut self.o, self.r);
        let s = &r.savings;
        let _ = writeln!(o, "\n--- potential savings (each operation counted once)");
        let _ = writeln!(o, "    time          {:>10}  ({:.2}% of {})", fmt_ns(s.ns), 100.0 * s.fraction_of_wall, fmt_ns(r.wall_ns));
        let _ = writeln!(o, "    transfers     {:>10}  ({} bytes)", s.transfers.count, s.transfers.bytes);
        let _ = writeln!(o, "    allocations   {:>10}  ({} bytes)", s.allocations.count, s.allocations.bytes);
        let _ = writeln!(o, "\n--- devices");
        for d in &r.devices {
            let _ = writeln!(
                o,
                "    dev {:<3} peak {:>12} bytes, {:>12} bytes live at exit, {} kernels ({})",
                d.device,
                d.peak_bytes,
                d.live_bytes_at_exit,
                d.kernels,
                fmt_ns(d.kernel_ns)
            );
        }
    }

    /// The `top` costliest call sites.
    fn call_sites(&mut self) {
        let _ = writeln!(self.o, "\n--- call sites by time");
        let _ = writeln!(
            self.o,
            "{:>8} {:>10} {:>8} {:>10} {:>10} {:>12}  {:<16} where",
            "time%", "time", "count", "min", "max", "bytes", "op"
        );
        for c in self.r.call_sites.iter().take(self.top) {
            let line = format!(
                "{:>7.2}% {:>10} {:>8} {:>10} {:>10} {:>12}  {:<16} {} {}",
                self.pct(c.ns),
                fmt_ns(c.ns),
                c.count,
                fmt_ns(c.min_ns),
                fmt_ns(c.max_ns),
                c.bytes,
                c.op,
                self.dev(c.device),
                loc(&c.site)
            );
            let _ = writeln!(self.o, "{line}");
        }
    }

    /// The tool's own memory and hashing, and what it dropped to stay under its cap.
    fn tool(&mut self) {
        let o = &mut self.o;
        let m = &self.r.memory;
        let _ = writeln!(
            o,
            "\n--- tool: {} of memory at peak (cap {}), hashing {} bytes took {}",
            fmt_bytes(m.peak_bytes),
            fmt_bytes(m.cap_bytes),
            m.hashed_bytes,
            fmt_ns(m.hash_ns)
        );
        if !m.complete {
            let d = &m.dropped;
            let _ = writeln!(
                o,
                "    DETAIL DROPPED to stay under the cap (raise OMPADAPT_DATA_MEM): {} received contents and {} sends forgotten, \
                 {} allocation histories forgotten, {} allocations and {} transfers not judged, {} findings and {} profile rows merged",
                d.contents_forgotten,
                d.sends_forgotten,
                d.alloc_histories_forgotten,
                d.allocs_untracked,
                d.transfers_unjudged,
                d.findings_merged,
                d.profile_merged
            );
        }
        if m.unhashed_transfers > 0 {
            let _ = writeln!(o, "    {} transfers between target devices not checked for duplicates", m.unhashed_transfers);
        }
    }
}

/// A duration for humans (ns, us, ms, s).
pub fn fmt_ns(ns: u64) -> String {
    match ns {
        0..=9_999 => format!("{ns}ns"),
        10_000..=9_999_999 => format!("{:.1}us", ns as f64 / 1e3),
        10_000_000..=9_999_999_999 => format!("{:.1}ms", ns as f64 / 1e6),
        _ => format!("{:.2}s", ns as f64 / 1e9),
    }
}

fn fmt_bytes(b: u64) -> String {
    match b {
        0..=10_239 => format!("{b} B"),
        10_240..=10_485_759 => format!("{:.1} KiB", b as f64 / 1024.0),
        _ => format!("{:.1} MiB", b as f64 / 1048576.0),
    }
}

impl Report {
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
