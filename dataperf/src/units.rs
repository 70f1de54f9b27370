//! Durations and sizes for humans, as the reports print them.

/// A duration (ns, us, ms, s).
pub fn fmt_ns(ns: u64) -> String {
    match ns {
        0..=9_999 => format!("{ns}ns"),
        10_000..=9_999_999 => format!("{:.1}us", ns as f64 / 1e3),
        10_000_000..=9_999_999_999 => format!("{:.1}ms", ns as f64 / 1e6),
        _ => format!("{:.2}s", ns as f64 / 1e9),
    }
}

/// A size (B, KiB, MiB).
pub fn fmt_bytes(b: u64) -> String {
    match b {
        0..=10_239 => format!("{b} B"),
        10_240..=10_485_759 => format!("{:.1} KiB", b as f64 / 1024.0),
        _ => format!("{:.1} MiB", b as f64 / 1048576.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(fmt_ns(812), "812ns");
        assert_eq!(fmt_ns(12_345), "12.3us");
        assert_eq!(fmt_ns(45_600_000), "45.6ms");
        assert_eq!(fmt_bytes(4096), "4096 B");
        assert_eq!(fmt_bytes(32768), "32.0 KiB");
        assert_eq!(fmt_bytes(12 << 20), "12.0 MiB");
    }
}
