#!/bin/bash
# As run on 2026-12-07, session 11, with the pooled control verdicts (main at 5228005, reverted
# in af687d1): the sweeps, PolyBench and the proxy apps again against the build before the
# rechecks and control runs (3023e13), nothing else running. Trees as in ../run.sh.
# durbin-ab-*.txt: wall seconds of PolyBench durbin on copies of this run's trained store:
# stock, the trained build (pool), and the trained build with OMPADAPT_CONTROL=0 (nocontrol).
set -u
cd /work/main
B=/work/s8/before-target/release/libompadapt.so
S=benchmarks/suites/cpu_speed.py
O=${1:-/work/s8/speed11-pooled}
mkdir -p $O
uptime > $O/load-start.txt
python3 $S --tree benchmarks/sweep --table benchmarks/sweep/speed-args.tsv --out $O/sweeps --rounds 5 --train 12 --compare-plugin $B > $O/sweeps.log 2>&1
python3 $S --tree /work/s8/polybench --table benchmarks/suites/polybench-speed-args.tsv --out $O/polybench --rounds 5 --train 12 --compare-plugin $B > $O/polybench.log 2>&1
python3 $S --tree /work/s8/apps --table benchmarks/suites/proxy-apps-speed-args.tsv --out $O/proxy --rounds 5 --train 12 --compare-plugin $B > $O/proxy.log 2>&1
uptime > $O/load-end.txt
echo done > $O/done
