//! The runtime clock: the CPU's time-stamp counter when it is invariant, else CLOCK_MONOTONIC.
//!
//! Every execution reads the clock twice, and on this project's machines `Instant::now()`
//! (CLOCK_MONOTONIC through the vDSO) costs ~26 ns per read against ~9 ns for `rdtsc`. The
//! TSC is used only when the CPU says it ticks at a constant rate through frequency changes
//! and sleep states (`constant_tsc` and `nonstop_tsc` in /proc/cpuinfo) and the calibration
//! below gives a plausible rate; otherwise (or with `OMPADAPT_CLOCK=monotonic`) the clock is
//! `Instant`. [`now`] returns ticks since the clock was set up, plus 2^40 (never 0: a
//! context's start time 0 means "not timed"); [`to_ns`] converts a difference of two readings.
//!
//! The clock reads no configuration itself: whoever sets up the process (the registry) calls
//! [`init_with`] with the configured preference first; [`init`] is the default.
//!
//! Calibration: ticks are counted over ~200 µs of CLOCK_MONOTONIC at [`init`] (once per
//! process, before the first region exists); each end is the tightest of 7 CLOCK_MONOTONIC
//! reads bracketed by TSC reads, so a preemption during calibration does not skew it. The read
//! jitter (~30 ns) gives a relative error around 2·10⁻⁴, far below what labels or drift
//! detection can notice.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

static EPOCH: OnceLock<Instant> = OnceLock::new();
static USE_TSC: AtomicBool = AtomicBool::new(false);
/// Nanoseconds per tick in 32.32 fixed point (1.0 for the monotonic clock).
static NS_PER_TICK: AtomicU64 = AtomicU64::new(1 << 32);
static SOURCE: OnceLock<String> = OnceLock::new();
/// TSC reading at set-up minus [`OFFSET`]: readings count from there, so they are never 0
/// and stay far below the flag bits a context keeps in its start time (2^60 ticks: years).
static TSC_BASE: AtomicU64 = AtomicU64::new(0);
/// What readings start from: 2^40 ticks (minutes), so that a start time can be moved back
/// by that much (tests give executions synthetic durations that way).
const OFFSET: u64 = 1 << 40;

/// Which clock to use (`OMPADAPT_CLOCK`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preference {
    /// The TSC when it is invariant, else monotonic.
    Auto,
    /// Always CLOCK_MONOTONIC.
    Monotonic,
}

#[inline]
fn mono_ns() -> u64 {
    let epoch = *EPOCH.get_or_init(Instant::now);
    Instant::now().saturating_duration_since(epoch).as_nanos() as u64 + OFFSET
}

/// Current time in clock ticks (≥ 2^40).
#[inline(always)]
pub fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    if USE_TSC.load(Ordering::Relaxed) {
        // SAFETY: rdtsc has no preconditions on x86-64.
        return unsafe { core::arch::x86_64::_rdtsc() }.wrapping_sub(TSC_BASE.load(Ordering::Relaxed));
    }
    mono_ns()
}

/// Converts a difference of two [`now`] readings to nanoseconds.
#[inline(always)]
pub fn to_ns(ticks: u64) -> u64 {
    ((ticks as u128 * NS_PER_TICK.load(Ordering::Relaxed) as u128) >> 32) as u64
}

/// Nanoseconds per tick.
pub fn ns_per_tick() -> f64 {
    NS_PER_TICK.load(Ordering::Relaxed) as f64 / 4294967296.0
}

/// Sets up the clock with the default preference unless it is set up already (idempotent).
pub fn init() {
    init_with(Preference::Auto);
}

/// Chooses and calibrates the clock (the first call wins). Called before any region exists, so
/// all readings of a process come from one source.
pub fn init_with(pref: Preference) {
    SOURCE.get_or_init(|| {
        EPOCH.get_or_init(Instant::now);
        match calibrate_tsc(pref) {
            Ok(ns_per_tick) => {
                NS_PER_TICK.store((ns_per_tick * 4294967296.0) as u64, Ordering::Relaxed);
                // SAFETY: rdtsc has no preconditions on x86-64 (calibration succeeded there).
                #[cfg(target_arch = "x86_64")]
                TSC_BASE.store(unsafe { core::arch::x86_64::_rdtsc() }.wrapping_sub(OFFSET), Ordering::Relaxed);
                USE_TSC.store(true, Ordering::Release);
                format!("tsc ({:.3} GHz, calibrated against CLOCK_MONOTONIC)", 1.0 / ns_per_tick)
            }
            Err(why) => format!("CLOCK_MONOTONIC ({why})"),
        }
    });
}

/// What the clock is, for reports and benchmarks.
pub fn source() -> &'static str {
    init();
    SOURCE.get().map(String::as_str).unwrap_or("?")
}

#[cfg(target_arch = "x86_64")]
fn calibrate_tsc(pref: Preference) -> Result<f64, String> {
    use core::arch::x86_64::_rdtsc;
    if pref == Preference::Monotonic {
        return Err("OMPADAPT_CLOCK=monotonic".into());
    }
    let flags = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("flags")).map(str::to_owned))
        .unwrap_or_default();
    let has = |f: &str| flags.split_whitespace().any(|x| x == f);
    if !(has("constant_tsc") && has("nonstop_tsc")) {
        return Err("the TSC is not invariant on this CPU".into());
    }
    // (tsc, ns) with the ns read bracketed by two TSC reads: the midpoint is the best
    // estimate, and of several tries the one with the tightest bracket (a try that was
    // preempted or interrupted between its reads has a wide one).
    let sample = || {
        (0..7)
            .map(|_| {
                // SAFETY: rdtsc has no preconditions on x86-64.
                let a = unsafe { _rdtsc() };
                let m = mono_ns();
                let b = unsafe { _rdtsc() };
                (b.wrapping_sub(a), a / 2 + b / 2, m)
            })
            .min_by_key(|&(gap, _, _)| gap)
            .map(|(_, t, m)| (t, m))
            .unwrap_or((0, 0))
    };
    let (t0, m0) = sample();
    while mono_ns().saturating_sub(m0) < 200_000 {
        std::hint::spin_loop();
    }
    let (t1, m1) = sample();
    if t1 <= t0 {
        return Err("the TSC did not advance".into());
    }
    let ns_per_tick = (m1 - m0) as f64 / (t1 - t0) as f64;
    // 10 MHz .. 100 GHz: anything else means a broken or virtualised-badly counter.
    if !(0.01..=100.0).contains(&ns_per_tick) {
        return Err(format!("implausible TSC rate ({ns_per_tick} ns per tick)"));
    }
    Ok(ns_per_tick)
}

#[cfg(not(target_arch = "x86_64"))]
fn calibrate_tsc(_: Preference) -> Result<f64, String> {
    Err("no TSC on this architecture".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_and_calibrated() {
        init_with(Preference::Auto);
        let a = now();
        let b = now();
        assert!(b >= a);
        let t = Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let ns = to_ns(now() - a);
        let real = t.elapsed().as_nanos() as u64;
        assert!(ns >= 5_000_000, "{ns} ns measured for a 5 ms sleep ({})", source());
        // within 2 % of CLOCK_MONOTONIC (plus the read jitter)
        assert!((ns as f64 - real as f64).abs() < real as f64 * 0.02 + 50_000.0, "{ns} vs {real}");
    }
}
