#!/bin/bash
# As run on 2026-12-07, session 12: the programs above 1.02 in run.sh's tables, 15 alternations
# each (stock, trial on, OMPADAPT_WHOLE_RUN=0), fresh stores.
set -u
cd "$(dirname "$0")/../../../.."
S=benchmarks/suites/cpu_speed.py
O=${1:-/work/s8/speed12-15}
C=(--rounds 15 --train 16 --compare-env OMPADAPT_WHOLE_RUN=0)
mkdir -p "$O"
uptime > "$O/load-start.txt"
python3 $S --tree benchmarks/sweep --table benchmarks/sweep/speed-args.tsv --out "$O/sweeps" --only lu-resident --only wavefront-offload "${C[@]}" > "$O/sweeps.log" 2>&1
python3 $S --tree /work/s8/polybench --table benchmarks/suites/polybench-speed-args.tsv --out "$O/polybench" --only adi --only lu --only atax "${C[@]}" > "$O/polybench.log" 2>&1
python3 $S --tree /work/s8/apps --table benchmarks/suites/offload-apps-speed-args.tsv --out "$O/offload" --only tealeaf "${C[@]}" > "$O/offload.log" 2>&1
python3 $S --tree /work/s8/apps --table benchmarks/suites/proxy-apps-speed-args.tsv --out "$O/proxy" --only hpccg "${C[@]}" > "$O/proxy.log" 2>&1
uptime > "$O/load-end.txt"
echo done > "$O/done"
