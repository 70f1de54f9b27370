//! Aggregated findings: one row per pattern, place and variable, however many events it
//! stands for.

use crate::event::{RegionId, SiteId, VarId};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// Count, bytes and time of a group of operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Agg {
    /// Operations.
    pub count: u64,
    /// Bytes.
    pub bytes: u64,
    /// Time.
    pub ns: u64,
}

impl Agg {
    /// Adds one operation.
    pub fn add(&mut self, bytes: u64, ns: u64) {
        self.count += 1;
        self.bytes += bytes;
        self.ns += ns;
    }
}

/// Why a transfer to a device was unused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnusedWhy {
    /// A later transfer overwrote all of it before any kernel ran on the device.
    Overwritten,
    /// Its device memory was deleted before any kernel ran on the device.
    Deleted,
    /// No kernel ran on the device after it, up to the end of the program.
    NoKernelAfter,
}

impl UnusedWhy {
    /// The reason as the report names it.
    pub fn name(self) -> &'static str {
        match self {
            UnusedWhy::Overwritten => "overwritten",
            UnusedWhy::Deleted => "deleted",
            UnusedWhy::NoKernelAfter => "no_kernel_after",
        }
    }
}

/// One finding's identity: the pattern, its devices, places, variable and region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// A device received content it had received before.
    Duplicate {
        /// The receiving device.
        dev: i32,
        /// The sending device.
        src: i32,
        /// Where the transfer was issued.
        site: SiteId,
        /// Where the device first received this content (as far as the table remembers).
        first_site: SiteId,
        /// The variable transferred.
        var: VarId,
        /// The adaptive region it ran in.
        region: RegionId,
    },
    /// Device `a` sent content to `b` (at `send_site`) and got it back unmodified (at `site`).
    RoundTrip {
        /// The device the content left and came back to.
        a: i32,
        /// The device it went to.
        b: i32,
        /// Where it was sent out.
        send_site: SiteId,
        /// The variable sent out.
        send_var: VarId,
        /// Where it came back.
        site: SiteId,
        /// The variable it came back into.
        var: VarId,
        /// The adaptive region of the return.
        region: RegionId,
    },
    /// Memory for the same host data and size allocated and deleted again (every pair after
    /// the first).
    RepeatedAlloc {
        /// The device.
        dev: i32,
        /// Where it was allocated.
        site: SiteId,
        /// Where the first of these pairs was allocated.
        first_site: SiteId,
        /// Where it was deleted.
        delete_site: SiteId,
        /// The variable.
        var: VarId,
        /// The adaptive region of the allocation.
        region: RegionId,
    },
    /// An allocation no kernel ran during (delete_site 0: never deleted).
    UnusedAlloc {
        /// The device.
        dev: i32,
        /// Where it was allocated.
        site: SiteId,
        /// Where it was deleted.
        delete_site: SiteId,
        /// The variable.
        var: VarId,
        /// The adaptive region of the allocation.
        region: RegionId,
    },
    /// A transfer to a device that no kernel could have read.
    UnusedTransfer {
        /// The receiving device.
        dev: i32,
        /// Where the transfer was issued.
        site: SiteId,
        /// The variable transferred.
        var: VarId,
        /// The adaptive region it ran in.
        region: RegionId,
        /// Why it was unused.
        why: UnusedWhy,
        /// The transfer that overwrote it (0 otherwise).
        by_site: SiteId,
    },
    /// Deletion of device memory the tool never saw allocated (or no longer tracked).
    UnmatchedDelete {
        /// The device.
        dev: i32,
        /// Where it was deleted.
        site: SiteId,
        /// The adaptive region it ran in.
        region: RegionId,
    },
}

impl Key {
    /// The same finding with every place and name forgotten: the row that absorbs findings
    /// once the table is full.
    fn coarse(self) -> Key {
        match self {
            Key::Duplicate { dev, src, .. } => Key::Duplicate { dev, src, site: 0, first_site: 0, var: 0, region: 0 },
            Key::RoundTrip { a, b, .. } => Key::RoundTrip { a, b, send_site: 0, send_var: 0, site: 0, var: 0, region: 0 },
            Key::RepeatedAlloc { dev, .. } => Key::RepeatedAlloc { dev, site: 0, first_site: 0, delete_site: 0, var: 0, region: 0 },
            Key::UnusedAlloc { dev, .. } => Key::UnusedAlloc { dev, site: 0, delete_site: 0, var: 0, region: 0 },
            Key::UnusedTransfer { dev, why, .. } => Key::UnusedTransfer { dev, site: 0, var: 0, region: 0, why, by_site: 0 },
            Key::UnmatchedDelete { dev, .. } => Key::UnmatchedDelete { dev, site: 0, region: 0 },
        }
    }
}

/// One row of the findings table: its operations, and the host address of the data the first
/// of them concerned (0: none), which names the data when the map clause's name is unknown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// Count, bytes and time of its operations.
    pub agg: Agg,
    /// Host address of the data (0: none, or a row of several places).
    pub host_addr: u64,
}

/// Findings table of bounded size.
pub struct Findings {
    rows: FxHashMap<Key, Row>,
    cap: usize,
    /// Events folded into a coarse row because the table was full.
    pub merged: u64,
}

impl Findings {
    /// A table of at most `cap` rows (at least 16), plus the coarse rows.
    pub fn new(cap: usize) -> Self {
        Findings { rows: FxHashMap::with_capacity_and_hasher(cap.min(1024), Default::default()), cap: cap.max(16), merged: 0 }
    }

    /// Adds one event of finding `key` on the data at host address `host_addr` (to its coarse
    /// row once the table is full).
    pub fn add(&mut self, key: Key, bytes: u64, ns: u64, host_addr: u64) {
        let (key, host_addr) = if self.rows.len() >= self.cap && !self.rows.contains_key(&key) {
            self.merged += 1;
            (key.coarse(), 0)
        } else {
            (key, host_addr)
        };
        // A coarse row may itself be new when the table is full: it is let in (there are at
        // most a few per device and pattern).
        let row = self.rows.entry(key).or_insert(Row { agg: Agg::default(), host_addr });
        row.agg.add(bytes, ns);
    }

    /// Every row.
    pub fn rows(&self) -> impl Iterator<Item = (&Key, &Row)> {
        self.rows.iter()
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}
