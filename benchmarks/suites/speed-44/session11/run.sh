#!/bin/bash
# As run on 2026-12-07, session 11 (docs/performance.md, "Session 11: the final control rule on
# a quiet machine"): every speed table with main at afb9704 (the final control rule of session
# 10), against the build before the rechecks and control runs (main at 3023e13) in the same
# alternation, nothing else running. Trees:
#   /work/s8/polybench   PolyBench/C 4.2.1 OpenMP (EEESlab/PolyBenchC-4.2.1-OpenMP, HEAD)
#   /work/s8/apps        benchmarks/suites/apps-prepare.sh /work/.mirror /work/s8/apps
#   /work/s8/npb         GMAP/NPB-CPP, then benchmarks/suites/npb-prepare.sh TREE W cg=A ft=A is=A mg=A lu=S
#   B                    the "before" build's libompadapt.so (3023e13, built in a worktree)
set -u
cd /work/main
B=/work/s8/before-target/release/libompadapt.so
S=benchmarks/suites/cpu_speed.py
O=${1:-/work/s8/speed11}
mkdir -p $O
uptime > $O/load-start.txt
python3 $S --tree benchmarks/sweep --table benchmarks/sweep/speed-args.tsv --out $O/sweeps --rounds 5 --train 12 --compare-plugin $B > $O/sweeps.log 2>&1
python3 $S --tree /work/s8/polybench --table benchmarks/suites/polybench-speed-args.tsv --out $O/polybench --rounds 5 --train 12 --compare-plugin $B > $O/polybench.log 2>&1
python3 $S --tree /work/s8/apps --table benchmarks/suites/offload-apps-speed-args.tsv --out $O/offload --rounds 5 --train 12 --compare-plugin $B > $O/offload.log 2>&1
python3 $S --tree /work/s8/apps --table benchmarks/suites/proxy-apps-speed-args.tsv --out $O/proxy --rounds 5 --train 12 --compare-plugin $B > $O/proxy.log 2>&1
python3 $S --tree /work/s8/npb --table benchmarks/suites/npb-speed-args.tsv --out $O/npb --rounds 5 --train 12 --compare-plugin $B > $O/npb.log 2>&1
uptime > $O/load-end.txt
echo done > $O/done
