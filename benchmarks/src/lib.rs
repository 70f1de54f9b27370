//! `ompadapt_benchmarks`: every benchmark of ompadapt lives in this crate.
//!
//! * [`harness`] — the evaluation harness (Georgakoudis et al.'s section 4 on the kernels of
//!   `kernels/`: comparators, CSV, summary tables, figures). The `ompadapt bench` command only
//!   parses its arguments into [`harness::Options`] and calls [`harness::run`];
//! * [`plot`] — pictures with plotters, for the harness's figures and `ompadapt show`'s;
//! * `benches/` — the criterion benchmarks (`cargo bench -p ompadapt-benchmarks`: runtime
//!   overhead, models, generated code, data-movement analysis), with [`workspace_root`] and
//!   [`release_libraries`] for those that compile C programs.
//!
//! One home rather than two: the harness used to be a module of the command, apart from the
//! benchmark kernels, benches and results it measures. Here it sits beside them, builds and is
//! tested as a library, and the command carries only its command line. Offline training, which
//! Adaptive-100 needs, comes from the caller ([`harness::OfflineTrainer`]): the command trains
//! as `ompadapt train` does, so this crate does not depend on it.

#![deny(missing_docs)]

pub mod harness;
pub mod plot;

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
