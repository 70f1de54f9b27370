#!/bin/bash
# As run on 2026-12-07, session 12 (docs/performance.md, "Session 12: whole-run trials"): every
# speed table with whole-run trials on, against the same binary with OMPADAPT_WHOLE_RUN=0 (the
# compared column) in the same alternation; each adaptive build trains until every region is
# trained and, with the trial on, until its verdict (at most 16 runs). Trees as session 10's
# run.sh describes them.
set -u
cd "$(dirname "$0")/../../../.."
S=benchmarks/suites/cpu_speed.py
O=${1:-/work/s8/speed12}
C=(--rounds 5 --train 16 --compare-env OMPADAPT_WHOLE_RUN=0)
mkdir -p "$O"
uptime > "$O/load-start.txt"
python3 $S --tree benchmarks/sweep --table benchmarks/sweep/speed-args.tsv --out "$O/sweeps" "${C[@]}" > "$O/sweeps.log" 2>&1
python3 $S --tree /work/s8/polybench --table benchmarks/suites/polybench-speed-args.tsv --out "$O/polybench" "${C[@]}" > "$O/polybench.log" 2>&1
python3 $S --tree /work/s8/apps --table benchmarks/suites/offload-apps-speed-args.tsv --out "$O/offload" "${C[@]}" > "$O/offload.log" 2>&1
python3 $S --tree /work/s8/apps --table benchmarks/suites/proxy-apps-speed-args.tsv --out "$O/proxy" "${C[@]}" > "$O/proxy.log" 2>&1
python3 $S --tree /work/s8/npb --table benchmarks/suites/npb-speed-args.tsv --out "$O/npb" "${C[@]}" > "$O/npb.log" 2>&1
uptime > "$O/load-end.txt"
echo done > "$O/done"
