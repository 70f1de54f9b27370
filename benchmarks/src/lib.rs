//! ompadapt benchmarks. The runtime overhead micro-benchmarks are in `benches/overhead.rs`
//! (`cargo bench -p ompadapt-benchmarks`); adaptive kernels and the evaluation harness come later.
