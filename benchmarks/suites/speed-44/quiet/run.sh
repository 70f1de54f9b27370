#!/bin/bash
# As run on 2026-12-07 (docs/performance.md, "The speed tables at quiet-machine sizes"). Trees:
#   /work/speed44/polybench   PolyBench/C 4.2.1 (polybench-speed-args.tsv's sources)
#   /work/elig/apps           benchmarks/suites/apps-prepare.sh (proxy and offload apps)
#   /work/speed44/npb-2       benchmarks/suites/npb-prepare.sh TREE W cg=A ft=A is=A mg=A lu=S
#   B                          the "before" build's libompadapt.so (main at 9f6620c)
cd /work/main
B=/work/notes/before-9f6620c/libompadapt.so
S=benchmarks/suites/cpu_speed.py
O=/work/speed44/out2
uptime > $O/load-start.txt
python3 $S --tree benchmarks/sweep --table benchmarks/sweep/speed-args.tsv --out $O/sweeps --rounds 5 --train 12 --compare-plugin $B > $O/sweeps.log 2>&1
python3 $S --tree /work/speed44/polybench --table benchmarks/suites/polybench-speed-args.tsv --out $O/polybench --rounds 5 --train 12 --compare-plugin $B > $O/polybench.log 2>&1
python3 $S --tree /work/elig/apps --table benchmarks/suites/offload-apps-speed-args.tsv --out $O/offload --rounds 5 --train 12 --compare-plugin $B > $O/offload.log 2>&1
python3 $S --tree /work/elig/apps --table benchmarks/suites/proxy-apps-speed-args.tsv --out $O/proxy --rounds 5 --train 12 --compare-plugin $B > $O/proxy.log 2>&1
python3 $S --tree /work/speed44/npb-2 --table benchmarks/suites/npb-speed-args.tsv --out $O/npb --rounds 5 --train 12 --compare-plugin $B > $O/npb.log 2>&1
uptime > $O/load-end.txt
echo done > $O/done
