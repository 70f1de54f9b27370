#!/usr/bin/env bash
# The whole test suite: installs the toolchain if missing, builds once, runs every test
# (unit tests, the pass's IR tests, end-to-end programs compiled with clang-19 + the plugin).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
cargo build --release --workspace
cargo test --release --workspace
# MPI: the runtime built with --features mpi (rsmpi against Open MPI, which
# bootstrap installs), its unit tests, and 4 ranks under mpirun pooling their samples.
cargo test --release -p ompadapt-rt --features mpi --lib mpi::
cargo test --release -p ompadapt-rt --features mpi --test mpi_train
