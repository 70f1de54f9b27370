//! Streaming detection of the OMPDataPerf paper's inefficient data-mapping patterns.
//!
//! OMPDataPerf logs every event and analyses the log after the program ends, in memory that
//! grows with the run. Here every event is folded into bounded state as it completes (events
//! arrive in the order they finish, which for synchronous operations is program order):
//!
//! * **duplicate transfer** (Definition 4.1): the receiving device already received the same
//!   content (same xxh3-128 hash and size) for the same data before — a table of (device, host
//!   address, hash, size) received;
//! * **round trip** (4.2): device `a` receives content that it earlier sent to `b` and that `b`
//!   received from it, for the same data — a table of unmatched sends per (from, to, host
//!   address, hash, size); each send completes at most one trip. The data is the host address:
//!   a round trip is one variable going out and coming back, never two variables that happen to
//!   hold the same bytes (a kernel's output equal to another array's input);
//! * **repeated allocation** (4.3): memory for the same host data and size is allocated and
//!   deleted again — a count of allocate/delete pairs per (device, host address, size); every
//!   pair after the first is repeated;
//! * **unused allocation** (4.4, Algorithm 4): no kernel ran on the device while the memory was
//!   allocated — the device's kernel count at allocation compared at deletion (or exit);
//! * **unused transfer** (4.4, Algorithm 5): data written to a device that no kernel could have
//!   read — overwritten entirely by a later transfer, or deleted, before the next kernel on that
//!   device, or not followed by any kernel there. A transfer that reads device memory (back to
//!   the host or to another device) counts as a use;
//! * peak device memory per device, and a per-call-site profile of every operation;
//! * what each list item's transfers carried ([`seen`]): whether the bytes sent differed from
//!   what the device last held (the host changed them) or the bytes sent back differed from
//!   what it was sent (a kernel changed them), and whether a kernel could read them — what the
//!   report checks each suggestion against.
//!
//! Potential savings count every operation at most once: a transfer that is a duplicate *and*
//! completes a round trip *and* is unused is one avoidable transfer; an allocate/delete pair
//! that is both repeated and unused is one avoidable pair.
//!
//! Every table is bounded ([`Limits`]); past a bound the least recently used detail is forgotten
//! and counted in [`Dropped`], which the report shows.

pub mod findings;
pub mod seen;

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::event::{DataOp, Kernel, OpKind, RegionId, SiteId, VarId};
use crate::mem::{entries_within, GenMap};
pub use findings::{Agg, Findings, Key, Row, UnusedWhy};
pub use seen::{Seen, SeenKey, SeenTable};

/// Entry limits of the analysis tables.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Received contents remembered (duplicate detection).
    pub contents: usize,
    /// Unmatched sends remembered (round-trip detection).
    pub sends: usize,
    /// Copies of data whose last agreed content is remembered (what transfers carried).
    pub copies: usize,
    /// Rows of what each list item's transfers carried ([`Seen`]).
    pub seen: usize,
    /// Allocation histories remembered (repeated allocations).
    pub alloc_history: usize,
    /// Live allocations tracked (unused allocations).
    pub live_allocs: usize,
    /// Transfers awaiting a kernel (unused transfers).
    pub candidates: usize,
    /// Rows of the findings table.
    pub findings: usize,
    /// Rows of the per-site profile.
    pub profile: usize,
}

/// Content a device received for the data at a host address: (device, host address, hash,
/// size) is its identity; the site where it was first received rides along in the key's padding
/// and is no part of it.
#[derive(Clone, Copy, Debug)]
struct Received {
    dev: i32,
    host: u64,
    hash: u128,
    bytes: u64,
    first_site: SiteId,
}

impl PartialEq for Received {
    fn eq(&self, o: &Self) -> bool {
        (self.dev, self.host, self.hash, self.bytes) == (o.dev, o.host, o.hash, o.bytes)
    }
}

impl Eq for Received {}

impl std::hash::Hash for Received {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.dev, self.host, self.hash, self.bytes).hash(h);
    }
}

/// An unmatched send: (from, to, host address, hash, size).
type SendKey = (i32, i32, u64, u128, u64);
/// A copy of data on a device: (device, host address, size).
type CopyKey = (i32, u64, u64);
type HistoryKey = (i32, u64, u64);

/// Allocate/delete pairs of one (device, data, size): how many, and where the first was
/// allocated.
#[derive(Clone, Copy, Debug)]
struct Pairs {
    count: u32,
    first_site: SiteId,
}

impl Limits {
    /// Limits whose tables together stay within `budget` bytes (the tool's other state — names,
    /// sites, the symbolizer at exit — comes out of the rest of the cap).
    pub fn for_budget(budget: usize) -> Limits {
        let share = |f: usize| budget / 100 * f;
        let size = |b: usize, entry: usize| entries_within(b, entry).max(16);
        Limits {
            contents: size(share(30), std::mem::size_of::<(Received, ())>()),
            sends: size(share(18), std::mem::size_of::<(SendKey, Pending)>()),
            copies: size(share(6), std::mem::size_of::<(CopyKey, u128)>()),
            seen: (share(2) / (2 * std::mem::size_of::<(SeenKey, (u64, Seen))>() + 16)).max(64),
            alloc_history: size(share(8), std::mem::size_of::<(HistoryKey, Pairs)>()),
            // Live allocations and candidates are plain tables filled up to their limit: size
            // them for twice the entries (hash table growth), with the B-tree's overhead.
            live_allocs: (share(8) / (2 * std::mem::size_of::<((i32, u64), Live)>() + 16)).max(16),
            candidates: (share(8) / (2 * std::mem::size_of::<(u64, Candidate)>() + 16)).max(16),
            findings: (share(4) / (2 * std::mem::size_of::<(Key, Row)>() + 16)).max(64),
            profile: (share(2) / (2 * std::mem::size_of::<((SiteId, OpKind, i32), Profile)>() + 16)).max(64),
        }
    }
}

/// Detail forgotten because a table was full.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Dropped {
    /// Received contents forgotten: a later duplicate of one of them is not recognised.
    pub contents_forgotten: u64,
    /// Unmatched sends forgotten: a round trip completing one of them is not recognised.
    pub sends_forgotten: u64,
    /// Allocation histories forgotten: a later re-allocation of that data counts as a first.
    pub alloc_histories_forgotten: u64,
    /// Allocations not tracked (live-allocation table full): their use and deletion are not judged.
    pub allocs_untracked: u64,
    /// Transfers to a device not judged for use (candidate table full).
    pub transfers_unjudged: u64,
    /// Findings folded into a per-device row without place or name (findings table full).
    pub findings_merged: u64,
    /// Profile rows folded into an unknown-site row (profile table full).
    pub profile_merged: u64,
    /// Last agreed contents forgotten: the next transfer of that data is not judged for
    /// carrying changes.
    pub copies_forgotten: u64,
    /// Transfers and allocations not counted for any list item (table full): suggestions
    /// about them are checked against less than the run saw.
    pub seen_untracked: u64,
}

impl Dropped {
    /// Whether anything was dropped.
    pub fn any(&self) -> bool {
        self.contents_forgotten
            + self.sends_forgotten
            + self.alloc_histories_forgotten
            + self.allocs_untracked
            + self.transfers_unjudged
            + self.findings_merged
            + self.profile_merged
            + self.copies_forgotten
            + self.seen_untracked
            > 0
    }
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    count: u32,
    site: SiteId,
    var: VarId,
}

#[derive(Clone, Copy, Debug)]
struct Live {
    bytes: u64,
    host: u64,
    site: SiteId,
    var: VarId,
    region: RegionId,
    ns: u64,
    kernels_at_alloc: u64,
    during_kernel: bool,
}

#[derive(Clone, Copy, Debug)]
struct Candidate {
    end: u64,
    bytes: u64,
    host: u64,
    ns: u64,
    site: SiteId,
    var: VarId,
    region: RegionId,
    avoidable: bool,
}

/// Per-site statistics of one operation kind on one device.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Profile {
    /// Operations.
    pub count: u64,
    /// Bytes moved or allocated.
    pub bytes: u64,
    /// Total time.
    pub ns: u64,
    /// Shortest operation.
    pub min_ns: u64,
    /// Longest operation.
    pub max_ns: u64,
}

impl Profile {
    fn add(&mut self, bytes: u64, ns: u64) {
        if self.count == 0 || ns < self.min_ns {
            self.min_ns = ns;
        }
        self.max_ns = self.max_ns.max(ns);
        self.count += 1;
        self.bytes += bytes;
        self.ns += ns;
    }
}

/// What one device saw: memory and kernels.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct DeviceStats {
    /// Device memory allocated now.
    pub live_bytes: u64,
    /// Most device memory allocated at once.
    pub peak_bytes: u64,
    /// Kernels launched.
    pub kernels: u64,
    /// Time in kernels.
    pub kernel_ns: u64,
    #[serde(skip)]
    running: u32,
}

/// Operations the analysis finds avoidable, each counted once.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Savings {
    /// Avoidable transfers.
    pub transfers: Agg,
    /// Avoidable allocate/delete pairs.
    pub allocations: Agg,
}

/// The streaming analysis: every event folded into bounded state as it completes.
pub struct Analyzer {
    /// Its tables' limits.
    pub limits: Limits,
    host: Option<i32>,
    devices: BTreeMap<i32, DeviceStats>,
    contents: GenMap<Received, ()>,
    sends: GenMap<SendKey, Pending>,
    copies: GenMap<CopyKey, u128>,
    seen: SeenTable,
    history: GenMap<HistoryKey, Pairs>,
    live: FxHashMap<(i32, u64), Live>,
    candidates: BTreeMap<i32, BTreeMap<u64, Candidate>>,
    candidate_count: usize,
    /// The patterns found so far.
    pub findings: Findings,
    profile: FxHashMap<(SiteId, OpKind, i32), Profile>,
    kernels: FxHashMap<(SiteId, i32), Profile>,
    totals: BTreeMap<OpKind, Agg>,
    /// What fixing the findings would save.
    pub savings: Savings,
    /// Transfers between two target devices (no host side to hash: not checked).
    pub unhashed_transfers: u64,
    dropped: Dropped,
}

impl Analyzer {
    /// An analysis with tables of `limits`.
    pub fn new(limits: Limits) -> Self {
        Analyzer {
            limits,
            host: None,
            devices: BTreeMap::new(),
            contents: GenMap::new(limits.contents),
            sends: GenMap::new(limits.sends),
            copies: GenMap::new(limits.copies),
            seen: SeenTable::new(limits.seen),
            history: GenMap::new(limits.alloc_history),
            live: FxHashMap::default(),
            candidates: BTreeMap::new(),
            candidate_count: 0,
            findings: Findings::new(limits.findings),
            profile: FxHashMap::default(),
            kernels: FxHashMap::default(),
            totals: BTreeMap::new(),
            savings: Savings::default(),
            unhashed_transfers: 0,
            dropped: Dropped::default(),
        }
    }

    /// The host's device number (libomptarget numbers it after the target devices), as the
    /// events show it.
    pub fn host_device(&self) -> Option<i32> {
        self.host
    }

    fn device(&mut self, d: i32) -> &mut DeviceStats {
        self.devices.entry(d).or_default()
    }

    /// Per device, what it saw.
    pub fn devices(&self) -> &BTreeMap<i32, DeviceStats> {
        &self.devices
    }

    /// Per kind of operation, all operations of that kind.
    pub fn totals(&self) -> &BTreeMap<OpKind, Agg> {
        &self.totals
    }

    /// Per (site, kind, device), the operations' statistics.
    pub fn profile(&self) -> impl Iterator<Item = (&(SiteId, OpKind, i32), &Profile)> {
        self.profile.iter()
    }

    /// Per (site, device), the kernels' statistics.
    pub fn kernel_profile(&self) -> impl Iterator<Item = (&(SiteId, i32), &Profile)> {
        self.kernels.iter()
    }

    /// What was forgotten to stay within the limits.
    pub fn dropped(&self) -> Dropped {
        let mut d = self.dropped;
        d.contents_forgotten = self.contents.forgotten;
        d.sends_forgotten = self.sends.forgotten;
        d.alloc_histories_forgotten = self.history.forgotten;
        d.findings_merged = self.findings.merged;
        d.copies_forgotten = self.copies.forgotten;
        d.seen_untracked = self.seen.untracked;
        d
    }

    /// What the run saw of the list item `var` at construct `site` on device `dev`.
    pub fn seen(&self, dev: i32, site: SiteId, var: VarId) -> Seen {
        self.seen.get((dev, site, var))
    }

    /// What the run saw of the data at host address `host` on device `dev`, at every construct.
    pub fn seen_of_data(&self, dev: i32, host: u64) -> Seen {
        self.seen.of_data(dev, host)
    }

    /// A kernel starts on `device`: whatever was written there may be read.
    pub fn kernel_begin(&mut self, device: i32) {
        let d = self.device(device);
        d.kernels += 1;
        d.running += 1;
        // A kernel may read anything on its device: nothing written there so far is unused.
        if let Some(c) = self.candidates.get_mut(&device) {
            self.candidate_count -= c.len();
            for c in std::mem::take(c).into_values() {
                if let Some(s) = self.seen.at((device, c.site, c.var), c.host) {
                    s.read += 1;
                }
            }
        }
    }

    /// A kernel ended.
    pub fn kernel_end(&mut self, k: &Kernel) {
        let d = self.device(k.device);
        d.running = d.running.saturating_sub(1);
        d.kernel_ns += k.end.saturating_sub(k.begin);
        let key = if self.kernels.len() >= self.limits.profile && !self.kernels.contains_key(&(k.site, k.device)) {
            self.dropped.profile_merged += 1;
            (0, k.device)
        } else {
            (k.site, k.device)
        };
        self.kernels.entry(key).or_default().add(0, k.end.saturating_sub(k.begin));
    }

    /// A data operation completed.
    pub fn data_op(&mut self, op: &DataOp) {
        match op.kind {
            OpKind::ToDevice | OpKind::Alloc => self.host = self.host.or(Some(op.src_dev)),
            OpKind::FromDevice => self.host = self.host.or(Some(op.dst_dev)),
            _ => {}
        }
        let bytes = if op.kind == OpKind::Delete { self.live_bytes_at(op) } else { op.bytes };
        self.totals.entry(op.kind).or_default().add(bytes, op.ns());
        let pkey = (op.site, op.kind, op.device());
        let pkey = if self.profile.len() >= self.limits.profile && !self.profile.contains_key(&pkey) {
            self.dropped.profile_merged += 1;
            (0, op.kind, op.device())
        } else {
            pkey
        };
        self.profile.entry(pkey).or_default().add(bytes, op.ns());
        match op.kind {
            OpKind::Alloc => self.alloc(op),
            OpKind::Delete => self.delete(op),
            OpKind::ToDevice | OpKind::FromDevice | OpKind::DeviceToDevice => self.transfer(op),
            OpKind::Associate | OpKind::Disassociate => {}
        }
    }

    fn live_bytes_at(&self, op: &DataOp) -> u64 {
        self.live.get(&(op.src_dev, op.src_addr)).map_or(op.bytes, |l| l.bytes)
    }

    fn alloc(&mut self, op: &DataOp) {
        let dev = op.dst_dev;
        let (kernels, running) = {
            let d = self.device(dev);
            d.live_bytes += op.bytes;
            d.peak_bytes = d.peak_bytes.max(d.live_bytes);
            (d.kernels, d.running)
        };
        let key = (dev, op.dst_addr);
        if self.live.len() >= self.limits.live_allocs && !self.live.contains_key(&key) {
            self.dropped.allocs_untracked += 1;
            return;
        }
        self.live.insert(
            key,
            Live {
                bytes: op.bytes,
                host: op.src_addr,
                site: op.site,
                var: op.var,
                region: op.region,
                ns: op.ns(),
                kernels_at_alloc: kernels,
                during_kernel: running > 0,
            },
        );
    }

    fn delete(&mut self, op: &DataOp) {
        let dev = op.src_dev;
        let Some(l) = self.live.remove(&(dev, op.src_addr)) else {
            // Memory this tool never saw allocated (freed twice, allocated outside OpenMP, or
            // not tracked once the table was full): reported, never assumed.
            self.findings.add(Key::UnmatchedDelete { dev, site: op.site, region: op.region }, 0, op.ns(), 0);
            return;
        };
        let kernels = {
            let d = self.device(dev);
            d.live_bytes = d.live_bytes.saturating_sub(l.bytes);
            d.kernels
        };
        self.deleted_range(dev, op.src_addr, l.bytes);
        let pair_ns = l.ns + op.ns();
        // The host address identifies the variable; memory from omp_target_alloc has none, so
        // its allocation site stands in for it.
        let who = if l.host != 0 { l.host } else { u64::from(l.site) | 1 << 63 };
        let pairs = self.history.get_or_insert_with((dev, who, l.bytes), || Pairs { count: 0, first_site: l.site });
        pairs.count += 1;
        let (repeated, first_site) = (pairs.count >= 2, pairs.first_site);
        if repeated {
            let key = Key::RepeatedAlloc { dev, site: l.site, first_site, delete_site: op.site, var: l.var, region: l.region };
            self.findings.add(key, l.bytes, pair_ns, l.host);
        }
        let unused = !l.during_kernel && kernels == l.kernels_at_alloc;
        if unused {
            let key = Key::UnusedAlloc { dev, site: l.site, delete_site: op.site, var: l.var, region: l.region };
            self.findings.add(key, l.bytes, pair_ns, l.host);
        }
        if repeated || unused {
            self.savings.allocations.add(l.bytes, pair_ns);
        }
        self.allocation_seen(dev, &l, !unused);
    }

    fn transfer(&mut self, op: &DataOp) {
        let mut avoidable = false;
        match op.hash {
            Some(h) => {
                self.carried(op, h);
                let (src, dst, host) = (op.src_dev, op.dst_dev, op.host_addr());
                let received = Received { dev: dst, host, hash: h, bytes: op.bytes, first_site: op.site };
                let (held, first) = self.contents.get_or_insert_key(received, || ());
                let dup = !first;
                if dup {
                    let first_site = held.first_site;
                    let key = Key::Duplicate { dev: dst, src, site: op.site, first_site, var: op.var, region: op.region };
                    self.findings.add(key, op.bytes, op.ns(), op.host_addr());
                }
                // Does this complete a trip dst -> src -> dst?
                let back = (dst, src, host, h, op.bytes);
                let mut trip = None;
                if let Some(p) = self.sends.get_mut(&back) {
                    p.count -= 1;
                    trip = Some((p.site, p.var));
                    if p.count == 0 {
                        self.sends.remove(&back);
                    }
                }
                if let Some((send_site, send_var)) = trip {
                    let key = Key::RoundTrip { a: dst, b: src, send_site, send_var, site: op.site, var: op.var, region: op.region };
                    self.findings.add(key, op.bytes, op.ns(), op.host_addr());
                }
                let p = self.sends.get_or_insert_with((src, dst, host, h, op.bytes), || Pending { count: 0, site: op.site, var: op.var });
                p.count = p.count.saturating_add(1);
                avoidable = dup || trip.is_some();
            }
            None => self.unhashed_transfers += 1,
        }
        if avoidable {
            self.savings.transfers.add(op.bytes, op.ns());
        }
        // Reading device memory uses what was written there.
        if matches!(op.kind, OpKind::FromDevice | OpKind::DeviceToDevice) {
            self.read_range(op.src_dev, op.src_addr, op.bytes);
        }
        if matches!(op.kind, OpKind::ToDevice | OpKind::DeviceToDevice) && op.bytes > 0 {
            self.written(op, avoidable);
        }
    }

    /// Whether the transfer `op` of content `h` carried bytes the other side did not hold (the
    /// content both sides agreed on at the data's last transfer differs), counted for its list
    /// item; `h` is the agreed content from now on.
    fn carried(&mut self, op: &DataOp, h: u128) {
        let (dev, host) = (op.device(), op.host_addr());
        let mut known = true;
        let agreed = self.copies.get_or_insert_with((dev, host, op.bytes), || {
            known = false;
            h
        });
        let changed = known && *agreed != h;
        *agreed = h;
        let Some(s) = self.seen.at((dev, op.site, op.var), host) else { return };
        match op.kind {
            OpKind::ToDevice => {
                s.to_device += 1;
                s.host_changed += u64::from(changed);
            }
            OpKind::FromDevice => {
                s.from_device += 1;
                s.device_changed += u64::from(changed);
            }
            _ => {}
        }
    }

    /// An allocation at `l` ended (deleted, or live at exit); `used`: a kernel ran during it.
    fn allocation_seen(&mut self, dev: i32, l: &Live, used: bool) {
        if let Some(s) = self.seen.at((dev, l.site, l.var), l.host) {
            s.allocs += 1;
            s.allocs_used += u64::from(used);
        }
    }

    /// A transfer wrote [dst_addr, dst_addr + bytes) on its device: candidates it covers entirely
    /// were never read; it becomes a candidate itself.
    fn written(&mut self, op: &DataOp, avoidable: bool) {
        let dev = op.dst_dev;
        let (start, end) = (op.dst_addr, op.dst_addr.saturating_add(op.bytes));
        let covered: Vec<u64> = self
            .candidates
            .get(&dev)
            .map(|c| c.range(start..end).filter(|(_, c)| c.end <= end).map(|(a, _)| *a).collect())
            .unwrap_or_default();
        for a in covered {
            let c = self.candidates.get_mut(&dev).unwrap().remove(&a).unwrap();
            self.candidate_count -= 1;
            self.unused_transfer(dev, &c, UnusedWhy::Overwritten, op.site);
        }
        if self.candidate_count >= self.limits.candidates {
            self.dropped.transfers_unjudged += 1;
            return;
        }
        let c =
            Candidate { end, bytes: op.bytes, host: op.host_addr(), ns: op.ns(), site: op.site, var: op.var, region: op.region, avoidable };
        if self.candidates.entry(dev).or_default().insert(start, c).is_none() {
            self.candidate_count += 1;
        }
    }

    fn unused_transfer(&mut self, dev: i32, c: &Candidate, why: UnusedWhy, by_site: SiteId) {
        let key = Key::UnusedTransfer { dev, site: c.site, var: c.var, region: c.region, why, by_site };
        self.findings.add(key, c.bytes, c.ns, c.host);
        if !c.avoidable {
            self.savings.transfers.add(c.bytes, c.ns);
        }
    }

    fn overlapping(&self, dev: i32, start: u64, end: u64) -> Vec<u64> {
        let Some(c) = self.candidates.get(&dev) else { return Vec::new() };
        // Candidates starting before `start` may reach into the range: look back one.
        let before = c.range(..start).next_back().filter(|(_, c)| c.end > start).map(|(a, _)| *a);
        before.into_iter().chain(c.range(start..end).map(|(a, _)| *a)).collect()
    }

    fn read_range(&mut self, dev: i32, start: u64, bytes: u64) {
        for a in self.overlapping(dev, start, start.saturating_add(bytes.max(1))) {
            let c = self.candidates.get_mut(&dev).unwrap().remove(&a).unwrap();
            self.candidate_count -= 1;
            if let Some(s) = self.seen.at((dev, c.site, c.var), c.host) {
                s.read += 1;
            }
        }
    }

    fn deleted_range(&mut self, dev: i32, start: u64, bytes: u64) {
        let end = start.saturating_add(bytes.max(1));
        let inside: Vec<u64> = self.candidates.get(&dev).map(|c| c.range(start..end).map(|(a, _)| *a).collect()).unwrap_or_default();
        for a in inside {
            let c = self.candidates.get_mut(&dev).unwrap().remove(&a).unwrap();
            self.candidate_count -= 1;
            self.unused_transfer(dev, &c, UnusedWhy::Deleted, 0);
        }
    }

    /// End of the program: judges what is still pending (transfers no kernel followed,
    /// allocations never deleted and never used).
    pub fn finish(&mut self) {
        let pending: Vec<(i32, Candidate)> =
            std::mem::take(&mut self.candidates).into_iter().flat_map(|(dev, c)| c.into_values().map(move |c| (dev, c))).collect();
        self.candidate_count = 0;
        for (dev, c) in pending {
            self.unused_transfer(dev, &c, UnusedWhy::NoKernelAfter, 0);
        }
        let live: Vec<((i32, u64), Live)> = self.live.drain().collect();
        for ((dev, _), l) in live {
            let kernels = self.devices.get(&dev).map_or(0, |d| d.kernels);
            let unused = !l.during_kernel && kernels == l.kernels_at_alloc;
            if unused {
                let key = Key::UnusedAlloc { dev, site: l.site, delete_site: 0, var: l.var, region: l.region };
                self.findings.add(key, l.bytes, l.ns, l.host);
                self.savings.allocations.add(l.bytes, l.ns);
            }
            self.allocation_seen(dev, &l, !unused);
        }
    }
}

#[cfg(test)]
mod tests;
