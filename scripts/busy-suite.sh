#!/usr/bin/env bash
# The whole test suite, N times in a row (default 5), with two busy loops pinned beside it (one
# per core of the first two: `taskset`), as CI may run beside other work. Stops at the first
# failing run. Prints, per run, its duration, the load average and the result; the logs are in
# $OUT (default target/busy-suite/).
#
#   scripts/busy-suite.sh [N]
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
out=${OUT:-target/busy-suite}
mkdir -p "$out"

busy=()
stop_busy() {
  for p in "${busy[@]}"; do kill "$p" 2>/dev/null; done
}
trap stop_busy EXIT
for cpu in 0 1; do
  taskset -c "$cpu" sh -c 'while :; do :; done' &
  busy+=($!)
done

# build once outside the timed runs (scripts/test.sh builds too; then it is a no-op)
scripts/bootstrap.sh >/dev/null
cargo build --release --workspace >"$out/build.log" 2>&1 || { echo "build failed: $out/build.log"; exit 1; }

summary="$out/summary.tsv"
printf 'run\tstart\tseconds\tload_before\tload_after\tresult\n' >"$summary"
for i in $(seq 1 "$runs"); do
  load_before=$(cut -d' ' -f1 /proc/loadavg)
  start=$(date +%s)
  if scripts/test.sh >"$out/run-$i.log" 2>&1; then result=passed; else result=FAILED; fi
  secs=$(($(date +%s) - start))
  load_after=$(cut -d' ' -f1 /proc/loadavg)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$i" "$(date -d @"$start" -Is)" "$secs" "$load_before" "$load_after" "$result" | tee -a "$summary"
  if [ "$result" != passed ]; then
    grep -E "panicked|FAILED|^error" "$out/run-$i.log" | head -20
    exit 1
  fi
done
echo "all $runs runs passed beside two busy loops ($summary)"
