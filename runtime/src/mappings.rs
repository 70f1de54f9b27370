//! Every device mapping of the process, as libomptarget made it: host bytes `[lo, hi)` at a
//! device address, per device — learned from the OMPT data operations it reports (an
//! allocation names the host address, the device address and the bytes; a deletion the device
//! address), whoever asked for the mapping: a `target data` of the caller, `enter data` in a
//! constructor, a library built without ompadapt. The `cpu` variant copies exactly these
//! extents ([`crate::host_run`]); nothing is inferred from samples of `omp_get_mapped_ptr`,
//! which cannot tell apart two mappings whose host-to-device offsets coincide.
//!
//! The table is filled only while the runtime's OMPT tool runs ([`crate::ompt_tool`]); without
//! it, [`extent`] says [`Extent::Unknown`] for present storage and the host version is refused.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

/// One mapping on a device: host bytes `[lo, hi)` at device address `dev`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// First host byte of the mapping.
    pub lo: usize,
    /// One past its last host byte.
    pub hi: usize,
    /// Device address of `lo`.
    pub dev: usize,
}

/// What is known of the storage holding a host address on a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    /// It is this mapping, exactly.
    Known(Mapping),
    /// It is present on the device, but nothing says how far it extends (no OMPT tool, or a
    /// mapping made before the tool started).
    Unknown,
    /// It is not present on the device.
    Absent,
}

/// The mappings of every device, by first host byte, and the device addresses that name them.
#[derive(Default)]
pub struct Table {
    by_host: HashMap<i32, BTreeMap<usize, Mapping>>,
    by_device: HashMap<(i32, usize), usize>,
}

impl Table {
    /// libomptarget allocated `bytes` on `device` at `dev` for host bytes from `host`.
    pub fn allocated(&mut self, device: i32, host: usize, dev: usize, bytes: usize) {
        if host == 0 || dev == 0 || bytes == 0 {
            return;
        }
        let m = Mapping { lo: host, hi: host.saturating_add(bytes), dev };
        if let Some(old) = self.by_host.entry(device).or_default().insert(host, m) {
            self.by_device.remove(&(device, old.dev));
        }
        self.by_device.insert((device, dev), host);
    }

    /// libomptarget freed the device storage at `dev` on `device`.
    pub fn deleted(&mut self, device: i32, dev: usize) {
        if let Some(host) = self.by_device.remove(&(device, dev)) {
            if let Some(map) = self.by_host.get_mut(&device) {
                map.remove(&host);
            }
        }
    }

    /// The mapping on `device` that holds host address `q`.
    pub fn holding(&self, device: i32, q: usize) -> Option<Mapping> {
        let (_, m) = self.by_host.get(&device)?.range(..=q).next_back()?;
        (q < m.hi).then_some(*m)
    }

    /// The mappings on `device` that start inside host bytes `(lo, hi)` (after `lo`).
    pub fn starting_within(&self, device: i32, lo: usize, hi: usize) -> Vec<Mapping> {
        match self.by_host.get(&device) {
            Some(map) if lo < hi => map.range(lo + 1..hi).map(|(_, m)| *m).collect(),
            _ => Vec::new(),
        }
    }

    /// How many mappings the table holds.
    pub fn len(&self) -> usize {
        self.by_device.len()
    }

    /// Whether the table holds no mapping.
    pub fn is_empty(&self) -> bool {
        self.by_device.is_empty()
    }
}

fn table() -> &'static Mutex<Table> {
    static T: OnceLock<Mutex<Table>> = OnceLock::new();
    T.get_or_init(Default::default)
}

static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The OMPT tool started and receives every data operation (called once, at its start).
pub fn set_active() {
    ACTIVE.store(true, Relaxed);
}

/// Whether the table is being filled (the runtime's OMPT tool runs).
pub fn active() -> bool {
    ACTIVE.load(Relaxed)
}

/// The mappings recorded on `device` that start inside host bytes `(lo, hi)` (see
/// [`Table::starting_within`]).
pub fn starting_within(device: i32, lo: usize, hi: usize) -> Vec<Mapping> {
    table().lock().map(|t| t.starting_within(device, lo, hi)).unwrap_or_default()
}

/// Records an allocation (see [`Table::allocated`]).
pub fn allocated(device: i32, host: usize, dev: usize, bytes: usize) {
    if let Ok(mut t) = table().lock() {
        t.allocated(device, host, dev, bytes);
    }
}

/// Records a deletion (see [`Table::deleted`]).
pub fn deleted(device: i32, dev: usize) {
    if let Ok(mut t) = table().lock() {
        t.deleted(device, dev);
    }
}

/// The storage holding host address `q` on `device`, given the device address libomptarget
/// gives `q` (`omp_get_mapped_ptr`; None: not present). A mapping of the table that disagrees
/// with libomptarget (a deletion not seen) is not trusted.
pub fn extent(device: i32, q: usize, device_of_q: Option<usize>) -> Extent {
    let known = table().lock().ok().and_then(|t| t.holding(device, q));
    match (known, device_of_q) {
        (_, None) => Extent::Absent,
        (Some(m), Some(d)) if d == m.dev.wrapping_add(q - m.lo) => Extent::Known(m),
        (_, Some(_)) => Extent::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mappings_at_the_same_offset_stay_apart() {
        // glibc placed three arrays next to each other, the host plugin's allocator placed their
        // device copies the same way: one host-to-device offset for all three
        let mut t = Table::default();
        let (a, b, c, off) = (0x10_0000usize, 0x20_0010usize, 0x30_0020usize, 0x7000_0000usize);
        let n = 0x10_0000 - 16;
        for h in [a, b, c] {
            t.allocated(0, h, h + off, n);
        }
        assert_eq!(t.holding(0, a + 5), Some(Mapping { lo: a, hi: a + n, dev: a + off }));
        // the allocator's chunk header between a and b belongs to no mapping
        assert_eq!(t.holding(0, a + n), None);
        assert_eq!(t.holding(0, b - 8), None);
        assert_eq!(t.holding(0, c + n - 1), Some(Mapping { lo: c, hi: c + n, dev: c + off }));
        // another device has its own mappings
        assert_eq!(t.holding(1, a), None);
        t.deleted(0, b + off);
        assert_eq!(t.holding(0, b), None);
        assert_eq!(t.len(), 2);
        // a new mapping at the same host address replaces the old one's device address
        t.allocated(0, a, 0x9000_0000, 64);
        t.deleted(0, a + off);
        assert_eq!(t.holding(0, a + 8), Some(Mapping { lo: a, hi: a + 64, dev: 0x9000_0000 }));
        // nothing to record without an address or bytes
        t.allocated(0, 0, 5, 8);
        t.allocated(0, 8, 5, 0);
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn extents_say_what_is_known() {
        allocated(7, 4096, 8192, 100);
        assert_eq!(extent(7, 4100, Some(8196)), Extent::Known(Mapping { lo: 4096, hi: 4196, dev: 8192 }));
        // present where the table knows nothing, or elsewhere than the table says
        assert_eq!(extent(7, 5000, Some(9000)), Extent::Unknown);
        assert_eq!(extent(7, 4100, Some(1234)), Extent::Unknown);
        assert_eq!(extent(7, 5000, None), Extent::Absent);
        deleted(7, 8192);
        assert_eq!(extent(7, 4100, None), Extent::Absent);
    }
}
