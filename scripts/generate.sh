#!/usr/bin/env bash
# Runs the random program generator (generator/, issue 41): N programs per language (C and
# Fortran) from SEED, each built stock and with ompadapt (zero-source-change and pass-only),
# run pinned to every variant and under the real runtime, and compared with stock; every
# difference is reduced to a small reproducer. Writes OUT/generated.tsv (one row per program),
# OUT/summary.md and OUT/reproducers/.
#
#   scripts/generate.sh N SEED [OUT]        (OUT: target/generated-SEED)
#   GENERATE_ARGS='--no-reduce' scripts/generate.sh 20 7
#   GENERATE_JOBS=1 GENERATE_ARGS='--from 2500' scripts/generate.sh 5000 7   (the second half)
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
# a snapshot of the libraries: a campaign of hours must not pick up a rebuild half-way
SNAP="$OUT/lib"
mkdir -p "$SNAP"
cp target/release/libompadapt.so target/release/libompadapt_pass.so target/release/libompadapt_rt.so target/release/ompadapt-generate "$SNAP/"
git rev-parse --short HEAD >"$SNAP/commit" 2>/dev/null || true
export OMPADAPT_LIB_DIR="$SNAP"
# cases run side by side (one per core): libomp's idle threads sleep at once instead of
# spinning 200 ms against the other case's threads; no program's meaning depends on it
export KMP_BLOCKTIME="${KMP_BLOCKTIME:-0}"
# shellcheck disable=SC2086
exec "$SNAP/ompadapt-generate" --seed "$SEED" --c "$N" --fortran "$N" --out "$OUT" --jobs "${GENERATE_JOBS:-$(nproc)}" ${GENERATE_ARGS:-}
