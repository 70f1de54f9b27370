#!/usr/bin/env bash
# rebuild-and-compare.sh: rebuilds a directory of unmodified OpenMP offload programs twice, with
# stock clang-19 and with ompadapt's zero-source-change mode, runs both, and compares what they
# print. Run with --help for the options.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/rebuild-and-compare.sh [OPTIONS] DIR

Builds every program of DIR twice and checks that the adaptive build prints exactly what the
stock build prints:
  stock:    clang-19 -O2 -fopenmp -fopenmp-targets=TRIPLE
  adaptive: the same + -fplugin=libompadapt.so -fplugin-arg-ompadapt-auto=KINDS
The stock build runs once, the adaptive build RUNS times, all its runs sharing one store
(OMPADAPT_DIR), so that the runtime explores the variants across runs as it would in
production. Stdout and the exit status of each adaptive run must equal the stock run's.

DIR is either
  - a Makefile suite: DIR (a copy of it) is built with
      make -B CC=clang-19 CXX=clang++-19 CFLAGS="<flags>" CXXFLAGS="<flags>"
    and every ELF executable the build wrote is a program (HeCBench style: one directory per
    program, its Makefile producing ./main; a top-level Makefile that recurses works too);
  - or plain sources: every DIR/*.c and DIR/*.cpp is a program of its own (linked with -lm).
Programs run without arguments, in the directory that holds them.

Options:
  --kinds KINDS       variant kinds for the adaptive build (default: cpu,gpu), e.g.
                      'cpu,gpu,thread_limit[64:256:64]'
  --target TRIPLE     offload target (default: x86_64-pc-linux-gnu, libomptarget's host
                      offload, no GPU needed); nvptx64 for NVIDIA GPUs (add --cflags
                      '--offload-arch=sm_90 --cuda-path=...' as your CUDA setup needs)
  --opt FLAG          optimisation flag of both builds (default: -O2)
  --cflags FLAGS      more flags for both builds
  --runs N            runs of the adaptive build (default: 4)
  --plugin PATH       libompadapt.so (default: $OMPADAPT_PLUGIN, else target/release/ of this
                      checkout, else pkg-config --variable=plugin ompadapt)
  --env VAR=VALUE     environment of the adaptive runs (repeatable), e.g.
                      --env OMPADAPT_RUNTIME=/path/libforced.so
  --ignore REGEX      stdout lines matching REGEX are left out of the comparison (repeatable;
                      by default none)
  --jobs N            parallel compilations (make -jN; default: the number of cores)
  --timeout SECONDS   limit per run (default: 120)
  --keep DIR          build in DIR and keep it (default: a temporary directory, removed)
  --only NAME         only the programs whose path (relative to DIR) contains NAME
                      (repeatable)
  -h, --help          this text

Output: one table row per program (stock status, identical adaptive runs, adaptive regions
the runtime reported, wall times), then a summary. Exit status 0 when every adaptive run of
every program printed what the stock run printed and exited alike; 1 otherwise (the first
differing lines are shown); 2 for bad usage or a failed build.

Example:
  cargo build --release
  scripts/rebuild-and-compare.sh --kinds 'cpu,gpu,thread_limit[64:256:64]' tests/auto_corpus
EOF
}

die() { echo "rebuild-and-compare: $*" >&2; exit 2; }

root="$(cd "$(dirname "$0")/.." && pwd)"
kinds="cpu,gpu"
target="x86_64-pc-linux-gnu"
opt="-O2"
extra=""
runs=4
plugin="${OMPADAPT_PLUGIN:-}"
jobs="$(nproc 2>/dev/null || echo 2)"
timeout_s=120
keep=""
envs=()
ignores=()
only=()
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    --kinds) kinds="${2:?--kinds needs a value}"; shift 2 ;;
    --target) target="${2:?--target needs a value}"; shift 2 ;;
    --opt) opt="${2:?--opt needs a value}"; shift 2 ;;
    --cflags) extra="${2?--cflags needs a value}"; shift 2 ;;
    --runs) runs="${2:?--runs needs a value}"; shift 2 ;;
    --plugin) plugin="${2:?--plugin needs a value}"; shift 2 ;;
    --env) envs+=("${2:?--env needs VAR=VALUE}"); shift 2 ;;
    --ignore) ignores+=("${2:?--ignore needs a regular expression}"); shift 2 ;;
    --jobs) jobs="${2:?--jobs needs a value}"; shift 2 ;;
    --timeout) timeout_s="${2:?--timeout needs a value}"; shift 2 ;;
    --keep) keep="${2:?--keep needs a directory}"; shift 2 ;;
    --only) only+=("${2:?--only needs a name}"); shift 2 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [ -z "$dir" ] || die "one directory only ('$dir' and '$1')"; dir="$1"; shift ;;
  esac
done
[ -n "$dir" ] || { usage >&2; exit 2; }
[ -d "$dir" ] || die "'$dir' is not a directory"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs takes a positive number"
for e in "${envs[@]}"; do [[ "$e" == *=* ]] || die "--env takes VAR=VALUE, not '$e'"; done
if [ -z "$plugin" ]; then
  if [ -f "$root/target/release/libompadapt.so" ]; then
    plugin="$root/target/release/libompadapt.so"
  elif command -v pkg-config > /dev/null && pkg-config --exists ompadapt 2> /dev/null; then
    plugin="$(pkg-config --variable=plugin ompadapt)"
  fi
fi
[ -n "$plugin" ] && [ -f "$plugin" ] || die "libompadapt.so not found: build it (cargo build --release) or give --plugin"
plugin="$(cd "$(dirname "$plugin")" && pwd)/$(basename "$plugin")"
command -v clang-19 > /dev/null || die "clang-19 is missing (scripts/bootstrap.sh installs it)"

dir="$(cd "$dir" && pwd)"
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work="$(cd "$keep" && pwd)"
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/rebuild-and-compare.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi

stock_flags="$opt -fopenmp -fopenmp-targets=$target $extra"
auto_flags="$stock_flags -fplugin=$plugin -fplugin-arg-ompadapt-auto=$kinds"

# Builds a copy of DIR with FLAGS into $work/$1; the programs' paths go to $work/$1.programs.
build() {
  local name="$1" flags="$2" out="$work/$1"
  rm -rf "$out"
  mkdir -p "$out"
  cp -a "$dir/." "$out/"
  touch "$work/$name.stamp"
  sleep 1 # executables older than the stamp are not this build's (file times have 1 s steps on some file systems)
  if [ -f "$out/Makefile" ] || [ -f "$out/makefile" ] || [ -f "$out/GNUmakefile" ]; then
    # shellcheck disable=SC2086
    if ! make -C "$out" -B -j"$jobs" CC=clang-19 CXX=clang++-19 CFLAGS="$flags" CXXFLAGS="$flags" > "$work/$name.build.log" 2>&1; then
      echo "rebuild-and-compare: the $name build failed (make -C $out CFLAGS=\"$flags\"):" >&2
      tail -n 30 "$work/$name.build.log" >&2
      exit 2
    fi
    find "$out" -type f -newer "$work/$name.stamp" ! -name '*.o' ! -name '*.so' ! -name '*.so.*' ! -name '*.a' -print |
      while read -r f; do
        [ -x "$f" ] && [ "$(head -c 4 "$f" | od -An -c | tr -d ' \n')" = '177ELF' ] && echo "${f#"$out"/}"
      done | sort > "$work/$name.programs"
  else
    : > "$work/$name.programs"
    local src cc
    local pids=()
    for src in "$out"/*.c "$out"/*.cpp; do
      [ -f "$src" ] || continue
      cc=clang-19
      [[ "$src" == *.cpp ]] && cc=clang++-19
      # shellcheck disable=SC2086
      ($cc $flags "$src" -o "${src%.*}" -lm > "${src%.*}.build.log" 2>&1 ||
        { echo "rebuild-and-compare: the $name build of $(basename "$src") failed:" >&2; tail -n 30 "${src%.*}.build.log" >&2; exit 2; }) &
      pids+=($!)
      if [ "${#pids[@]}" -ge "$jobs" ]; then wait "${pids[0]}" || exit 2; pids=("${pids[@]:1}"); fi
      basename "${src%.*}" >> "$work/$name.programs"
    done
    for p in "${pids[@]}"; do wait "$p" || exit 2; done
    sort -o "$work/$name.programs" "$work/$name.programs"
  fi
}

echo "stock:    clang-19 $stock_flags"
echo "adaptive: clang-19 $auto_flags"
build stock "$stock_flags"
build adaptive "$auto_flags"
if ! cmp -s "$work/stock.programs" "$work/adaptive.programs"; then
  echo "rebuild-and-compare: the two builds produced different programs:" >&2
  diff "$work/stock.programs" "$work/adaptive.programs" >&2 || true
  exit 1
fi
programs=()
while read -r p; do
  if [ "${#only[@]}" -gt 0 ]; then
    keep_it=0
    for o in "${only[@]}"; do [[ "$p" == *"$o"* ]] && keep_it=1; done
    [ "$keep_it" = 1 ] || continue
  fi
  programs+=("$p")
done < "$work/stock.programs"
[ "${#programs[@]}" -gt 0 ] || die "no programs found in $dir"

# Stdout of a run without the ignored lines.
filter() {
  if [ "${#ignores[@]}" -eq 0 ]; then cat; return; fi
  local args=()
  for r in "${ignores[@]}"; do args+=(-e "$r"); done
  grep -v -E "${args[@]}" || true
}

# run NAME PROGRAM TAG [ENV...]: runs one program, its stdout to $work/out/TAG.out; prints
# "<exit status> <milliseconds>".
run_one() {
  local build="$1" prog="$2" tag="$3"
  shift 3
  local pdir="$work/$build/$(dirname "$prog")" exe="./$(basename "$prog")"
  local start end status=0
  start=$(date +%s%N)
  (cd "$pdir" && env "$@" timeout "$timeout_s" "$exe") > "$work/out/$tag.raw" 2> "$work/out/$tag.err" || status=$?
  end=$(date +%s%N)
  filter < "$work/out/$tag.raw" > "$work/out/$tag.out"
  echo "$status $(((end - start) / 1000000))"
}

mkdir -p "$work/out"
failed=0
printf '%-40s %-8s %-10s %8s %10s %10s\n' program stock identical regions "stock ms" "auto ms"
for prog in "${programs[@]}"; do
  tag="$(echo "$prog" | tr '/' '_')"
  read -r s_status s_ms < <(run_one stock "$prog" "$tag.stock" OMP_TARGET_OFFLOAD=DEFAULT)
  store="$work/store/$tag"
  same=0
  best_ms=""
  regions="-"
  first_diff=""
  for k in $(seq "$runs"); do
    read -r a_status a_ms < <(run_one adaptive "$prog" "$tag.auto$k" OMPADAPT_DIR="$store" \
      OMPADAPT_REPORT="json:$work/out/$tag.auto$k.json" "${envs[@]}")
    if [ "$a_status" = "$s_status" ] && cmp -s "$work/out/$tag.stock.out" "$work/out/$tag.auto$k.out"; then
      same=$((same + 1))
    elif [ -z "$first_diff" ]; then
      first_diff="run $k: exit status $a_status (stock $s_status)"$'\n'"$(diff "$work/out/$tag.stock.out" "$work/out/$tag.auto$k.out" | head -n 12)"$'\n'"stderr: $(tail -n 5 "$work/out/$tag.auto$k.err")"
    fi
    if [ -z "$best_ms" ] || [ "$a_ms" -lt "$best_ms" ]; then best_ms="$a_ms"; fi
    if [ -f "$work/out/$tag.auto$k.json" ]; then
      regions="$(grep -c '^      "region": ' "$work/out/$tag.auto$k.json" || true)"
    fi
  done
  status_text="exit $s_status"
  [ "$s_status" = 0 ] && status_text="ok"
  printf '%-40s %-8s %-10s %8s %10s %10s\n' "$prog" "$status_text" "$same/$runs" "$regions" "$s_ms" "$best_ms"
  if [ "$s_status" != 0 ]; then
    echo "  the stock build itself fails (exit $s_status): $(tail -n 3 "$work/out/$tag.stock.err")"
    failed=$((failed + 1))
  elif [ "$same" != "$runs" ]; then
    echo "$first_diff" | sed 's/^/  /'
    failed=$((failed + 1))
  fi
done
echo
echo "${#programs[@]} programs, $runs adaptive runs each (kinds $kinds, target $target): $((${#programs[@]} - failed)) identical, $failed differing"
[ -n "$keep" ] && echo "builds, outputs and reports kept in $work"
[ "$failed" = 0 ]
