#!/usr/bin/env bash
# The whole test suite: installs the toolchain if missing, builds once, runs every test
# (unit tests, the pass's IR tests, end-to-end programs compiled with clang-19 + the plugin).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
cargo build --release --workspace
cargo test --release --workspace
