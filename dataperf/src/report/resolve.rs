//! The analysis' ids resolved: call sites to source locations, variables to their map
//! clauses, findings to report rows with their suggestions.

use std::collections::HashMap;

use super::{Counts, Finding, FindingLists, Site, SiteRow};
use crate::analysis::{Analyzer, Key, Row};
use crate::counters::region_name;
use crate::event::{RegionId, SiteId, VarId};
use crate::intercept::parse_psource;
use crate::sites::{SiteInfo, VarInfo};
use crate::source::{calls_in_file, enclosing_loop_in_file};
use crate::suggest::{suggest, CallPlace, Pattern, Place, Subject};
use crate::symbolize::{generated, offload_entry, plain_name, Caller, Symbolizer};

/// Source files read for loops and calls, at most: the report's time stays bounded however
/// many places the findings name.
const SOURCE_SCANS: usize = 256;

/// Sites, variables and loops, each resolved once.
pub(super) struct Resolver<'a> {
    sym: Symbolizer,
    sites: &'a [SiteInfo],
    vars: &'a [VarInfo],
    cache: HashMap<SiteId, Site>,
    loops: HashMap<(String, u32), Option<u32>>,
    scans_left: usize,
}

impl<'a> Resolver<'a> {
    pub(super) fn new(sites: &'a [SiteInfo], vars: &'a [VarInfo]) -> Self {
        Resolver { sym: Symbolizer::new(), sites, vars, cache: HashMap::new(), loops: HashMap::new(), scans_left: SOURCE_SCANS }
    }
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
            let file = self.sym.relative(file);
            let within = location.function.take().filter(|f| !generated(f));
            location.caller =
                location.caller.take().or_else(|| self.inlined_call(&func, within.as_deref(), &file, location.file.as_deref()));
            // The function the construct is written in: the compiler's record of it where the
            // line table shows the function it was inlined into, as far as a name tells.
            location.function = match within {
                Some(f) if plain_name(&f) == func || location.caller.is_none() => Some(f),
                _ => Some(func),
            };
            location.file = Some(file);
            location.line = line;
            location.column = col;
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
        if location.caller.is_none() {
            location.caller = info.caller_ra.filter(|&ra| ra != 0).and_then(|ra| self.called_from(ra));
        }
        let s = Site { address: format!("{:#x}", info.ra), construct: info.construct.name().to_owned(), location };
        self.cache.insert(id, s.clone());
        Some(s)
    }

    /// The call of `func` (written in `file`) in `within`, the function the line table puts its
    /// construct in (in `within_file`), when the two differ: the compiler inlined `func` and
    /// kept no record of the call; the source shows it when it calls `func` once.
    fn inlined_call(&mut self, func: &str, within: Option<&str>, file: &str, within_file: Option<&str>) -> Option<Caller> {
        let within = within?;
        if plain_name(within) == func || !func.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return None;
        }
        let mut found = None;
        for f in [Some(file), within_file.filter(|f| *f != file)].into_iter().flatten() {
            if self.scans_left == 0 {
                return None;
            }
            self.scans_left -= 1;
            let lines = calls_in_file(std::path::Path::new(f), func);
            if !lines.is_empty() {
                found = Some((f, lines));
                break;
            }
        }
        let (file, lines) = found?;
        match lines[..] {
            [line] => Some(Caller { function: Some(within.to_owned()), file: file.to_owned(), line }),
            _ => None,
        }
    }

    /// The call whose return address is `ra`, where the program has debug information.
    fn called_from(&mut self, ra: usize) -> Option<Caller> {
        let l = self.sym.locate(ra as u64);
        let file = l.file.filter(|_| l.line > 0)?;
        Some(Caller { function: l.function, file, line: l.line })
    }

    fn var(&self, id: VarId) -> Option<String> {
        self.vars.get(id as usize).map(|v| v.name.clone()).filter(|v| !v.is_empty())
    }

    fn var_info(&self, id: VarId) -> Option<&VarInfo> {
        self.vars.get(id as usize).filter(|v| !v.name.is_empty())
    }

    /// The line of the innermost loop around `line` of `file` (read once per place).
    fn loop_around(&mut self, file: &str, line: u32) -> Option<u32> {
        if line == 0 {
            return None;
        }
        let key = (file.to_owned(), line);
        if let Some(&l) = self.loops.get(&key) {
            return l;
        }
        if self.scans_left == 0 {
            return None;
        }
        self.scans_left -= 1;
        let l = enclosing_loop_in_file(std::path::Path::new(file), line);
        self.loops.insert(key, l);
        l
    }

    /// The construct at `id` as a suggestion names it: with the loop around it, and the loop
    /// around the call of its function when it was inlined.
    fn place(&mut self, id: SiteId) -> Option<Place> {
        let site = self.site(id)?;
        let construct = self.sites.get(id as usize)?.construct;
        let l = site.location;
        let loop_line = l.file.as_deref().and_then(|f| self.loop_around(f, l.line));
        let caller =
            l.caller.map(|c| CallPlace { loop_line: self.loop_around(&c.file, c.line), function: c.function, file: c.file, line: c.line });
        Some(Place { construct, file: l.file, line: l.line, function: l.function, loop_line, caller })
    }
}

/// A finding's identity spelled out: what each of its ids is to the report.
struct Described {
    pattern: Pattern,
    device: i32,
    other_device: Option<i32>,
    site: SiteId,
    var: VarId,
    region: RegionId,
    related_site: SiteId,
    related_var: VarId,
    first_site: SiteId,
    /// The data went to the host (a duplicate the host received, a round trip from the host).
    to_host: bool,
}

impl Described {
    fn of(k: &Key, host: Option<i32>) -> Described {
        let d = |pattern, device, site, var, region| Described {
            pattern,
            device,
            other_device: None,
            site,
            var,
            region,
            related_site: 0,
            related_var: 0,
            first_site: 0,
            to_host: false,
        };
        match *k {
            Key::Duplicate { dev, src, site, first_site, var, region } => Described {
                other_device: Some(src),
                first_site,
                to_host: Some(dev) == host,
                ..d(Pattern::Duplicate, dev, site, var, region)
            },
            Key::RoundTrip { a, b, send_site, send_var, site, var, region } => Described {
                other_device: Some(b),
                related_site: send_site,
                related_var: send_var,
                to_host: Some(a) == host,
                ..d(Pattern::RoundTrip, a, site, var, region)
            },
            Key::RepeatedAlloc { dev, site, first_site, delete_site, var, region } => {
                Described { related_site: delete_site, first_site, ..d(Pattern::RepeatedAlloc, dev, site, var, region) }
            }
            Key::UnusedAlloc { dev, site, delete_site, var, region } => {
                Described { related_site: delete_site, ..d(Pattern::UnusedAlloc, dev, site, var, region) }
            }
            Key::UnusedTransfer { dev, site, var, region, why, by_site } => {
                Described { related_site: by_site, ..d(Pattern::UnusedTransfer(why), dev, site, var, region) }
            }
            Key::UnmatchedDelete { dev, site, region } => d(Pattern::UnmatchedDelete, dev, site, 0, region),
        }
    }

    /// The other construct a suggestion speaks of: where the data first arrived or was first
    /// allocated, else the related site.
    fn other_site(&self) -> SiteId {
        match self.pattern {
            Pattern::Duplicate | Pattern::RepeatedAlloc => self.first_site,
            _ => self.related_site,
        }
    }
}

/// The report's row of one finding, with its suggestion, checked against what the run saw of
/// its list item on its target device (`a`).
fn finding(d: &Described, row: &Row, r: &mut Resolver, a: &Analyzer) -> Finding {
    let agg = row.agg;
    let var = r.var_info(d.var).cloned();
    let map_type = var.as_ref().and_then(|v| v.map_type);
    // The device that held the data: the other end of a duplicate or trip the host received.
    let dev = if d.to_host { d.other_device.unwrap_or(d.device) } else { d.device };
    let subject = Subject {
        pattern: d.pattern,
        site: r.place(d.site),
        other: r.place(d.other_site()),
        var: var.as_ref().map(|v| v.name.clone()),
        map_type,
        host_addr: row.host_addr,
        ops: agg,
        to_host: d.to_host,
        seen: a.seen(dev, d.site, d.var),
        data_seen: a.seen_of_data(dev, row.host_addr),
    };
    Finding {
        count: agg.count,
        bytes: agg.bytes,
        ns: agg.ns,
        device: d.device,
        other_device: d.other_device,
        site: r.site(d.site),
        variable: subject.var.clone(),
        related_site: r.site(d.related_site),
        related_variable: r.var(d.related_var),
        first_site: r.site(d.first_site),
        map_type: map_type.map(|m| if m.implicit() { format!("implicit {}", m.word()) } else { m.word().to_owned() }),
        reason: match d.pattern {
            Pattern::UnusedTransfer(why) => Some(why.name()),
            _ => None,
        },
        region: region_name(d.region),
        suggestion: suggest(&subject),
        change: 0,
    }
}

/// The analysis' findings, costliest first, resolved to sites and variables, with their
/// suggestions; and their counts.
pub(super) fn findings(a: &Analyzer, r: &mut Resolver) -> (FindingLists, Counts) {
    let mut f = FindingLists::default();
    let mut counts = Counts::default();
    let mut rows: Vec<(&Key, &Row)> = a.findings.rows().collect();
    rows.sort_by(|x, y| y.1.agg.ns.cmp(&x.1.agg.ns).then(y.1.agg.count.cmp(&x.1.agg.count)).then(x.0.cmp(y.0)));
    for (k, row) in rows {
        let d = Described::of(k, a.host_device());
        let (list, n) = match d.pattern {
            Pattern::Duplicate => (&mut f.duplicate_transfers, &mut counts.duplicate_transfers),
            Pattern::RoundTrip => (&mut f.round_trips, &mut counts.round_trips),
            Pattern::RepeatedAlloc => (&mut f.repeated_allocations, &mut counts.repeated_allocations),
            Pattern::UnusedAlloc => (&mut f.unused_allocations, &mut counts.unused_allocations),
            Pattern::UnusedTransfer(_) => (&mut f.unused_transfers, &mut counts.unused_transfers),
            Pattern::UnmatchedDelete => (&mut f.unmatched_deletes, &mut counts.unmatched_deletes),
        };
        *n += row.agg.count;
        list.push(finding(&d, row, r, a));
    }
    (f, counts)
}

/// Every call site's profile per operation and device (kernels included), costliest first.
pub(super) fn call_sites(a: &Analyzer, r: &mut Resolver) -> Vec<SiteRow> {
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
