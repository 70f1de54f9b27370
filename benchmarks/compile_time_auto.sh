#!/usr/bin/env bash
# Compile time of zero-source-change mode against plain -fopenmp, on the unmodified programs of
# tests/auto_corpus (or the sources given). Each source is compiled, interleaved, REPS times in
# three ways:
#   plain   clang -O2 -fopenmp -fopenmp-targets=T -c
#   plugin  the same + -fplugin=libompadapt.so           (the plugin's fixed cost: loading it,
#                                                         its declarations in every TU, the pass)
#   auto    the same + -fplugin-arg-ompadapt-auto=KINDS  (every eligible target construct made
#                                                         adaptive: variants, automatic features)
# and the medians are compared: auto/plain is the figure (goal <= 1.10x); plugin/plain is the
# fixed part; (auto - plugin) / regions is the cost per adaptive region.
#
#   benchmarks/compile_time_auto.sh                      # the corpus, KINDS=cpu,gpu, REPS=5
#   KINDS='cpu,gpu,thread_limit[64:256:64]' REPS=7 benchmarks/compile_time_auto.sh
#   TARGET=nvptx64 EXTRA='--offload-arch=sm_90 --cuda-path=...' benchmarks/compile_time_auto.sh
#   CLOCK=wall benchmarks/compile_time_auto.sh FILE...   # elapsed instead of CPU time
#   TARGET=none KINDS=default EXTRA=-I/tmp/pb/utilities benchmarks/compile_time_auto.sh \
#     /tmp/pb/*/*/*-omp.c /tmp/pb/*/*/*/*-omp.c           # CPU-only code (no offload target)
# CPU time (user + system of the driver and its jobs) is the default: a machine shared with
# other work inflates it far less than wall time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
REPS=${REPS:-5}
KINDS=${KINDS:-cpu,gpu}
TARGET=${TARGET:-x86_64-pc-linux-gnu}
EXTRA=${EXTRA:-}
CLOCK=${CLOCK:-cpu}
PLUGIN=${PLUGIN:-$root/target/release/libompadapt.so}
[ -f "$PLUGIN" ] || { echo "no $PLUGIN: run 'cargo build --release' first" >&2; exit 1; }
if [ $# -gt 0 ]; then
  SOURCES=("$@")
else
  SOURCES=("$root"/tests/auto_corpus/*/main.c "$root"/tests/auto_corpus/*/main.cpp)
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# shellcheck disable=SC2206
if [ "$TARGET" = none ]; then
  PLAIN=(-O2 -fopenmp $EXTRA -c -w)
else
  PLAIN=(-O2 -fopenmp -fopenmp-targets="$TARGET" $EXTRA -c -w)
fi

# shellcheck source=scripts/lib/compile_timing.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/compile_timing.sh"
geomean() { printf '%s\n' "$@" | awk '{ s += log($1); n++ } END { if (n) printf "%.3f", exp(s / n); else printf "-" }'; }

# Offloading target constructs the mode makes adaptive (not data/enter/exit/update, not nowait
# or depend): an estimate from the source text, for the per-region cost.
regions() {
  if [ "$TARGET" = none ]; then # host parallel constructs
    grep -cE '^[[:space:]]*#[[:space:]]*pragma[[:space:]]+omp[[:space:]]+parallel' "$1" || true
    return
  fi
  grep -E '^[[:space:]]*(#[[:space:]]*pragma[[:space:]]+omp[[:space:]]+target|_Pragma\("omp target|OMP_OFFLOAD\()' "$1" |
    grep -vE 'target[[:space:]]+(data|enter|exit|update)' | grep -vcE 'nowait|depend\(' || true
}

printf '%-24s %7s %9s %9s %9s %8s %8s %10s\n' program regions "plain ms" "plugin ms" "auto ms" plugin/p auto/p "ms/region"
R_AUTO=()
R_PLUGIN=()
sum_plain=0 sum_plugin=0 sum_auto=0 sum_regions=0
: > "$TMP/fit"
for src in "${SOURCES[@]}"; do
  [ -f "$src" ] || continue
  name=$(basename "$(dirname "$src")")
  cc=clang-19
  [[ "$src" == *.cpp ]] && cc=clang++-19
  : > "$TMP/plain"; : > "$TMP/plugin"; : > "$TMP/auto"
  # Compiled in its directory under its own name, as its Makefile does.
  cd "$(dirname "$src")"
  file=$(basename "$src")
  for _ in $(seq "$REPS"); do
    time_ms "$cc" "${PLAIN[@]}" "$file" -o "$TMP/out.o" >> "$TMP/plain"
    time_ms "$cc" "${PLAIN[@]}" -fplugin="$PLUGIN" "$file" -o "$TMP/out.o" >> "$TMP/plugin"
    time_ms "$cc" "${PLAIN[@]}" -fplugin="$PLUGIN" -fplugin-arg-ompadapt-auto="$KINDS" "$file" -o "$TMP/out.o" >> "$TMP/auto"
  done
  cd - > /dev/null
  p=$(median < "$TMP/plain")
  g=$(median < "$TMP/plugin")
  a=$(median < "$TMP/auto")
  a=${a%.*} g=${g%.*} p=${p%.*}
  n=$(regions "$src")
  rp=$(awk -v a="$g" -v b="$p" 'BEGIN { printf "%.3f", a / b }')
  ra=$(awk -v a="$a" -v b="$p" 'BEGIN { printf "%.3f", a / b }')
  per=$(awk -v a="$a" -v g="$g" -v n="$n" 'BEGIN { if (n > 0) printf "%.1f", (a - g) / n; else printf "-" }')
  printf '%-24s %7s %9s %9s %9s %8s %8s %10s\n' "$name" "$n" "$p" "$g" "$a" "$rp" "$ra" "$per"
  echo "$n $((a - g))" >> "$TMP/fit"
  R_AUTO+=("$ra")
  R_PLUGIN+=("$rp")
  sum_plain=$(awk -v s="$sum_plain" -v x="$p" 'BEGIN { print s + x }')
  sum_plugin=$(awk -v s="$sum_plugin" -v x="$g" 'BEGIN { print s + x }')
  sum_auto=$(awk -v s="$sum_auto" -v x="$a" 'BEGIN { print s + x }')
  sum_regions=$((sum_regions + n))
done
echo
echo "kinds $KINDS, target $TARGET, $CLOCK time, medians of $REPS interleaved compilations (-O2 -c)"
echo "auto mode / plain -fopenmp: geometric mean $(geomean "${R_AUTO[@]}")x, whole corpus $(awk -v a="$sum_auto" -v b="$sum_plain" 'BEGIN { printf "%.3f", a / b }')x (goal <= 1.10x)"
echo "fixed cost (plugin loaded, no region) / plain: geometric mean $(geomean "${R_PLUGIN[@]}")x, whole corpus $(awk -v a="$sum_plugin" -v b="$sum_plain" 'BEGIN { printf "%.3f", a / b }')x"
echo "per adaptive region: $(awk -v a="$sum_auto" -v g="$sum_plugin" -v n="$sum_regions" 'BEGIN { if (n > 0) printf "%.1f", (a - g) / n; else printf "-" }') ms over $sum_regions regions"
# Least squares of (auto - plugin) over the number of regions: the part every translation unit
# with adaptive regions pays once (the lowering's helpers: runtime loader, fallback, host guard
# check) and the part each region adds. Template instantiations count as one source region.
awk '{ x += $1; y += $2; xx += $1 * $1; xy += $1 * $2; n++ }
  END { d = n * xx - x * x; if (n < 2 || d == 0) exit
        b = (n * xy - x * y) / d; a = (y - b * x) / n
        printf "fit over %d sources: %.1f ms per translation unit with adaptive regions + %.1f ms per region\n", n, a, b }' "$TMP/fit"
