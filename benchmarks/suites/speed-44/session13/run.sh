#!/bin/bash
# As run on 2026-12-08, session 13 (docs/performance.md, "Session 13: one support call per host
# region"): the programs with the most host regions or `serial` labels, adaptive build of this
# commit against the build before the change (BEFORE: `32b4b07`'s libompadapt.so, built with
# CARGO_TARGET_DIR aside) in the same alternation, each trained until its whole-run verdict.
set -u
cd "$(dirname "$0")/../../../.."
S=benchmarks/suites/cpu_speed.py
O=${1:-/work/s8/speed13}
BEFORE=${BEFORE:-/tmp/before-target/release/libompadapt.so}
C=(--rounds 5 --train 16 --compare-plugin "$BEFORE")
mkdir -p "$O"
uptime > "$O/load-start.txt"
python3 $S --tree /work/s8/polybench --table benchmarks/suites/polybench-speed-args.tsv --out "$O/polybench" "${C[@]}" \
  --only durbin --only jacobi-2d --only gemm --only lu > "$O/polybench.log" 2>&1
python3 $S --tree /work/s8/apps --table benchmarks/suites/proxy-apps-speed-args.tsv --out "$O/proxy" "${C[@]}" \
  --only lulesh --only hpccg > "$O/proxy.log" 2>&1
uptime > "$O/load-end.txt"
echo done > "$O/done"
