//! The detectors on synthetic event streams (host = device 4, target = device 0).

use super::*;

const HOST: i32 = 4;
const DEV: i32 = 0;

struct Stream {
    a: Analyzer,
    t: u64,
}

impl Stream {
    fn new() -> Self {
        Stream { a: Analyzer::new(Limits::for_budget(1 << 20)), t: 0 }
    }
    fn op(&mut self, kind: OpKind, src: (i32, u64), dst: (i32, u64), bytes: u64, site: SiteId, hash: Option<u128>) {
        self.t += 10;
        let op = DataOp {
            kind,
            src_dev: src.0,
            dst_dev: dst.0,
            src_addr: src.1,
            dst_addr: dst.1,
            bytes,
            site,
            var: site,
            region: 0,
            begin: self.t,
            end: self.t + 5,
            hash,
        };
        self.a.data_op(&op);
    }
    fn alloc(&mut self, host: u64, dev: u64, bytes: u64, site: SiteId) {
        self.op(OpKind::Alloc, (HOST, host), (DEV, dev), bytes, site, None);
    }
    fn delete(&mut self, dev: u64, site: SiteId) {
        self.op(OpKind::Delete, (DEV, dev), (-1, 0), 0, site, None);
    }
    fn to(&mut self, host: u64, dev: u64, bytes: u64, h: u128, site: SiteId) {
        self.op(OpKind::ToDevice, (HOST, host), (DEV, dev), bytes, site, Some(h));
    }
    fn from(&mut self, dev: u64, host: u64, bytes: u64, h: u128, site: SiteId) {
        self.op(OpKind::FromDevice, (DEV, dev), (HOST, host), bytes, site, Some(h));
    }
    fn kernel(&mut self, site: SiteId) {
        self.a.kernel_begin(DEV);
        self.t += 100;
        self.a.kernel_end(&Kernel { device: DEV, site, region: 0, begin: self.t - 100, end: self.t });
    }
    fn finish(mut self) -> Analyzer {
        self.a.finish();
        self.a
    }
}

fn count(a: &Analyzer, pred: impl Fn(&Key) -> bool) -> u64 {
    a.findings.rows().filter(|(k, _)| pred(k)).map(|(_, v)| v.agg.count).sum()
}

fn dups(a: &Analyzer) -> u64 {
    count(a, |k| matches!(k, Key::Duplicate { .. }))
}
fn trips(a: &Analyzer) -> u64 {
    count(a, |k| matches!(k, Key::RoundTrip { .. }))
}
fn repeated(a: &Analyzer) -> u64 {
    count(a, |k| matches!(k, Key::RepeatedAlloc { .. }))
}
fn unused_allocs(a: &Analyzer) -> u64 {
    count(a, |k| matches!(k, Key::UnusedAlloc { .. }))
}
fn unused_transfers(a: &Analyzer) -> u64 {
    count(a, |k| matches!(k, Key::UnusedTransfer { .. }))
}

/// Listing 1: the same input mapped to two consecutive target regions.
#[test]
fn duplicate_and_repeated_allocation() {
    let mut s = Stream::new();
    for site in [1, 2] {
        s.alloc(0x1000, 0x9000, 800, site);
        s.to(0x1000, 0x9000, 800, 0xaa, site);
        s.kernel(site);
        s.delete(0x9000, site);
    }
    let a = s.finish();
    assert_eq!(dups(&a), 1);
    assert_eq!(trips(&a), 0);
    assert_eq!(repeated(&a), 1);
    assert_eq!(unused_allocs(&a) + unused_transfers(&a), 0);
    // The duplicate names where the content first arrived, and the data's host address.
    let dup = Key::Duplicate { dev: DEV, src: HOST, site: 2, first_site: 1, var: 2, region: 0 };
    assert!(a.findings.rows().any(|(k, r)| *k == dup && r.host_addr == 0x1000), "{:?}", a.findings.rows().collect::<Vec<_>>());
    let rep = Key::RepeatedAlloc { dev: DEV, site: 2, first_site: 1, delete_site: 2, var: 2, region: 0 };
    assert!(a.findings.rows().any(|(k, _)| *k == rep), "{:?}", a.findings.rows().collect::<Vec<_>>());
    assert_eq!(a.savings.transfers.count, 1);
    assert_eq!(a.savings.allocations.count, 1);
    assert_eq!(a.devices()[&DEV].peak_bytes, 800);
    assert_eq!(a.devices()[&DEV].live_bytes, 0);
}

/// Listing 2: an array copied back after each kernel and copied in again unmodified.
#[test]
fn round_trips() {
    let mut s = Stream::new();
    for it in 0..4u128 {
        s.alloc(0x1000, 0x9000, 800, 1);
        // Iteration `it` sends what the previous one brought back.
        s.to(0x1000, 0x9000, 800, it, 1);
        s.kernel(1);
        s.from(0x9000, 0x1000, 800, it + 1, 1);
        s.delete(0x9000, 1);
    }
    let a = s.finish();
    // Content k+1 came back to the host from the device, then went to the device again: each
    // of iterations 1..3 completes a round trip, and is no duplicate (each content arrives on
    // the device once and on the host once).
    assert_eq!(trips(&a), 3);
    assert_eq!(dups(&a), 0);
    assert_eq!(repeated(&a), 3);
    assert_eq!(a.savings.transfers.count, 3);
}

/// A chain of the same content back and forth: trips and duplicates overlap, savings count
/// each transfer once.
#[test]
fn savings_count_each_transfer_once() {
    let mut s = Stream::new();
    s.alloc(0x1000, 0x9000, 64, 1);
    s.to(0x1000, 0x9000, 64, 7, 1); // first receipt on the device
    s.kernel(1);
    s.from(0x9000, 0x1000, 64, 7, 2); // trip 1 (host sent it), first receipt on the host
    s.to(0x1000, 0x9000, 64, 7, 3); // trip 2 and duplicate
    s.kernel(1);
    s.from(0x9000, 0x1000, 64, 7, 4); // trip 3 and duplicate
    s.delete(0x9000, 1);
    let a = s.finish();
    assert_eq!(trips(&a), 3);
    assert_eq!(dups(&a), 2);
    assert_eq!(a.savings.transfers.count, 3);
    assert_eq!(a.savings.transfers.bytes, 3 * 64);
}

#[test]
fn fixed_version_is_clean() {
    let mut s = Stream::new();
    s.alloc(0x1000, 0x9000, 800, 1);
    s.to(0x1000, 0x9000, 800, 1, 1);
    for _ in 0..10 {
        s.kernel(2);
    }
    s.from(0x9000, 0x1000, 800, 2, 3);
    s.delete(0x9000, 3);
    let a = s.finish();
    assert!(a.findings.is_empty(), "{:?}", a.findings.rows().collect::<Vec<_>>());
    assert_eq!(a.savings.transfers.count + a.savings.allocations.count, 0);
}

#[test]
fn unused_allocation_and_transfers() {
    let mut s = Stream::new();
    // Allocated and deleted with no kernel in between, with data copied in.
    s.alloc(0x1000, 0x9000, 100, 1);
    s.to(0x1000, 0x9000, 100, 1, 1);
    s.delete(0x9000, 2);
    // Overwritten before the kernel: the first transfer was never read.
    s.alloc(0x2000, 0xa000, 100, 3);
    s.to(0x2000, 0xa000, 100, 2, 3);
    s.to(0x2000, 0xa000, 100, 3, 4);
    s.kernel(5);
    // Written after the last kernel.
    s.to(0x2000, 0xa000, 100, 4, 6);
    let a = s.finish();
    assert_eq!(unused_allocs(&a), 1);
    assert_eq!(count(&a, |k| matches!(k, Key::UnusedTransfer { why: UnusedWhy::Deleted, site: 1, .. })), 1);
    assert_eq!(count(&a, |k| matches!(k, Key::UnusedTransfer { why: UnusedWhy::Overwritten, site: 3, by_site: 4, .. })), 1);
    assert_eq!(count(&a, |k| matches!(k, Key::UnusedTransfer { why: UnusedWhy::NoKernelAfter, site: 6, .. })), 1);
    assert_eq!(unused_transfers(&a), 3);
    // The allocation at 0xa000 was used by the kernel and is still live at exit: fine.
    assert_eq!(a.devices()[&DEV].live_bytes, 100);
}

#[test]
fn a_partial_write_or_a_read_keeps_a_transfer_used() {
    let mut s = Stream::new();
    s.alloc(0x1000, 0x9000, 100, 1);
    s.to(0x1000, 0x9000, 100, 1, 1);
    // Attaching a pointer inside the structure: overwrites 8 bytes only.
    s.to(0x1010, 0x9010, 8, 2, 2);
    s.kernel(3);
    s.to(0x1000, 0x9000, 100, 3, 4);
    s.from(0x9000, 0x1000, 100, 3, 5); // read back: used (a round trip, not unused)
    s.delete(0x9000, 6);
    let a = s.finish();
    assert_eq!(unused_transfers(&a), 0, "{:?}", a.findings.rows().collect::<Vec<_>>());
    assert_eq!(trips(&a), 1);
}

#[test]
fn deleting_unknown_memory_is_reported_not_assumed() {
    let mut s = Stream::new();
    s.delete(0xdead, 9);
    s.delete(0xdead, 9);
    s.alloc(0x1000, 0x9000, 10, 1);
    s.kernel(1);
    s.delete(0x9000, 2);
    s.delete(0x9000, 2); // double free
    let a = s.finish();
    assert_eq!(count(&a, |k| matches!(k, Key::UnmatchedDelete { site: 9, .. })), 2);
    assert_eq!(count(&a, |k| matches!(k, Key::UnmatchedDelete { site: 2, .. })), 1);
    assert_eq!(a.devices()[&DEV].live_bytes, 0);
}

#[test]
fn peak_device_memory() {
    let mut s = Stream::new();
    s.alloc(0x1000, 0x9000, 100, 1);
    s.alloc(0x2000, 0xa000, 300, 1);
    s.kernel(1);
    s.delete(0x9000, 1);
    s.alloc(0x3000, 0xb000, 50, 1);
    s.kernel(1);
    let a = s.finish();
    assert_eq!(a.devices()[&DEV].peak_bytes, 400);
    assert_eq!(a.devices()[&DEV].live_bytes, 350);
    assert_eq!(a.devices()[&DEV].kernels, 2);
}

#[test]
fn bounded_state_forgets_and_says_so() {
    let mut a = Analyzer::new(Limits::for_budget(256 << 10));
    let contents = a.limits.contents as u128;
    let mut t = 0;
    for i in 0..(4 * contents) {
        t += 2;
        a.data_op(&DataOp {
            kind: OpKind::ToDevice,
            src_dev: HOST,
            dst_dev: DEV,
            src_addr: 0x1000,
            dst_addr: 0x9000,
            bytes: 8,
            site: 1,
            var: 1,
            region: 0,
            begin: t,
            end: t + 1,
            hash: Some(i),
        });
        a.kernel_begin(DEV);
    }
    a.finish();
    let d = a.dropped();
    assert!(d.contents_forgotten > 0 && d.sends_forgotten > 0 && d.any());
    assert_eq!(a.findings.len(), 0);
}

/// Issue 43: a kernel's output that happens to equal another variable's input is no round trip
/// and no duplicate: both are of one variable (host address) going out and coming back.
#[test]
fn different_variables_with_the_same_bytes_make_no_trip_or_duplicate() {
    let mut s = Stream::new();
    s.alloc(0x1000, 0x9000, 64, 1); // a
    s.alloc(0x2000, 0xa000, 64, 1); // b
    s.to(0x1000, 0x9000, 64, 0xa, 1); // a sent with content A
    s.to(0x2000, 0xa000, 64, 0xb, 1); // b sent with content B
    s.kernel(1);
    s.from(0xa000, 0x2000, 64, 0xa, 1); // b comes back holding A
    s.to(0x2000, 0xa000, 64, 0xa, 2); // and is sent again: the device holds A as `a`, not as `b`
    s.kernel(2);
    let a = s.finish();
    // Only `b`'s own trip: the device sent A back as `b`, the host sent it to `b` again.
    assert_eq!(trips(&a), 1, "{:?}", a.findings.rows().collect::<Vec<_>>());
    assert!(a.findings.rows().all(|(k, r)| !matches!(k, Key::RoundTrip { .. }) || r.host_addr == 0x2000));
    assert_eq!(dups(&a), 0, "{:?}", a.findings.rows().collect::<Vec<_>>());
}

/// What each list item's transfers carried: bytes the host changed, bytes a kernel changed,
/// transfers a kernel read, allocations a kernel ran during.
#[test]
fn what_transfers_carried_is_counted_per_list_item() {
    let mut s = Stream::new();
    // Site 1 maps b tofrom in three steps; the kernel changes it in the first two.
    for (sent, back) in [(1u128, 2u128), (2, 3), (3, 3)] {
        s.alloc(0x2000, 0xa000, 64, 1);
        s.to(0x2000, 0xa000, 64, sent, 1);
        s.kernel(1);
        s.from(0xa000, 0x2000, 64, back, 1);
        s.delete(0xa000, 1);
    }
    // Site 2 sends it again after the host changed it (3 -> 9); nothing reads it.
    s.alloc(0x2000, 0xa000, 64, 2);
    s.to(0x2000, 0xa000, 64, 9, 2);
    s.delete(0xa000, 2);
    let a = s.finish();
    let one = a.seen(DEV, 1, 1);
    assert_eq!((one.to_device, one.host_changed, one.from_device, one.device_changed), (3, 0, 3, 2), "{one:?}");
    assert_eq!((one.read, one.allocs, one.allocs_used), (3, 3, 3), "{one:?}");
    let two = a.seen(DEV, 2, 2);
    assert_eq!((two.to_device, two.host_changed, two.read, two.allocs, two.allocs_used), (1, 1, 0, 1, 0), "{two:?}");
    // The data at 0x2000, at every construct.
    let data = a.seen_of_data(DEV, 0x2000);
    assert_eq!((data.to_device, data.host_changed, data.device_changed), (4, 1, 2), "{data:?}");
    assert_eq!(a.seen_of_data(DEV, 0x1000), Seen::default());
}
