#!/usr/bin/env bash
# Extracts the public Fortran OpenMP codes of fortran-args.tsv from their mirrors (the search
# tool's `fetch` brings them to /work/.mirror) into TREE: UK-MAC CloverLeaf_OpenMP (cloverleaf/)
# and the Parallel Research Kernels' FORTRAN/ (prk/FORTRAN/). Never committed here.
#
#   benchmarks/suites/fortran-prepare.sh MIRRORS TREE
set -euo pipefail
mirrors=$1 tree=$2
mkdir -p "$tree"
git -C "$mirrors/UK-MAC+CloverLeaf_OpenMP/repo" archive --prefix=cloverleaf/ HEAD | tar -x -C "$tree"
git -C "$mirrors/ParRes+Kernels/repo" archive --prefix=prk/ HEAD FORTRAN | tar -x -C "$tree"
for r in UK-MAC+CloverLeaf_OpenMP ParRes+Kernels; do
  echo "$r $(git -C "$mirrors/$r/repo" rev-parse --short HEAD)"
done
