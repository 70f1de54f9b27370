#!/usr/bin/env bash
# Per-execution cost of a host region made adaptive by pass-only mode against the same region made
# adaptive through the frontend's zero-source-change mode (which, since issue 33, hands the region to
# the pass: the two should agree): instructions per execution (callgrind,
# stable on a busy machine) of a program that runs one tiny parallel loop N times, pinned to
# `serial` (no team to start: what is left is the adaptive region's own cost, begin + end + the
# variant's dispatch) and to `threads=1` (the fork with the whole team). Both builds call the same
# runtime; what differs is the code around the fork. Also the stock build's, for reference.
#
#   benchmarks/per_execution_pass.sh [N]        # N executions (default 20000)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
N=${1:-20000}
lib=${LIB:-$root/target/release}  # LIB: another build's libraries (a before/after comparison)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/tiny.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
static double v[64];
void step(int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) v[i] += 1;
}
int main(int argc, char **argv) {
  int reps = atoi(argv[1]);
  for (int r = 0; r < reps; r++) step(64);
  printf("%g\n", v[63]);
  return 0;
}
C
cd "$TMP"
clang-19 -O2 -fopenmp tiny.c -o stock
clang-19 -O2 -fopenmp -fplugin="$lib/libompadapt.so" -fplugin-arg-ompadapt-auto tiny.c -o frontend
clang-19 -O2 -fopenmp -gline-tables-only -fpass-plugin="$lib/libompadapt_pass.so" tiny.c -o passonly
count() { # exe variant reps
  OMP_NUM_THREADS=2 OMPADAPT_DIR="$TMP/s" OMPADAPT_PERSIST=0 OMPADAPT_VARIANT="$2" \
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "./$1" "$3" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-10s %-10s %14s\n' build variant "instr/exec"
for exe in stock frontend passonly; do
  for v in serial threads=1; do
    [ "$exe" = stock ] && [ "$v" = threads=1 ] && continue
    a=$(count "$exe" "$v" 1000) b=$(count "$exe" "$v" $((N + 1000)))
    label=$v; [ "$exe" = stock ] && label="(as written)"
    printf '%-10s %-10s %14.1f\n' "$exe" "$label" "$(awk -v a="$a" -v b="$b" -v n="$N" 'BEGIN { print (b - a) / n }')"
  done
done
