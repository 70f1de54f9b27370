#!/usr/bin/env bash
# The main demonstration: builds ompadapt, compiles examples/vecadd.c with the distribution's
# clang-19 and -fplugin=libompadapt.so, runs it twice and shows what the runtime learned.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
cargo build --release -p ompadapt-plugin -p ompadapt-pass -p ompadapt-rt -p ompadapt-cli
lib="${CARGO_TARGET_DIR:-$PWD/target}/release"
out="${CARGO_TARGET_DIR:-$PWD/target}/demo"
mkdir -p "$out"
# A GPU build needs -fopenmp-targets=nvptx64 and a CUDA toolchain (see docs/packaging.md); host offload
# runs everywhere: libomptarget executes the offloaded kernels on its host plugin.
targets="${OMPADAPT_DEMO_TARGETS:-x86_64-pc-linux-gnu}"
set -x
clang-19 -O2 -fopenmp -fopenmp-targets="$targets" -fplugin="$lib/libompadapt.so" examples/vecadd.c -o "$out/vecadd"
set +x
cd "$out"
rm -rf .ompadapt
echo
echo "=== run 1: explore, train, decide (OMPADAPT_REPORT=1 prints what the runtime learned)"
OMPADAPT_REPORT=1 ./vecadd
echo
echo "=== run 2: no exploration; starts from what run 1 stored in $out/.ompadapt"
./vecadd --no-train
echo
echo "=== what the store holds (the ompadapt command: list, show, train, evaluate)"
"$lib/ompadapt" --dir "$out/.ompadapt" list
