#!/usr/bin/env bash
# The trained sweep against the stock build (issue 44 item 1). Builds lu_sweep.c stock and
# rebuilt with -fplugin-arg-ompadapt-auto, trains the adaptive build over TRAIN runs on one
# store, then times stock and adaptive alternately (RUNS each: medians and their ratio) and
# counts the instructions of one trained run of each with callgrind (the whole run, and
# ompadapt's entry points inclusive). Prints numbers; no threshold.
#
# Usage: benchmarks/sweep/run.sh [N] (default 384)
#   FLAVOUR=  (offload, the matrix mapped per kernel) | -DRESIDENT | -DHOST_LOOP
#   TRAIN=6 RUNS=5 CALLGRIND=1 PLUGIN=<target>/release/libompadapt.so OUT=<dir, kept>
#   RT=<libompadapt_rt.so> (default: the one beside the plugin)
#   COMPARE_RT=<another libompadapt_rt.so>: trained on a store of its own and timed in the same
#     alternation (stock, adaptive, compare), for before/after figures from one session
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
n="${1:-384}"
train="${TRAIN:-6}" runs="${RUNS:-5}"
plugin="${PLUGIN:-${CARGO_TARGET_DIR:-$root/target}/release/libompadapt.so}"
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
[ -n "${RT:-}" ] && export OMPADAPT_RUNTIME="$RT"
flags=(-O2 -fopenmp)
[[ "${FLAVOUR:-}" == *HOST_LOOP* ]] || flags+=(-fopenmp-targets=x86_64-pc-linux-gnu)
# shellcheck disable=SC2086
clang-19 "${flags[@]}" ${FLAVOUR:-} "$here/lu_sweep.c" -o "$out/stock"
# shellcheck disable=SC2086
clang-19 "${flags[@]}" ${FLAVOUR:-} -fplugin="$plugin" -fplugin-arg-ompadapt-auto "$here/lu_sweep.c" -o "$out/adaptive"
export OMPADAPT_DIR="$out/store"
rm -rf "$OMPADAPT_DIR"
echo "lu_sweep n=$n ${FLAVOUR:-offload} ($((n - 1)) launches per run); load: $(uptime | sed 's/.*load/load/')"
cmp_run() { OMPADAPT_RUNTIME="$COMPARE_RT" OMPADAPT_DIR="$out/store-compare" "$@"; }
rm -rf "$out/store-compare"
for i in $(seq "$train"); do
  "$out/adaptive" "$n" >/dev/null
  [ -z "${COMPARE_RT:-}" ] || cmp_run "$out/adaptive" "$n" >/dev/null
done
ns() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null; t1=$(date +%s%N); echo $((t1 - t0)); }
s=() a=() c=()
for i in $(seq "$runs"); do
  s+=("$(ns "$out/stock" "$n")")
  a+=("$(ns "$out/adaptive" "$n")")
  [ -z "${COMPARE_RT:-}" ] || c+=("$(cmp_run ns "$out/adaptive" "$n")")
done
med() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
ms=$(med "${s[@]}") ma=$(med "${a[@]}")
echo "stock runs (ms):    $(printf '%s\n' "${s[@]}" | awk '{printf "%.1f ", $1 / 1e6}')"
echo "adaptive runs (ms): $(printf '%s\n' "${a[@]}" | awk '{printf "%.1f ", $1 / 1e6}')"
awk -v s="$ms" -v a="$ma" 'BEGIN {printf "medians: stock %.1f ms, adaptive %.1f ms, adaptive/stock %.3f\n", s / 1e6, a / 1e6, a / s}'
if [ -n "${COMPARE_RT:-}" ]; then
  mc=$(med "${c[@]}")
  echo "compare runs (ms):  $(printf '%s\n' "${c[@]}" | awk '{printf "%.1f ", $1 / 1e6}')  ($COMPARE_RT)"
  awk -v s="$ms" -v c="$mc" 'BEGIN {printf "medians: compare %.1f ms, compare/stock %.3f\n", c / 1e6, c / s}'
fi
"$out/adaptive" "$n" | cmp -s - <("$out/stock" "$n") || echo "WARNING: checksums differ"
OMPADAPT_REPORT=json:"$out/report.json" "$out/adaptive" "$n" >/dev/null
echo "load after: $(uptime | sed 's/.*load/load/')"
[ "${CALLGRIND:-1}" = 1 ] || exit 0
# one trained run of each under callgrind (the store keeps learning: a copy is profiled)
cp -r "$OMPADAPT_DIR" "$out/store-cg"
cg() { OMPADAPT_DIR="$1" valgrind --tool=callgrind --callgrind-out-file="$out/$2.cg" "$out/$3" "$n" >/dev/null 2>"$out/$2.vg"; }
cg "$out/store-cg" stock stock
cg "$out/store-cg" adaptive adaptive
if [ -n "${COMPARE_RT:-}" ]; then
  cp -r "$out/store-compare" "$out/store-cg-compare"
  OMPADAPT_RUNTIME="$COMPARE_RT" cg "$out/store-cg-compare" compare adaptive
fi
total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'; }
# ompadapt's entry points, inclusive: the first call (loading the runtime, the store, start-up
# training), the trained path of every launch (begin after the first, end, the cpu variant's
# host_enter/host_exit) and the exit (report, save). (The launch's own count is no measure: the
# host plugin runs the kernel inside it, and the master thread's share of the work varies.)
inc() { callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null | awk -v f="$2" '
  index($0, ":" f " [") { c = $1; gsub(",", "", c); print c; found = 1; exit }
  END { if (!found) print 0 }'; }
summary() {
  local a=$out/$1.cg
  awk -v k=$((n - 1)) -v s="$(total "$out/stock.cg")" -v t="$(total "$a")" -v what="$1" \
    -v begin="$(inc "$a" ompadapt_begin_v5)" -v first="$(inc "$a" ompadapt_rt::ffi::first_call)" \
    -v attach="$(inc "$a" ompadapt_rt::store::attach)" -v end="$(inc "$a" ompadapt_end_v5)" \
    -v train="$(inc "$a" "ompadapt_rt::region::training::<impl ompadapt_rt::region::Region>::train_if_ready")" \
    -v henter="$(inc "$a" ompadapt_host_enter_v5)" -v hexit="$(inc "$a" ompadapt_host_exit)" \
    -v atexit="$(inc "$a" ompadapt_rt::registry::exit_handler)" -v load="$(inc "$a" __ompadapt_v6_load_runtime)" \
    'BEGIN {
    path = begin - first + end + henter + hexit
    printf "callgrind, %s: whole run %.1f M instructions, stock %.1f M (%.3fx; %+.0f per launch)\n", what, t / 1e6, s / 1e6, t / s, (t - s) / k
    printf "  trained path per launch (begin, end, host_enter/exit)  %10.0f  (total %.0f)\n", path / k, path
    printf "    begin %.0f, end %.0f, host_enter %.0f, host_exit %.0f per launch\n", (begin - first) / (k - 1), end / k, henter / k, hexit / k
    printf "  first call (region, store, start-up)                    %10.0f  (loading the store and start-up training %.0f)\n", first, attach
    printf "  of which start-up training                              %10.0f  (without it: %.3fx stock)\n", train, (t - train) / s
    printf "  loading the runtime                                     %10.0f\n", load
    printf "  at exit (report, save)                                  %10.0f\n", atexit
  }'
}
summary adaptive
[ -z "${COMPARE_RT:-}" ] || summary compare
echo "profiles: $out/{stock,adaptive${COMPARE_RT:+,compare}}.cg (callgrind_annotate --inclusive=yes)"
