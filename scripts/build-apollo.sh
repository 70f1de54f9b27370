#!/usr/bin/env bash
# Builds LLNL Apollo 2.0 (the anchor the runtime is measured against) in Release mode from the
# snapshot in ../shared/anchors (or $APOLLO_TARBALL) into target/apollo (ignored by git).
# Prints the path of libapollo.so. About a minute on 2 cores; skipped when already built.
set -euo pipefail
cd "$(dirname "$0")/.."
tarball="${APOLLO_TARBALL:-$(cd .. && pwd)/shared/anchors/apollo-1d44e6b.tar.gz}"
[ -f "$tarball" ] || tarball=/work/shared/anchors/apollo-1d44e6b.tar.gz
out="${CARGO_TARGET_DIR:-$PWD/target}/apollo"
lib="$out/apollo-1d44e6b/build/src/libapollo.so"
if [ ! -f "$lib" ]; then
  [ -f "$tarball" ] || { echo "no Apollo snapshot at $tarball (set APOLLO_TARBALL)" >&2; exit 1; }
  mkdir -p "$out"
  tar -xzf "$tarball" -C "$out"
  # without CMAKE_BUILD_TYPE Apollo builds unoptimised (7x slower): always Release
  cmake -S "$out/apollo-1d44e6b" -B "$out/apollo-1d44e6b/build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=ON -DENABLE_OpenCV=OFF -DENABLE_TESTS=OFF >&2
  cmake --build "$out/apollo-1d44e6b/build" -j"$(nproc)" >&2
fi
echo "$lib"
