//! The text report: a table per kind of finding (each row followed by its suggestion), the
//! savings, the devices, the costliest call sites and the tool's own costs.

use std::fmt::Write as _;

use super::{Finding, Report, Site};
use crate::units::{fmt_bytes, fmt_ns};

/// The text report of `r`, the `top` costliest rows per table.
pub(super) fn text(r: &Report, top: usize) -> String {
    let mut t = Text { r, top, o: String::new() };
    let _ = writeln!(t.o, "=== ompadapt-dataperf: OpenMP data movement of {} (pid {})", r.program, r.pid);
    let _ = writeln!(
        t.o,
        "    {} duplicate transfers, {} round trips, {} repeated allocations, {} unused allocations, {} unused transfers",
        r.counts.duplicate_transfers,
        r.counts.round_trips,
        r.counts.repeated_allocations,
        r.counts.unused_allocations,
        r.counts.unused_transfers
    );
    t.findings();
    t.changes();
    t.savings_and_devices();
    t.call_sites();
    t.tool();
    t.o
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
    /// Each edit once, with the findings it clears (`top` of them; the JSON has every one).
    fn changes(&mut self) {
        let r = self.r;
        let _ = writeln!(self.o, "\n--- changes (one per edit of the program; each clears the findings listed)");
        if r.changes.is_empty() {
            let _ = writeln!(self.o, "    none");
        }
        for c in r.changes.iter().take(self.top) {
            let clears: Vec<String> = c.clears.iter().map(|(k, n)| format!("{n} {k}")).collect();
            let _ = writeln!(self.o, "{:>4}. {}", c.number, c.text);
            let _ = writeln!(self.o, "      clears {}", clears.join(", "));
        }
        if r.changes.len() > self.top {
            let _ = writeln!(self.o, "    ... {} more changes (OMPADAPT_DATA_TOP, or the JSON report)", r.changes.len() - self.top);
        }
    }

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
            if f.suggestion.withheld() {
                let _ = writeln!(self.o, "{:>43}{}", "", f.suggestion.text);
            } else {
                let _ = writeln!(self.o, "{:>43}fix: change {} (below)", "", f.change);
            }
        }
        if rows.len() > self.top {
            let _ = writeln!(self.o, "    ... {} more rows (OMPADAPT_DATA_TOP, or the JSON report)", rows.len() - self.top);
        }
    }

    /// A table per kind of finding, and a note when variables are unknown.
    fn findings(&mut self) {
        let r = self.r;
        let f = &r.findings;
        self.section("duplicate transfers (a device receives data it already received)", &f.duplicate_transfers, &|t, f| {
            let first = match &f.first_site {
                Some(s) if f.site.as_ref().is_none_or(|own| own.address != s.address) => format!(" ; first at {}", s.location.short()),
                _ => String::new(),
            };
            format!(
                "{} <- {}  {}  {}{first}{}",
                t.dev(f.device),
                t.dev(f.other_device.unwrap_or(-1)),
                loc(&f.site),
                var(&f.variable),
                region(&f.region)
            )
        });
        self.section("round trips (data sent out comes back to it unmodified)", &f.round_trips, &|t, f| {
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
                 {} allocation histories forgotten, {} allocations and {} transfers not judged, {} findings and {} profile rows merged, \
                 {} agreed contents forgotten, {} operations not counted for their list item",
                d.contents_forgotten,
                d.sends_forgotten,
                d.alloc_histories_forgotten,
                d.allocs_untracked,
                d.transfers_unjudged,
                d.findings_merged,
                d.profile_merged,
                d.copies_forgotten,
                d.seen_untracked
            );
        }
        if m.unhashed_transfers > 0 {
            let _ = writeln!(o, "    {} transfers between target devices not checked for duplicates", m.unhashed_transfers);
        }
    }
}
