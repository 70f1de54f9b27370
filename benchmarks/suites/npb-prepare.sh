#!/usr/bin/env bash
# Prepares an NPB-CPP tree (GMAP/NPB-CPP: NAS Parallel Benchmarks 4.1 in C++ with OpenMP) for
# cpu_suite.py / cpu_speed.py: builds NPB's setparams and writes each benchmark's
# npbparams.hpp for CLASS (S, W, A, ...), as `make <bm> CLASS=...` would before compiling.
#
#   benchmarks/suites/npb-prepare.sh TREE [CLASS] [BM=CLASS]...   # TREE holds NPB-OMP/
#
# BM=CLASS gives one benchmark another class (npb-speed-args.tsv: W, with lu=S).
set -euo pipefail
tree=$1
class=${2:-S}
shift $(($# < 2 ? $# : 2))
cd "$tree/NPB-OMP/sys"
clang++-19 -std=c++14 -fopenmp -o setparams setparams.cpp
for b in bt cg ep ft is lu mg sp; do
  c=$class
  for o in "$@"; do [ "${o%%=*}" = "$b" ] && c=${o#*=}; done
  (cd "../${b^^}" && ../sys/setparams "$b" "$c")
done
echo "npbparams.hpp written for class $class${*:+ ($*)}"
