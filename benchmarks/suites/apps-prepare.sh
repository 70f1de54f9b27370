#!/usr/bin/env bash
# Prepares the tree of proxy-apps-args.tsv (CPU OpenMP proxy applications and mini-apps) and
# offload-apps-args.tsv (OpenMP offload codes), fetched as bare mirrors, never committed:
# extracts each one's HEAD into TREE/<owner>+<name>/, writes the build-information header
# CoMD's Makefile would generate and a small TeaLeaf deck.
#
#   benchmarks/suites/apps-prepare.sh MIRRORS TREE
#     MIRRORS holds <owner>+<name>/repo bare git directories (the search tool's fetch puts them in
#     /work/.mirror): LLNL+LULESH ANL-CESAR+XSBench ANL-CESAR+RSBench Mantevo+HPCCG
#     ECP-copa+CoMD Mantevo+miniFE UoB-HPC+BabelStream UoB-HPC+TeaLeaf
set -euo pipefail
mirrors=$1
tree=$2
mkdir -p "$tree"
for r in LLNL+LULESH ANL-CESAR+XSBench ANL-CESAR+RSBench Mantevo+HPCCG ECP-copa+CoMD Mantevo+miniFE \
         UoB-HPC+BabelStream UoB-HPC+TeaLeaf; do
  mkdir -p "$tree/$r"
  git -C "$mirrors/$r/repo" archive HEAD | tar -x -C "$tree/$r"
  echo "$r $(git -C "$mirrors/$r/repo" rev-parse --short HEAD)"
done
# CoMD: src-openmp/generate_info_header writes this from the build machine's uname and compiler;
# its strings are only printed.
cat > "$tree/ECP-copa+CoMD/src-openmp/CoMD_info.h" <<'H'
#ifndef CoMD_info_hpp
#define CoMD_info_hpp
#define CoMD_VARIANT "openmp"
#define CoMD_HOSTNAME "host"
#define CoMD_KERNEL_NAME "'Linux'"
#define CoMD_KERNEL_RELEASE "'-'"
#define CoMD_PROCESSOR "'-'"
#define CoMD_COMPILER "'clang-19'"
#define CoMD_COMPILER_VERSION "'19'"
#define CoMD_CFLAGS "'-'"
#define CoMD_LDFLAGS "'-'"
#endif
H
# TeaLeaf: its default deck (512x512 cells, 20 steps) at 64x64 cells and 5 steps
sed 's/x_cells=512/x_cells=64/; s/y_cells=512/y_cells=64/; s/end_step=20/end_step=5/' \
  "$tree/UoB-HPC+TeaLeaf/tea.in" > "$tree/UoB-HPC+TeaLeaf/tea-small.in"
