#!/usr/bin/env bash
# Conformance corpora nobody here wrote, run differentially (issue 41): DataRaceBench's
# race-free programs (C and Fortran), LLVM's OpenMP runtime and offload lit tests, GCC's libgomp
# testsuite. Every single-file program is built stock and in the adaptive builds (plugin:
# zero-source-change mode, C/C++; pass: pass-only mode, C/C++ and Fortran), and each adaptive
# build runs with every region pinned to each variant and under the real runtime, compared with
# stock's stdout and exit status at the same OMP_NUM_THREADS (single_file_suite.py --matrix,
# conformance_lists.py says which tests run as plain programs and why the others do not).
#
# usage: benchmarks/suites/conformance.sh [--out DIR] [--teams 2,4] [--corpora drb,llvm-runtime,llvm-offload,libgomp]
#            [--drb MIRROR|TREE] [--llvm TREE] [--gcc TREE] [--libgomp-every K] [--timeout S] [--report | --no-report]
#   --drb    a bare mirror of LLNL/dataracebench (extracted into OUT/src/drb) or a checkout
#   --llvm   a tree holding openmp/runtime/test and offload/test (llvm-project, or Debian's
#            llvm-toolchain-19 source: `apt-get source --download-only llvm-toolchain-19`, the
#            version the installed clang-19 was built from)
#   --gcc    a tree holding libgomp/testsuite (gcc-mirror/gcc, or `apt-get source gcc-12`)
#   --libgomp-every K   every K-th runnable libgomp test of each folder (a deterministic subset)
#   --report            rewrite conformance.md and conformance-results.tsv of this folder from OUT
#                       (whole files: sections of conformance.md written by hand are lost)
#   --no-report         run the corpora, leave this folder alone (results in OUT/<corpus>/)
#   the OMPADAPT_PLUGIN environment variable names libompadapt.so (libompadapt_pass.so and
#   libompadapt_rt.so beside it), default target/release
# Sources stay under OUT (never in this repository); nothing runs in parallel (--jobs 1).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out=/tmp/ompadapt-conformance teams=2 corpora=drb,llvm-runtime,llvm-offload,libgomp
drb=/work/.mirror/LLNL+dataracebench/repo llvm="" gcc="" every=1 timeout=30 report_only=0 no_report=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --teams) teams="$2"; shift 2 ;;
    --corpora) corpora="$2"; shift 2 ;;
    --drb) drb="$2"; shift 2 ;;
    --llvm) llvm="$2"; shift 2 ;;
    --gcc) gcc="$2"; shift 2 ;;
    --libgomp-every) every="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --report) report_only=1; shift ;;
    --no-report) no_report=1; shift ;;
    *) echo "conformance.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
unset OMPADAPT_AUTO OMPADAPT_VARIANT OMPADAPT_REPORT OMPADAPT_DIR OMP_NUM_THREADS
mkdir -p "$out/src"
suite() { # corpus title list [extra options]
  local corpus="$1" title="$2" list="$3"
  shift 3
  python3 "$here/single_file_suite.py" --matrix --jobs 1 --timeout "$timeout" --teams "$teams" \
    --corpus "$corpus" --title "$title" --list "$list" --out "$out/$corpus" "$@" | tail -n 3
}
if [ "$report_only" = 0 ]; then
  for c in ${corpora//,/ }; do
    case "$c" in
      drb)
        src="$drb"
        if [ -d "$drb/objects" ] || [ -f "$drb/HEAD" ]; then # a bare mirror
          src="$out/src/drb"
          rm -rf "$src" && mkdir -p "$src"
          git -C "$drb" archive HEAD micro-benchmarks micro-benchmarks-fortran | tar -x -C "$src"
          rev="$(git -C "$drb" rev-parse --short HEAD)"
        else
          rev="$(git -C "$drb" rev-parse --short HEAD 2> /dev/null || echo unknown)"
        fi
        python3 "$here/conformance_lists.py" drb "$src" > "$out/drb.list"
        mb="$src/micro-benchmarks"
        # PolyBench kernels print their time (POLYBENCH_TIME, as the suite builds them): not compared
        suite drb "DataRaceBench $rev, race-free programs (*-no.c/.cpp/.f95)" "$out/drb.list" --root "$src" \
          --cflags="-I$mb -I$mb/utilities" --companion "polybench/polybench.h=>$mb/utilities/polybench.c" \
          --ignore '^[0-9]+\.[0-9]+$'
        ;;
      llvm-runtime | llvm-offload)
        [ -n "$llvm" ] || { echo "conformance.sh: $c needs --llvm TREE" >&2; exit 2; }
        dir=openmp/runtime/test what="LLVM OpenMP runtime tests (openmp/runtime/test)"
        [ "$c" = llvm-offload ] && dir=offload/test what="LLVM offload tests (offload/test)"
        python3 "$here/conformance_lists.py" lit "$llvm" "$dir" > "$out/$c.list"
        suite "$c" "$what, $(basename "$(cd "$llvm" && pwd)")" "$out/$c.list" --root "$llvm/$dir"
        ;;
      libgomp)
        [ -n "$gcc" ] || { echo "conformance.sh: libgomp needs --gcc TREE" >&2; exit 2; }
        t="$gcc/libgomp/testsuite"
        python3 "$here/conformance_lists.py" dejagnu "$gcc" libgomp/testsuite/libgomp.c libgomp/testsuite/libgomp.c-c++-common \
          libgomp/testsuite/libgomp.fortran --every "$every" > "$out/libgomp.list"
        sub=""
        [ "$every" = 1 ] || sub=", every $every-th runnable test in path order"
        suite libgomp "GCC libgomp testsuite (libgomp.c, libgomp.c-c++-common, libgomp.fortran), $(basename "$(cd "$gcc" && pwd)")$sub" \
          "$out/libgomp.list" --root "$t" --cflags="-I$t/../ -I$t/libgomp.c-c++-common"
        ;;
      *) echo "conformance.sh: unknown corpus $c" >&2; exit 2 ;;
    esac
  done
fi
[ "$no_report" = 0 ] || exit 0
dirs=()
for c in drb llvm-runtime llvm-offload libgomp; do [ -f "$out/$c/results.json" ] && dirs+=("$out/$c"); done
python3 "$here/single_file_suite.py" --combine "${dirs[@]}" --preamble "$here/conformance-preamble.md" \
  --md "$here/conformance.md" --tsv "$here/conformance-results.tsv"
echo "wrote $here/conformance.md and $here/conformance-results.tsv"
