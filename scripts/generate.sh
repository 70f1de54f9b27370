#!/usr/bin/env bash
# Runs the random program generator (generator/, issue 41): N programs per language (C and
# Fortran) from SEED, each built stock and with ompadapt (zero-source-change and pass-only),
# run pinned to every variant and under the real runtime, and compared with stock; every
# difference is reduced to a small reproducer. Writes OUT/generated.tsv (one row per program),
# OUT/summary.md and OUT/reproducers/.
#
#   scripts/generate.sh N SEED [OUT]        (OUT: target/generated-SEED)
#   GENERATE_ARGS='--no-reduce' scripts/generate.sh 20 7
#
# Exit status: 0 when no program differs from stock, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:?usage: scripts/generate.sh N SEED [OUT]}
SEED=${2:?usage: scripts/generate.sh N SEED [OUT]}
OUT=${3:-target/generated-$SEED}
# absolute: every program is built and run from a folder of its own below OUT
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
cargo build --release --workspace >&2
# shellcheck disable=SC2086
exec target/release/ompadapt-generate --seed "$SEED" --c "$N" --fortran "$N" --out "$OUT" ${GENERATE_ARGS:-}
