#!/usr/bin/env bash
# Instructions per trained region execution (callgrind), for each case of
# benchmarks/c/apollo_side_by_side.c: generated code with 1 and 4 features, ompadapt through
# Apollo's ABI and Apollo 2.0 itself. Instruction counts repeat exactly on a shared, loaded
# machine where times do not. Usage: scripts/callgrind-trained-path.sh [LIBOMPADAPT_RT] [PLUGIN]
# (default: target/release; Apollo from scripts/build-apollo.sh). Prints Ir per execution,
# the empty loop's subtracted; leaves the profile in $OUT (default /tmp/trained-path.callgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
rt="${1:-$PWD/target/release/libompadapt_rt.so}"
plugin="${2:-$PWD/target/release/libompadapt.so}"
apollo="$(scripts/build-apollo.sh)"
out="${OUT:-/tmp/trained-path.callgrind}"
iters=20000 rounds=3
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
clang-19 -O2 -g -fopenmp -fplugin="$plugin" -DITERS_N=$iters -DROUNDS_N=$rounds \
  benchmarks/c/apollo_side_by_side.c -ldl -o "$dir/sbs"
# no learning after training and no drift checks: every measured execution takes the trained
# path (otherwise timing under valgrind decides how many explore, and the counts wander)
(cd "$dir" && OMPADAPT_PERSIST=0 OMPADAPT_LEARN=0 OMPADAPT_DRIFT=0 valgrind --tool=callgrind --callgrind-out-file="$out" \
  --toggle-collect='loop_*' "$dir/sbs" "$rt" "$apollo" >"$dir/out" 2>&1) || { tail "$dir/out" >&2; exit 1; }
callgrind_annotate --inclusive=yes --threshold=100 "$out" | awk -v n=$((iters * rounds)) '
  # the first line naming a loop is its inclusive total; the name is the field with ":loop_"
  # (not a fixed column: a share under 10 % is printed "( 9.78%)", one field more)
  /:loop_[a-z0-9_]+ \[/ {
    gsub(",", "", $1)
    for (i = 2; i <= NF; i++) if ($i ~ /:loop_/) name = $i
    sub(/.*:/, "", name)
    if (!(name in ir)) ir[name] = $1
  }
  END {
    e = ir["loop_empty"] / n
    printf "instructions per trained execution (callgrind, empty loop subtracted, %d executions each):\n", n
    printf "  generated code, 1 feature           %6.1f\n", ir["loop_generated1"] / n - e
    printf "  generated code, 4 features          %6.1f\n", ir["loop_generated4"] / n - e
    printf "  ompadapt (Apollo ABI), 1 feature    %6.1f\n", ir["loop_ompadapt_abi1"] / n - e
    printf "  ompadapt (Apollo ABI), 4 features   %6.1f\n", ir["loop_ompadapt_abi4"] / n - e
    printf "  Apollo 2.0, 1 feature               %6.1f\n", ir["loop_apollo_abi1"] / n - e
    printf "  Apollo 2.0, 4 features              %6.1f\n", ir["loop_apollo_abi4"] / n - e
  }'
