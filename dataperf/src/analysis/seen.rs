//! What the run showed of each map-clause list item: for every (device, construct, variable),
//! how many transfers went each way and how many of them carried bytes the other side did not
//! hold, how many of its transfers to the device a kernel could read, how many of its
//! allocations a kernel ran during. A suggestion takes something for granted ("no kernel there
//! writes `b`", "the host does not change `a` in the loop"); these counts are what the report
//! checks it against before printing it.
//!
//! "Carried bytes the other side did not hold" is judged per copy of the data: per (device, host
//! address, size) the content both sides agreed on at its last transfer, in either direction.
//! A transfer to the device whose content differs from it carries the host's changes; a
//! transfer back whose content differs carries a kernel's.

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::event::{SiteId, VarId};

/// One list item's transfers and allocations at one construct on one device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Seen {
    /// Transfers of it to the device.
    pub to_device: u64,
    /// Of those, the ones whose bytes differed from what the device last held of it: the
    /// host had changed it.
    pub host_changed: u64,
    /// Transfers of it back from the device.
    pub from_device: u64,
    /// Of those, the ones whose bytes differed from what the device was last sent or last
    /// sent back: a kernel had changed it.
    pub device_changed: u64,
    /// Transfers to the device that a kernel, or a copy back, could read (the rest are unused
    /// transfers).
    pub read: u64,
    /// Allocations of it.
    pub allocs: u64,
    /// Of those, the ones a kernel ran during.
    pub allocs_used: u64,
}

impl Seen {
    /// `self` and `o` together.
    pub fn plus(self, o: Seen) -> Seen {
        Seen {
            to_device: self.to_device + o.to_device,
            host_changed: self.host_changed + o.host_changed,
            from_device: self.from_device + o.from_device,
            device_changed: self.device_changed + o.device_changed,
            read: self.read + o.read,
            allocs: self.allocs + o.allocs,
            allocs_used: self.allocs_used + o.allocs_used,
        }
    }
}

/// A list item at a construct on a device.
pub type SeenKey = (i32, SiteId, VarId);

/// [`Seen`] per list item, bounded: one row per (device, construct, variable) — the program's
/// list items, not its data — and the host address each row first saw.
pub struct SeenTable {
    rows: FxHashMap<SeenKey, (u64, Seen)>,
    cap: usize,
    /// Events not counted because the table was full.
    pub untracked: u64,
}

impl SeenTable {
    /// A table of at most `cap` rows (at least 16).
    pub fn new(cap: usize) -> Self {
        SeenTable { rows: FxHashMap::default(), cap: cap.max(16), untracked: 0 }
    }

    /// The row of `key` (first seen with host address `host`), or None when the table is full.
    pub fn at(&mut self, key: SeenKey, host: u64) -> Option<&mut Seen> {
        if self.rows.len() >= self.cap && !self.rows.contains_key(&key) {
            self.untracked += 1;
            return None;
        }
        Some(&mut self.rows.entry(key).or_insert((host, Seen::default())).1)
    }

    /// What was seen of the list item `key`.
    pub fn get(&self, key: SeenKey) -> Seen {
        self.rows.get(&key).map_or_else(Seen::default, |r| r.1)
    }

    /// What was seen of the data at host address `host` on device `dev`, at every construct.
    pub fn of_data(&self, dev: i32, host: u64) -> Seen {
        if host == 0 {
            return Seen::default();
        }
        self.rows.iter().filter(|((d, _, _), (h, _))| *d == dev && *h == host).fold(Seen::default(), |acc, (_, (_, s))| acc.plus(*s))
    }
}
