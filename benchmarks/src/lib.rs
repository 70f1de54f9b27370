//! `ompadapt_benchmarks`: the benchmarks of ompadapt, and only those.
//!
//! * `benches/` — the criterion benchmarks (`cargo bench -p ompadapt-benchmarks`: runtime
//!   overhead, models, generated code, data-movement analysis), with [`workspace_root`] and
//!   [`release_libraries`] for those that compile C programs;
//! * `kernels/` — the evaluation kernels `ompadapt bench` runs, `dataperf/`, `suites/` and the
//!   results.
//!
//! The evaluation harness behind `ompadapt bench` is the product's, so it lives in
//! `ompadapt-harness`, and the pictures in `ompadapt-plot`; no product crate depends on this
//! one (the architecture test checks it).

#![deny(missing_docs)]

use std::path::PathBuf;

/// The workspace's root folder.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The libraries `cargo build --release` built (`names` in the release folder of
/// `CARGO_TARGET_DIR`, or of the workspace's `target/`), or `None`, after one line saying the
/// bench is skipped, when any is missing.
pub fn release_libraries<const N: usize>(names: [&str; N]) -> Option<[PathBuf; N]> {
    let target = std::env::var("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|_| workspace_root().join("target"));
    let libs = names.map(|n| target.join("release").join(n));
    let missing: Vec<String> = libs.iter().filter(|l| !l.exists()).map(|l| l.display().to_string()).collect();
    if missing.is_empty() {
        Some(libs)
    } else {
        eprintln!("skipped: {} missing (run `cargo build --release` first)", missing.join(" or "));
        None
    }
}
