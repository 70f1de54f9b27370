#!/usr/bin/env bash
# Compile time of pass-only mode (docs/pass-only.md) against the stock compile: instructions
# executed by the compiler job (callgrind: the same on a quiet or a busy machine, unlike
# seconds), per source, stock and with -fpass-plugin=libompadapt_pass.so, same flags otherwise.
# Prints one line per source and the ratio of the sums and the geometric mean of the ratios.
#
#   benchmarks/compile_time_pass.sh [-g] FILE...            # C/C++ (clang-19) or Fortran (flang-new-19)
#   FLAGS='-O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only' benchmarks/compile_time_pass.sh FILE...
# FLAGS defaults to '-O2 -fopenmp'; -g adds -gline-tables-only to both compiles (pass-only mode
# names regions from debug locations). Only the compiler's own job is measured (cc1 / fc1), not
# the driver or the linker.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
PASS=${PASS:-$root/target/release/libompadapt_pass.so}
[ -f "$PASS" ] || { echo "no $PASS: run 'cargo build --release' first" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind is missing (scripts/bootstrap.sh installs it)" >&2; exit 1; }
DEBUG=()
if [ "${1:-}" = -g ]; then DEBUG=(-gline-tables-only); shift; fi
# shellcheck disable=SC2206
FLAGS=(${FLAGS:--O2 -fopenmp})
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# instructions of the compiler job that compiles $1 with the remaining arguments
count() {
  local src=$1 compiler=clang-19
  shift
  case "$src" in *.cpp|*.cc) compiler=clang++-19 ;; *.f90|*.F90|*.f|*.F) compiler=flang-new-19 ;; esac
  local job
  job=$("$compiler" -### "${FLAGS[@]}" "${DEBUG[@]}" "$@" -c "$src" -o "$TMP/o.o" 2>&1 | grep -E '"-(cc1|fc1)"' | head -1)
  eval "set -- $job"
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

total_stock=0 total_pass=0 logsum=0 n=0
printf '%-40s %16s %16s %7s\n' source stock pass-only ratio
for src in "$@"; do
  s=$(cd "$(dirname "$src")" && count "$(basename "$src")")
  p=$(cd "$(dirname "$src")" && count "$(basename "$src")" "-fpass-plugin=$PASS")
  r=$(awk -v p="$p" -v s="$s" 'BEGIN { printf "%.4f", p / s }')
  printf '%-40s %16d %16d %7s\n' "$(basename "$(dirname "$src")")/$(basename "$src")" "$s" "$p" "$r"
  total_stock=$((total_stock + s)) total_pass=$((total_pass + p)) n=$((n + 1))
  logsum=$(awk -v l="$logsum" -v r="$r" 'BEGIN { printf "%.8f", l + log(r) }')
done
awk -v p="$total_pass" -v s="$total_stock" -v l="$logsum" -v n="$n" \
  'BEGIN { printf "sum: pass-only / stock = %.4f; geometric mean of the ratios = %.4f (%d sources)\n", p / s, exp(l / n), n }'
