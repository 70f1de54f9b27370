#!/usr/bin/env bash
# Compile-time cost of the plugin. Compiles each source with and without
# -fplugin=libompadapt.so, alternating, REPS times each, and prints the median times and their
# ratio, per source and as a geometric mean. Sources without adaptation directives compile
# unchanged both ways (the cost every translation unit of a code base pays); for adaptive
# sources the baseline is the program written for one fixed variant: the adaptation directives
# removed and each metadirective's adaptation selector (or declare adaptation's empty one)
# replaced by `condition(1)`, so stock clang picks its first variant at compile time. That
# ratio includes the lowering and the code it adds: a copy of the statement per variant, and
# the device code of offload variants. Both compilations must succeed.
#
#   scripts/compile-time.sh                     # -c -O2 with host offload (the default build)
#   MODE=syntax scripts/compile-time.sh         # -fsyntax-only: the frontend alone
#   REPS=11 scripts/compile-time.sh FILE...     # other sources, more repetitions
#   CLOCK=wall scripts/compile-time.sh          # elapsed instead of CPU time
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-7}
MODE=${MODE:-object}
CLOCK=${CLOCK:-cpu}
PLUGIN=${PLUGIN:-$PWD/target/release/libompadapt.so}
[ -f "$PLUGIN" ] || { echo "no $PLUGIN: run 'cargo build --release' first" >&2; exit 1; }
if [ $# -gt 0 ]; then
  SOURCES=("$@")
else
  SOURCES=(examples/vecadd.c benchmarks/dataperf/*.c tests/programs/*.c tests/fuzz/corpus/*.c tests/fuzz/corpus/*.cpp)
fi
case "$MODE" in
  object) FLAGS=(-O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c -w) ;;
  syntax) FLAGS=(-fopenmp -fsyntax-only -w) ;;
  *) echo "MODE is object or syntax" >&2; exit 1 ;;
esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=scripts/lib/strip_adaptation.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/strip_adaptation.sh"

# shellcheck source=scripts/lib/compile_timing.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/compile_timing.sh"

printf '%-28s %-9s %10s %10s %7s\n' source kind "plain ms" "plugin ms" ratio
RATIOS_PLAIN=()
RATIOS_ADAPTIVE=()
for src in "${SOURCES[@]}"; do
  name=$(basename "$src")
  ext=${name##*.}
  cc=clang-19
  [ "$ext" = cpp ] && cc=clang++-19
  base="$TMP/base.$ext"
  kind=plain
  if grep -q adaptation "$src"; then
    kind=adaptive
    strip_adaptation "$src" > "$base"
  else
    cp "$src" "$base"
  fi
  # Headers beside the source (tests/programs/common.h) stay reachable from the copy.
  inc=(-I "$(dirname "$src")")
  : > "$TMP/with"; : > "$TMP/without"
  for _ in $(seq "$REPS"); do
    time_ms "$cc" "${FLAGS[@]}" "${inc[@]}" "$base" -o "$TMP/out.o" >> "$TMP/without"
    time_ms "$cc" "${FLAGS[@]}" "${inc[@]}" -fplugin="$PLUGIN" "$src" -o "$TMP/out.o" >> "$TMP/with"
  done
  without=$(median < "$TMP/without")
  with=$(median < "$TMP/with")
  ratio=$(awk -v a="$with" -v b="$without" 'BEGIN { printf "%.3f", a / b }')
  printf '%-28s %-9s %10s %10s %7s\n' "$name" "$kind" "$without" "$with" "$ratio"
  if [ "$kind" = plain ]; then RATIOS_PLAIN+=("$ratio"); else RATIOS_ADAPTIVE+=("$ratio"); fi
done
geomean() { printf '%s\n' "$@" | awk '{ s += log($1); n++ } END { if (n) printf "%.3f", exp(s / n); else printf "-" }'; }
echo
echo "mode $MODE, $CLOCK time, $REPS runs each, medians"
echo "geometric mean ratio, sources without adaptation directives: $(geomean "${RATIOS_PLAIN[@]}")x (goal <= 1.10x)"
echo "geometric mean ratio, adaptive sources vs. the same without their directives: $(geomean "${RATIOS_ADAPTIVE[@]}")x"
