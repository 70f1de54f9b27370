#!/usr/bin/env bash
# The OpenMP Validation & Verification suite (github.com/OpenMP-Validation-and-Verification/
# OpenMP_VV), a checkout you fetched: its C/C++ target tests of OpenMP 4.5 and 5.0, each a
# self-checking program, built stock and in zero-source-change mode and compared under every
# pin and the real runtime (single_file_suite.py). The tests print where their kernels ran
# ("Test passed on the device."), which the cpu variant changes by design: that phrase is
# normalised before comparing.
#
# usage: benchmarks/suites/openmp_vv.sh CHECKOUT [OUT] [more single_file_suite.py options]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="${1:?usage: openmp_vv.sh CHECKOUT [OUT] [options]}"
out="${2:-$here/openmp_vv-out}"
shift $(($# >= 2 ? 2 : 1))
[ -f "$src/ompvv/ompvv.h" ] || { echo "openmp_vv.sh: $src is not an OpenMP_VV checkout (no ompvv/ompvv.h)" >&2; exit 2; }
flat="$out/sources"
rm -rf "$flat"
mkdir -p "$flat"
# one folder of programs, named by version: tests/4.5/target/x.c -> v45_x.c
find "$src/tests/4.5" "$src/tests/5.0" \( -name '*.c' -o -name '*.cpp' \) | grep -i target | while read -r f; do
  v="$(echo "${f#"$src"/tests/}" | cut -d/ -f1 | tr -d .)"
  cp "$f" "$flat/v${v}_$(basename "$f")"
done
rev="$(git -C "$src" rev-parse --short HEAD 2> /dev/null || echo unknown)"
exec python3 "$here/single_file_suite.py" --out "$out" --cflags="-I$src/ompvv" \
  --sub 'on the (device|host)=>on the <device or host>' \
  --title "OpenMP Validation & Verification, 4.5 and 5.0 target tests (OpenMP_VV $rev)" "$@" "$flat"/*
