//! Aggregated findings: one row per pattern, place and variable, however many events it
//! stands for.

use crate::event::{RegionId, SiteId, VarId};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// Count, bytes and time of a group of operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Agg {
    pub count: u64,
    pub bytes: u64,
    pub ns: u64,
}

impl Agg {
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
    pub fn name(self) -> &'static str {
        match self {
            UnusedWhy::Overwritten => "overwritten",
            UnusedWhy::Deleted => "deleted",
            UnusedWhy::NoKernelAfter => "no_kernel_after",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// A device received content it had received before.
    Duplicate { dev: i32, src: i32, site: SiteId, var: VarId, region: RegionId },
    /// Device `a` sent content to `b` (at `send_site`) and got it back unmodified (at `site`).
    RoundTrip { a: i32, b: i32, send_site: SiteId, send_var: VarId, site: SiteId, var: VarId, region: RegionId },
    /// Memory for the same host data and size allocated and deleted again (every pair after
    /// the first).
    RepeatedAlloc { dev: i32, site: SiteId, delete_site: SiteId, var: VarId, region: RegionId },
    /// An allocation no kernel ran during (delete_site 0: never deleted).
    UnusedAlloc { dev: i32, site: SiteId, delete_site: SiteId, var: VarId, region: RegionId },
    /// A transfer to a device that no kernel could have read.
    UnusedTransfer { dev: i32, site: SiteId, var: VarId, region: RegionId, why: UnusedWhy, by_site: SiteId },
    /// Deletion of device memory the tool never saw allocated (or no longer tracked).
    UnmatchedDelete { dev: i32, site: SiteId, region: RegionId },
}

impl Key {
    /// The same finding with every place and name forgotten: the row that absorbs findings
    /// once the table is full.
    fn coarse(self) -> Key {
        match self {
            Key::Duplicate { dev, src, .. } => Key::Duplicate { dev, src, site: 0, var: 0, region: 0 },
            Key::RoundTrip { a, b, .. } => Key::RoundTrip { a, b, send_site: 0, send_var: 0, site: 0, var: 0, region: 0 },
            Key::RepeatedAlloc { dev, .. } => Key::RepeatedAlloc { dev, site: 0, delete_site: 0, var: 0, region: 0 },
            Key::UnusedAlloc { dev, .. } => Key::UnusedAlloc { dev, site: 0, delete_site: 0, var: 0, region: 0 },
            Key::UnusedTransfer { dev, why, .. } => Key::UnusedTransfer { dev, site: 0, var: 0, region: 0, why, by_site: 0 },
            Key::UnmatchedDelete { dev, .. } => Key::UnmatchedDelete { dev, site: 0, region: 0 },
        }
    }
}

/// Findings table of bounded size.
pub struct Findings {
    rows: FxHashMap<Key, Agg>,
    cap: usize,
    /// Events folded into a coarse row because the table was full.
    pub merged: u64,
}

impl Findings {
    pub fn new(cap: usize) -> Self {
        Findings { rows: FxHashMap::with_capacity_and_hasher(cap.min(1024), Default::default()), cap: cap.max(16), merged: 0 }
    }

    pub fn add(&mut self, key: Key, bytes: u64, ns: u64) {
        let key = if self.rows.len() >= self.cap && !self.rows.contains_key(&key) {
            self.merged += 1;
            key.coarse()
        } else {
            key
        };
        // A coarse row may itself be new when the table is full: it is let in (there are at
        // most a few per device and pattern).
        self.rows.entry(key).or_default().add(bytes, ns);
    }

    pub fn rows(&self) -> impl Iterator<Item = (&Key, &Agg)> {
        self.rows.iter()
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}
