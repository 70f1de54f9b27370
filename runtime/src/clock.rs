//! The runtime clock: monotonic nanoseconds since a process-wide epoch.
//!
//! Everything that timestamps an execution goes through [`now`], so the next issue can replace
//! it with a calibrated `rdtsc` read without touching the callers. Units are nanoseconds today;
//! code that needs seconds or a duration must go through [`to_ns`] so a tick-based clock only
//! has to change this file.

use std::sync::OnceLock;
use std::time::Instant;

static EPOCH: OnceLock<Instant> = OnceLock::new();

/// Current time in clock units (nanoseconds since the first call in this process).
#[inline]
pub fn now() -> u64 {
    let epoch = *EPOCH.get_or_init(Instant::now);
    // `Instant` is CLOCK_MONOTONIC on Linux, read through the vDSO (no syscall).
    Instant::now().saturating_duration_since(epoch).as_nanos() as u64
}

/// Converts a difference of two [`now`] readings to nanoseconds.
#[inline]
pub fn to_ns(ticks: u64) -> u64 {
    ticks
}

/// Starts the epoch (so the first region execution does not pay for it).
pub fn init() {
    EPOCH.get_or_init(Instant::now);
}

#[cfg(test)]
mod tests {
    #[test]
    fn monotonic() {
        let a = super::now();
        let b = super::now();
        assert!(b >= a);
        std::thread::sleep(std::time::Duration::from_millis(1));
        assert!(super::to_ns(super::now() - a) >= 1_000_000);
    }
}
