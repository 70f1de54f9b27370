//! The report: a model built from the analysis, printed as text tables or written as JSON
//! (schema `ompadapt-dataperf/1`, documented in the README).

use std::fmt::Write as _;

use serde::Serialize;

use crate::analysis::{Agg, Analyzer, Dropped, Key};
use crate::config::{warn, Output};
use crate::counters::region_name;
use crate::event::{SiteId, VarId};
use crate::intercept::parse_psource;
use crate::symbolize::{generated, offload_entry, Location, Symbolizer};
use crate::tool::{SiteInfo, Tool};

pub const SCHEMA: &str = "ompadapt-dataperf/1";

#[derive(Clone, Debug, Serialize)]
pub struct Site {
    /// Return address of the call into the OpenMP runtime (hex).
    pub address: String,
    /// `target`, `target enter data`, `target exit data`, `target update`, or `device memory
    /// routine` (omp_target_alloc and friends).
    pub construct: String,
    #[serde(flatten)]
    pub location: Location,
}

#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub count: u64,
    pub bytes: u64,
    pub ns: u64,
    /// The device the finding is about (receiving device of a duplicate, the device memory of
    /// an allocation or unused transfer).
    pub device: i32,
    /// Sending device (duplicates) or the device the content went to and came back from
    /// (round trips).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_device: Option<i32>,
    pub site: Option<Site>,
    pub variable: Option<String>,
    /// Round trips: where the content was sent out. Allocations: where it was deleted.
    /// Unused transfers overwritten: the transfer that overwrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related_site: Option<Site>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related_variable: Option<String>,
    /// Unused transfers: `overwritten`, `deleted` or `no_kernel_after`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// The adaptive region the operation ran in.
    pub region: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FindingLists {
    pub duplicate_transfers: Vec<Finding>,
    pub round_trips: Vec<Finding>,
    pub repeated_allocations: Vec<Finding>,
    pub unused_allocations: Vec<Finding>,
    pub unused_transfers: Vec<Finding>,
    pub unmatched_deletes: Vec<Finding>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Counts {
    pub duplicate_transfers: u64,
    pub round_trips: u64,
    pub repeated_allocations: u64,
    pub unused_allocations: u64,
    pub unused_transfers: u64,
    pub unmatched_deletes: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct DeviceRow {
    pub device: i32,
    pub peak_bytes: u64,
    pub live_bytes_at_exit: u64,
    pub kernels: u64,
    pub kernel_ns: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct OpRow {
    pub op: &'static str,
    pub count: u64,
    pub bytes: u64,
    pub ns: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct SiteRow {
    pub site: Option<Site>,
    /// `alloc`, `to_device`, `from_device`, `device_to_device`, `delete`, `associate`,
    /// `disassociate`, or `kernel`.
    pub op: &'static str,
    pub device: i32,
    pub count: u64,
    pub bytes: u64,
    pub ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct SavingsOut {
    /// Time of the avoidable operations, each counted once.
    pub ns: u64,
    /// `ns` over the program's wall time.
    pub fraction_of_wall: f64,
    pub transfers: Agg,
    pub allocations: Agg,
}

#[derive(Clone, Debug, Serialize)]
pub struct MemoryOut {
    pub cap_bytes: u64,
    /// The most heap the tool held at once (its own allocations, counted exactly).
    pub peak_bytes: u64,
    /// False when some detail was forgotten to stay under the cap (see `dropped`).
    pub complete: bool,
    pub dropped: Dropped,
    /// Transfers with no host side to hash (between two target devices): not checked for
    /// duplicates or round trips.
    pub unhashed_transfers: u64,
    pub hashed_bytes: u64,
    pub hash_ns: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub schema: &'static str,
    pub program: String,
    pub pid: u32,
    /// From tool initialisation to finalisation.
    pub wall_ns: u64,
    /// The host's device number in the events (libomptarget: the number of target devices).
    pub host_device: Option<i32>,
    pub devices: Vec<DeviceRow>,
    pub totals: Vec<OpRow>,
    pub counts: Counts,
    pub savings: SavingsOut,
    pub findings: FindingLists,
    pub call_sites: Vec<SiteRow>,
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

impl Report {
    pub fn build(a: &Analyzer, sites: &[SiteInfo], vars: &[String], wall_ns: u64, cap: usize, hashed: (u64, u64)) -> Report {
        let mut r = Resolver { sym: Symbolizer::new(), sites, vars, cache: Default::default() };
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
                    f.duplicate_transfers.push(Finding { other_device: Some(src), ..base(&mut r, dev, site, var, region) });
                }
                Key::RoundTrip { a, b, send_site, send_var, site, var, region } => {
                    counts.round_trips += agg.count;
                    let related_site = r.site(send_site);
                    f.round_trips.push(Finding {
                        other_device: Some(b),
                        related_site,
                        related_variable: r.var(send_var),
                        ..base(&mut r, a, site, var, region)
                    });
                }
                Key::RepeatedAlloc { dev, site, delete_site, var, region } => {
                    counts.repeated_allocations += agg.count;
                    let related_site = r.site(delete_site);
                    f.repeated_allocations.push(Finding { related_site, ..base(&mut r, dev, site, var, region) });
                }
                Key::UnusedAlloc { dev, site, delete_site, var, region } => {
                    counts.unused_allocations += agg.count;
                    let related_site = r.site(delete_site);
                    f.unused_allocations.push(Finding { related_site, ..base(&mut r, dev, site, var, region) });
                }
                Key::UnusedTransfer { dev, site, var, region, why, by_site } => {
                    counts.unused_transfers += agg.count;
                    let related_site = r.site(by_site);
                    f.unused_transfers.push(Finding { related_site, reason: Some(why.name()), ..base(&mut r, dev, site, var, region) });
                }
                Key::UnmatchedDelete { dev, site, region } => {
                    counts.unmatched_deletes += agg.count;
                    f.unmatched_deletes.push(base(&mut r, dev, site, 0, region));
                }
            }
        }
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
        let dropped = a.dropped();
        let savings_ns = a.savings.transfers.ns + a.savings.allocations.ns;
        Report {
            schema: SCHEMA,
            program: std::fs::read_link("/proc/self/exe").map(|p| p.display().to_string()).unwrap_or_default(),
            pid: std::process::id(),
            wall_ns,
            host_device: a.host_device(),
            devices: a
                .devices()
                .iter()
                .filter(|(d, _)| Some(**d) != a.host_device())
                .map(|(&device, s)| DeviceRow {
                    device,
                    peak_bytes: s.peak_bytes,
                    live_bytes_at_exit: s.live_bytes,
                    kernels: s.kernels,
                    kernel_ns: s.kernel_ns,
                })
                .collect(),
            totals: a.totals().iter().map(|(k, v)| OpRow { op: k.name(), count: v.count, bytes: v.bytes, ns: v.ns }).collect(),
            counts,
            savings: SavingsOut {
                ns: savings_ns,
                fraction_of_wall: if wall_ns > 0 { savings_ns as f64 / wall_ns as f64 } else { 0.0 },
                transfers: a.savings.transfers,
                allocations: a.savings.allocations,
            },
            findings: f,
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

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serialises")
    }

    /// Text tables, the `top` costliest rows of each.
    pub fn to_text(&self, top: usize) -> String {
        let mut o = String::new();
        let pct = |ns: u64| if self.wall_ns > 0 { 100.0 * ns as f64 / self.wall_ns as f64 } else { 0.0 };
        let _ = writeln!(o, "=== ompadapt-dataperf: OpenMP data movement of {} (pid {})", self.program, self.pid);
        let _ = writeln!(
            o,
            "    {} duplicate transfers, {} round trips, {} repeated allocations, {} unused allocations, {} unused transfers",
            self.counts.duplicate_transfers,
            self.counts.round_trips,
            self.counts.repeated_allocations,
            self.counts.unused_allocations,
            self.counts.unused_transfers
        );
        let loc = |s: &Option<Site>| s.as_ref().map_or("?".to_owned(), |s| s.location.short());
        let var = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        let region = |r: &Option<String>| r.as_ref().map_or(String::new(), |r| format!("  [region {r}]"));
        let dev = |d: i32| if Some(d) == self.host_device { "host".to_owned() } else { format!("dev {d}") };
        let section = |o: &mut String, title: &str, rows: &[Finding], line: &dyn Fn(&Finding) -> String| {
            let _ = writeln!(o, "\n--- {title}");
            if rows.is_empty() {
                let _ = writeln!(o, "    none");
                return;
            }
            let _ = writeln!(o, "{:>8} {:>10} {:>8} {:>12}  where", "time%", "time", "count", "bytes");
            for f in rows.iter().take(top) {
                let _ = writeln!(o, "{:>7.2}% {:>10} {:>8} {:>12}  {}", pct(f.ns), fmt_ns(f.ns), f.count, f.bytes, line(f));
            }
            if rows.len() > top {
                let _ = writeln!(o, "    ... {} more rows (OMPADAPT_DATA_TOP, or the JSON report)", rows.len() - top);
            }
        };
        section(&mut o, "duplicate transfers (a device receives content it already received)", &self.findings.duplicate_transfers, &|f| {
            format!(
                "{} <- {}  {}  {}{}",
                dev(f.device),
                dev(f.other_device.unwrap_or(-1)),
                loc(&f.site),
                var(&f.variable),
                region(&f.region)
            )
        });
        section(&mut o, "round trips (content sent out comes back unmodified)", &self.findings.round_trips, &|f| {
            format!(
                "{} -> {} at {} {} ; back at {} {}{}",
                dev(f.device),
                dev(f.other_device.unwrap_or(-1)),
                loc(&f.related_site),
                var(&f.related_variable),
                loc(&f.site),
                var(&f.variable),
                region(&f.region)
            )
        });
        section(&mut o, "repeated allocations (same data allocated and deleted again)", &self.findings.repeated_allocations, &|f| {
            format!("{}  alloc {} {} ; delete {}{}", dev(f.device), loc(&f.site), var(&f.variable), loc(&f.related_site), region(&f.region))
        });
        section(&mut o, "unused allocations (no kernel ran while allocated)", &self.findings.unused_allocations, &|f| {
            let del = if f.related_site.is_some() { loc(&f.related_site) } else { "never deleted".into() };
            format!("{}  alloc {} {} ; delete {}{}", dev(f.device), loc(&f.site), var(&f.variable), del, region(&f.region))
        });
        section(&mut o, "unused transfers (no kernel could read them)", &self.findings.unused_transfers, &|f| {
            let why = match f.reason {
                Some("overwritten") => format!("overwritten at {}", loc(&f.related_site)),
                Some("deleted") => "deleted before any kernel".into(),
                _ => "no kernel after it".into(),
            };
            format!("{}  {} {} ({why}){}", dev(f.device), loc(&f.site), var(&f.variable), region(&f.region))
        });
        if !self.findings.unmatched_deletes.is_empty() {
            section(&mut o, "deletions of device memory never seen allocated", &self.findings.unmatched_deletes, &|f| {
                format!("{}  {}{}", dev(f.device), loc(&f.site), region(&f.region))
            });
        }
        let f = &self.findings;
        let unnamed = [&f.duplicate_transfers, &f.round_trips, &f.repeated_allocations, &f.unused_allocations, &f.unused_transfers]
            .iter()
            .flat_map(|rows| rows.iter().take(top))
            .any(|r| r.variable.is_none());
        if unnamed {
            let _ = writeln!(o, "\n    '-': variable unknown (the program has no debug information: rebuild it with -g for names)");
        }
        let s = &self.savings;
        let _ = writeln!(o, "\n--- potential savings (each operation counted once)");
        let _ = writeln!(o, "    time          {:>10}  ({:.2}% of {})", fmt_ns(s.ns), 100.0 * s.fraction_of_wall, fmt_ns(self.wall_ns));
        let _ = writeln!(o, "    transfers     {:>10}  ({} bytes)", s.transfers.count, s.transfers.bytes);
        let _ = writeln!(o, "    allocations   {:>10}  ({} bytes)", s.allocations.count, s.allocations.bytes);
        let _ = writeln!(o, "\n--- devices");
        for d in &self.devices {
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
        let _ = writeln!(o, "\n--- call sites by time");
        let _ = writeln!(o, "{:>8} {:>10} {:>8} {:>10} {:>10} {:>12}  {:<16} where", "time%", "time", "count", "min", "max", "bytes", "op");
        for c in self.call_sites.iter().take(top) {
            let _ = writeln!(
                o,
                "{:>7.2}% {:>10} {:>8} {:>10} {:>10} {:>12}  {:<16} {} {}",
                pct(c.ns),
                fmt_ns(c.ns),
                c.count,
                fmt_ns(c.min_ns),
                fmt_ns(c.max_ns),
                c.bytes,
                c.op,
                dev(c.device),
                loc(&c.site)
            );
        }
        let m = &self.memory;
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
        o
    }
}

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

/// Builds and writes the report the configuration asks for.
pub(crate) fn emit(t: &Tool, wall_ns: u64) {
    if t.cfg.output == Output::CountersOnly {
        return;
    }
    let mut s = t.state.lock().unwrap_or_else(|e| e.into_inner());
    s.analyzer.finish();
    let sites = std::mem::take(&mut s.sites.info);
    let vars = std::mem::take(&mut s.vars.names);
    let hashed = (t.hashed_bytes.load(std::sync::atomic::Ordering::Relaxed), t.hash_ns.load(std::sync::atomic::Ordering::Relaxed));
    let report = Report::build(&s.analyzer, &sites, &vars, wall_ns, t.cfg.mem_cap, hashed);
    let write = |path: &std::path::Path, text: String| {
        if let Err(e) = crate::output::write_report(path, text.as_bytes()) {
            warn(&format!("cannot write the report to {}: {e}", path.display()));
            false
        } else {
            true
        }
    };
    match &t.cfg.output {
        Output::Stderr => eprint!("{}", report.to_text(t.cfg.top)),
        Output::Text(p) => {
            write(p, report.to_text(t.cfg.top));
        }
        Output::Json(p) => {
            if write(p, report.to_json()) {
                let c = &report.counts;
                eprintln!(
                    "ompadapt-dataperf: {} duplicate transfers, {} round trips, {} repeated allocations, {} unused allocations, {} unused transfers; report in {}",
                    c.duplicate_transfers, c.round_trips, c.repeated_allocations, c.unused_allocations, c.unused_transfers, p.display()
                );
            }
        }
        Output::CountersOnly => {}
    }
}
