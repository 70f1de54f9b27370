#!/usr/bin/env bash
# The ompadapt GPU kit's runner: checks and measures ompadapt on this machine with the kit's own
# libraries (no clang or LLVM needed), within a time budget, and writes everything into one
# results folder (summary.md at its top) and a .tar.gz of it.
#
#   run.sh [--out DIR] [--steps checks,bench,sweep] [--quick] [BUDGET]
#
# BUDGET: seconds (480, 300s) or minutes (8m); default 8m. Steps, in this order:
#   device  what runs here: nvidia-smi, the devices libomptarget sees, the CPU (always)
#   checks  every variant of every program (programs.tsv) pinned with OMPADAPT_VARIANT, its
#           output compared with the program's reference output, and the runtime's report
#           read to see that the pinned variant, and only it, ran; then one run where the
#           runtime explores and chooses. Table: checks.md / checks.tsv
#   bench   `ompadapt bench` on one kernel per use-case (CPU/GPU: heat2d, GPU threads:
#           heat2d-threads, co-scheduling: xsbench-cosched), then, while the budget lasts,
#           one more per use-case and the host loops (jacobi2d); one repeat per configuration.
#           Results: bench/KERNEL/
#   sweep   thread_limit (heat2d-threads) and coschedule fractions (xsbench-cosched) over
#           growing inputs, every variant pinned in turn. Table: sweep.md / sweep.tsv
# --quick: small inputs everywhere (the host-offload twin's test). Every run has its own
# timeout and every step a share of the budget, so that a hang costs one run, never the
# budget; summary.md is rewritten after every step.
# Exit status: 0 every check passed; 1 a check failed or did not run; 3 the checks passed but
# bench or sweep failed; 2 usage.
set -uo pipefail
KIT="$(cd "$(dirname "$0")" && pwd)"
started=$(date +%s)

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
budget=480 out="" steps="checks,bench,sweep" quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift ;;
    --out=*) out="${1#--out=}" ;;
    --steps) steps="$2"; shift ;;
    --steps=*) steps="${1#--steps=}" ;;
    --quick) quick=1 ;;
    -h | --help) usage; exit 0 ;;
    *[0-9]m) budget=$((${1%m} * 60)) ;;
    *[0-9]s) budget=${1%s} ;;
    *[0-9]) budget=$1 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
deadline=$((started + budget))
RESERVE=15 # seconds kept for the summary and the archive
OUT="${out:-$PWD/ompadapt-results-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT" || exit 2
OUT="$(cd "$OUT" && pwd)"
TARGET="$(cat "$KIT/TARGET")"
: >"$OUT/log.txt"

now() { date +%s; }
left() { echo $((deadline - $(now) - RESERVE)); }
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/log.txt" >&2; }
wanted() { case ",$steps," in *",$1,"*) return 0 ;; esac; return 1; }

# Nothing of the caller's ompadapt settings leaks into the runs.
for v in $(compgen -e | grep '^OMPADAPT_'); do unset "$v"; done

# libomptarget opens libcuda.so by that name; a driver installation may have only libcuda.so.1.
libpath="$KIT/lib"
cuda_note=""
if [ "$TARGET" = nvptx64 ]; then
  found=""
  for d in ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }} /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /lib64 /usr/lib/wsl/lib; do
    [ -e "$d/libcuda.so" ] && { found="$d/libcuda.so"; break; }
  done
  [ -z "$found" ] && ldconfig -p 2>/dev/null | grep -q 'libcuda\.so ' && found="(ld.so cache)"
  if [ -z "$found" ]; then
    one="$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 .*x86-64/ { print $NF; exit }')"
    for d in ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }} /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64; do
      [ -z "$one" ] && [ -e "$d/libcuda.so.1" ] && one="$d/libcuda.so.1"
    done
    if [ -n "$one" ]; then
      mkdir -p "$OUT/.cuda" && ln -sf "$one" "$OUT/.cuda/libcuda.so"
      libpath="$libpath:$OUT/.cuda"
      cuda_note="libcuda.so -> $one (linked in $OUT/.cuda: the driver has no libcuda.so)"
    else
      cuda_note="NO libcuda.so or libcuda.so.1 found: offloading will fail"
    fi
  else
    cuda_note="libcuda.so: $found"
  fi
fi
# Only the kit's own programs run with its libraries (its libstdc++ may be older than this
# system's, which the system's tools may need).
KENV=(env "LD_LIBRARY_PATH=$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")

declare -A step_status step_secs
step_order=()
step_begin() { step_order+=("$1"); step_status[$1]="running"; step_secs[$1]=$(now); log "step $1: $2"; }
step_end() { step_status[$1]="$2"; step_secs[$1]=$(($(now) - step_secs[$1])); log "step $1: $2 (${step_secs[$1]} s)"; }

# step_end_by_table STEP FAILED TABLE: failed, partial (a row timed out or was not run) or ok.
step_end_by_table() {
  if [ "$2" = 1 ]; then
    step_end "$1" failed
  elif grep -qE $'\t(TIMEOUT|NOT RUN)\t' "$3"; then
    step_end "$1" "partial (budget)"
  else
    step_end "$1" ok
  fi
}

# run_one SECONDS DIR NAME CMD...: runs CMD in DIR with a timeout, stdout/stderr to
# DIR/NAME.out/.err; sets RC and SECS.
run_one() {
  local t="$1" dir="$2" name="$3" t0 t1
  shift 3
  t0=$(date +%s.%N)
  (cd "$dir" && timeout -k 5 "$t" "$@" >"$dir/$name.out" 2>"$dir/$name.err")
  RC=$?
  t1=$(date +%s.%N)
  SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
}

# ---------------------------------------------------------------- device
device_step() {
  step_begin device "what runs here"
  {
    echo "## machine"
    echo "kernel: $(uname -srm)"
    echo "cpus:   $(nproc) ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo))"
    echo "memory: $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "kit:    $TARGET; $cuda_note"
    echo
    echo "## nvidia-smi"
    if command -v nvidia-smi >/dev/null; then
      timeout 30 nvidia-smi 2>&1
      timeout 30 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
    else
      echo "(no nvidia-smi)"
    fi
    echo
    echo "## llvm-omp-device-info (the devices libomptarget sees)"
    "${KENV[@]}" timeout 60 "$KIT/bin/llvm-omp-device-info" 2>&1 | head -80
  } >"$OUT/device.txt" 2>&1
  step_end device ok
}

# ---------------------------------------------------------------- checks
# runs_of REPORT.json: "region<TAB>variant<TAB>executions" from the runtime's JSON report.
runs_of() {
  awk '
    function unq(s) { sub(/^[^:]*: "/, "", s); sub(/",?$/, "", s); gsub(/\\"/, "\"", s); gsub(/\\\\/, "\\", s); return s }
    /^      "region": "/ { r = unq($0) }
    /^          "variant": "/ { v = unq($0) }
    /^          "(exploring|model)_runs": / { n = $2; sub(/,/, "", n); runs[r "\t" v] += n }
    END { for (k in runs) print k "\t" runs[k] }' "$1"
}

# verdict DIR NAME REFNORM NORMALISE PIN: sets STATUS and DETAIL for the run DIR/NAME.*
verdict() {
  local dir="$1" name="$2" ref="$3" normalise="$4" pin="$5" bad item region variant
  STATUS=FAIL
  if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
    DETAIL="timed out after ${SECS} s"
    return
  fi
  bad="$(grep -m1 -E "WRONG|not one of its variants|unavailable|cannot use the runtime|no runtime library|did not run" "$dir/$name.err" "$dir/$name.out" 2>/dev/null | cut -d: -f2- | cut -c1-200)"
  if [ "$RC" != 0 ]; then
    DETAIL="exit status $RC: ${bad:-$(tail -1 "$dir/$name.err" | cut -c1-200)}"
    return
  fi
  if [ -n "$bad" ]; then
    DETAIL="$bad"
    return
  fi
  sed -E "${normalise/#-/}" "$dir/$name.out" >"$dir/$name.norm"
  if ! cmp -s "$dir/$name.norm" "$ref"; then
    diff "$ref" "$dir/$name.norm" >"$dir/$name.diff"
    DETAIL="output differs from the reference ($(grep -c '^[<>]' "$dir/$name.diff") lines; $name.diff)"
    return
  fi
  if [ -n "$pin" ]; then
    [ -s "$dir/$name.json" ] || { DETAIL="the runtime wrote no report"; return; }
    runs_of "$dir/$name.json" >"$dir/$name.runs"
    IFS=';' read -r -a items <<<"$pin"
    for item in "${items[@]}"; do
      region="${item%:*}" variant="${item##*:}"
      # the pinned variant ran, and no other
      if ! awk -F'\t' -v r="$region" -v v="$variant" "$AWK_REGION"'
          named($1, r) && $3 > 0 { if ($2 == v) mine = 1; else other = 1 }
          END { exit !(mine && !other) }' "$dir/$name.runs"; then
        DETAIL="region '$region' pinned to '$variant' ran: $(awk -F'\t' -v r="$region" "$AWK_REGION"'named($1, r) && $3 > 0 { printf "%s%s=%d", (n++ ? ", " : ""), $2, $3 }' "$dir/$name.runs")"
        DETAIL="${DETAIL%: }"
        return
      fi
    done
  fi
  STATUS=PASS
  DETAIL=""
}

# AWK_REGION: awk function named(n, r): the report's region n is the region a pin names r:
# the same name, or an instantiation of template region r (`f<float>@a.cpp:9` of `f@a.cpp:9`),
# as the runtime applies a template's pin to each instantiation.
AWK_REGION='
function named(n, r,    at, f, i, c, d) {
  if (n == r) return 1
  at = index(n, "@"); if (!at) return 0
  f = substr(n, 1, at - 1); if (substr(f, length(f)) != ">") return 0
  d = 0
  for (i = length(f) - 1; i > 0; i--) {
    c = substr(f, i, 1)
    if (c == ">") d++
    else if (c == "<") { if (!d) return substr(f, 1, i - 1) substr(n, at) == r; d-- }
  }
  return 0
}
'

# run_limit END: seconds one run may take: 60, or what is left until END.
run_limit() {
  local l=$(($1 - $(now)))
  [ "$l" -gt 60 ] && l=60
  echo "$l"
}

check_row() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$OUT/checks.tsv"; }

check_program() {
  local name="$1" args="$2" reference="$3" normalise="$4" step_end_at="$5"
  local exe="$KIT/programs/$name" dir="$OUT/checks/$name" t
  local -a argv=() regions=() nvar=()
  local -A var=()
  [ "$args" = - ] || read -r -a argv <<<"$args"
  mkdir -p "$dir"
  local k=0 line f j maxv=0
  while IFS= read -r line; do
    IFS=$'\t' read -r -a f <<<"$line"
    regions[k]="${f[0]}"
    nvar[k]=$((${#f[@]} - 1))
    for ((j = 1; j < ${#f[@]}; j++)); do var[$k,$((j - 1))]="${f[j]}"; done
    [ "${nvar[k]}" -gt "$maxv" ] && maxv=${nvar[k]}
    k=$((k + 1))
  done <"$exe.regions"
  local common=(env OMPADAPT_PERSIST=0 "OMPADAPT_DIR=$dir/store")

  # the reference output
  local refpin="" first
  for ((k = 0; k < ${#regions[@]}; k++)); do
    first=""
    for ((j = 0; j < nvar[k]; j++)); do
      case "${var[$k,$j]}" in *:*) ;; *) first="${var[$k,$j]}"; break ;; esac
    done
    [ -n "$first" ] && refpin+="${regions[k]}:$first;"
  done
  if [ "$(run_limit "$step_end_at")" -lt 5 ]; then
    check_row "$name" "-" "-" "NOT RUN" 0 "the checks' share of the budget ran out"
    return
  fi
  if [ "$reference" = stock ]; then
    run_one "$(run_limit "$step_end_at")" "$dir" ref "${KENV[@]}" OMP_TARGET_OFFLOAD=MANDATORY "$exe.stock" "${argv[@]}"
  else
    run_one "$(run_limit "$step_end_at")" "$dir" ref "${KENV[@]}" "${common[@]}" OMP_TARGET_OFFLOAD=DISABLED OMP_NUM_THREADS=1 \
      "OMPADAPT_VARIANT=$refpin" "$exe" "${argv[@]}"
  fi
  if [ "$RC" != 0 ] || grep -q WRONG "$dir/ref.err"; then
    check_row "$name" reference "$([ "$reference" = stock ] && echo "stock build" || echo "serial: ${refpin%;}")" FAIL "$SECS" \
      "the reference run failed (exit status $RC: $(tail -1 "$dir/ref.err" | cut -c1-200)); no variant checked"
    return
  fi
  sed -E "${normalise/#-/}" "$dir/ref.out" >"$dir/ref.norm"
  check_row "$name" reference "$([ "$reference" = stock ] && echo "stock build, as written" || echo "serial: ${refpin%;}")" PASS "$SECS" ""

  # every variant of every region pinned, the i-th variant of each region in run i
  local i pin prev="" skipped=""
  for ((i = 0; i < maxv; i++)); do
    pin=""
    for ((k = 0; k < ${#regions[@]}; k++)); do
      j=$((i < nvar[k] ? i : nvar[k] - 1))
      case "${var[$k,$j]}" in
        *:*) [ "$i" -lt "${nvar[k]}" ] && skipped+="${regions[k]}=${var[$k,$j]}"$'\n' ;;
        *) pin+="${regions[k]}:${var[$k,$j]};" ;;
      esac
    done
    pin="${pin%;}"
    [ -z "$pin" ] || [ "$pin" = "$prev" ] && continue
    prev="$pin"
    if [ "$(run_limit "$step_end_at")" -lt 5 ]; then
      check_row "$name" "pin$i" "$pin" "NOT RUN" 0 "the checks' share of the budget ran out"
      continue
    fi
    run_one "$(run_limit "$step_end_at")" "$dir" "pin$i" "${KENV[@]}" "${common[@]}" OMP_TARGET_OFFLOAD=MANDATORY "OMPADAPT_VARIANT=$pin" \
      "OMPADAPT_REPORT=json:$dir/pin$i.json" "$exe" "${argv[@]}"
    verdict "$dir" "pin$i" "$dir/ref.norm" "$normalise" "$pin"
    check_row "$name" "pin$i" "$pin" "$STATUS" "$SECS" "$DETAIL"
  done

  # the runtime exploring and choosing on its own
  if [ "$(run_limit "$step_end_at")" -lt 5 ]; then
    check_row "$name" explore "-" "NOT RUN" 0 "the checks' share of the budget ran out"
  else
    run_one "$(run_limit "$step_end_at")" "$dir" explore "${KENV[@]}" "${common[@]}" OMP_TARGET_OFFLOAD=MANDATORY \
      "OMPADAPT_REPORT=json:$dir/explore.json" "$exe" "${argv[@]}"
    verdict "$dir" explore "$dir/ref.norm" "$normalise" ""
    local ran=""
    # per region, the variants it ran and how often
    [ -s "$dir/explore.json" ] && ran="$(runs_of "$dir/explore.json" | sort | awk -F'\t' '$3 > 0 {
        printf "%s%s=%d", ($1 != r ? (r != "" ? "; " : "") $1 ": " : ", "), $2, $3; r = $1 }')"
    check_row "$name" explore "(the runtime chooses)" "$STATUS" "$SECS" "${DETAIL:+$DETAIL; }ran: $ran"
  fi
  # variants OMPADAPT_VARIANT cannot name (a value never contains ':')
  local s region variant
  while IFS= read -r s; do
    [ -n "$s" ] || continue
    region="${s%%=*}" variant="${s#*=}"
    if runs_of "$dir/explore.json" 2>/dev/null | awk -F'\t' -v r="$region" -v v="$variant" "$AWK_REGION"'named($1, r) && $2 == v && $3 > 0 { f = 1 } END { exit !f }'; then
      check_row "$name" "-" "$region:$variant" SKIP 0 "OMPADAPT_VARIANT cannot name a variant with ':'; it ran in the explore run, whose output matched: $STATUS"
    else
      check_row "$name" "-" "$region:$variant" SKIP 0 "OMPADAPT_VARIANT cannot name a variant with ':', and the explore run did not run it"
    fi
  done <<<"$skipped"
}

checks_md() {
  {
    echo "| program | run | pinned (region:variant) | status | s | detail |"
    echo "|---|---|---|---|---:|---|"
    # a pin of many regions as its variants and how many regions each
    tail -n +2 "$OUT/checks.tsv" | awk -F'\t' '
      function compact(p,   n, a, i, v, cnt, order, k, out) {
        n = split(p, a, ";")
        if (n <= 2) return p
        for (i = 1; i <= n; i++) { v = a[i]; sub(/.*:/, "", v); if (!(v in cnt)) order[++k] = v; cnt[v]++ }
        for (i = 1; i <= k; i++) out = out (i > 1 ? ", " : "") order[i] " (" cnt[order[i]] (cnt[order[i]] > 1 ? " regions)" : " region)")
        return out
      }
      { $3 = compact($3); gsub(/\|/, "\\|"); printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, ($4 == "FAIL" ? "**FAIL**" : $4), $5, $6 }'
  } >"$OUT/checks.md"
}

checks_step() {
  local share step_end_at
  share=$(left)
  [ "$quick" = 1 ] || share=$((share * 45 / 100))
  step_end_at=$(($(now) + share))
  step_begin checks "every variant of every program against its reference output (${share} s)"
  mkdir -p "$OUT/checks"
  printf 'program\trun\tpinned\tstatus\tseconds\tdetail\n' >"$OUT/checks.tsv"
  while IFS=$'\t' read -r name src flags args reference normalise; do
    case "$name" in '' | '#'*) continue ;; esac
    log "  $name"
    check_program "$name" "$args" "$reference" "$normalise" "$step_end_at"
  done <"$KIT/programs.tsv"
  checks_md
  local fails notrun
  fails=$(awk -F'\t' 'NR > 1 && $4 == "FAIL"' "$OUT/checks.tsv" | wc -l)
  notrun=$(awk -F'\t' 'NR > 1 && $4 == "NOT RUN"' "$OUT/checks.tsv" | wc -l)
  if [ "$fails" -gt 0 ]; then
    step_end checks "failed ($fails failing runs)"
  elif [ "$notrun" -gt 0 ]; then
    step_end checks "incomplete ($notrun runs not run: budget)"
  else
    step_end checks ok
  fi
}

# ---------------------------------------------------------------- bench
bench_step() {
  local bench_end_at=$(($(now) + $(left) * 70 / 100)) first extra k i t n
  [ "$quick" = 1 ] && bench_end_at=$(($(now) + $(left) * 75 / 100))
  first=(heat2d heat2d-threads xsbench-cosched)
  extra=(smith_waterman amgmk_relax-threads rsbench-cosched jacobi2d)
  [ "$quick" = 1 ] && extra=()
  local opts=(--repeats 1 --doubt 0 --strategies roundrobin)
  [ "$quick" = 1 ] && opts=(--smoke --repeats 1 --doubt 0 --strategies roundrobin --shuffles 2)
  step_begin bench "ompadapt bench per use-case ($((bench_end_at - $(now))) s)"
  mkdir -p "$OUT/bench"
  printf 'kernel\tstatus\tseconds\tdetail\n' >"$OUT/bench.tsv"
  local all=("${first[@]}" "${extra[@]}") failed=0
  for ((i = 0; i < ${#all[@]}; i++)); do
    k="${all[i]}"
    n=$((${#first[@]} - i))
    t=$((bench_end_at - $(now)))
    [ "$n" -gt 0 ] && t=$((t / n))
    if [ "$t" -lt 20 ]; then
      printf '%s\tNOT RUN\t0\tthe budget ran out\n' "$k" >>"$OUT/bench.tsv"
      continue
    fi
    log "  $k (up to $t s)"
    rm -rf "$OUT/bench/$k"
    mkdir -p "$OUT/bench/$k"
    run_one "$t" "$OUT/bench/$k" bench "${KENV[@]}" "$KIT/bin/ompadapt" bench --kernels "$k" --out "$OUT/bench/$k" \
      --source "$KIT/share/kernels" --cc "$KIT/prebuilt-cc" --plugin "$KIT/prebuilt-cc" --targets "$TARGET" --no-png "${opts[@]}"
    rm -rf "$OUT/bench/$k/bin"
    if [ "$RC" = 0 ]; then
      printf '%s\tok\t%s\t\n' "$k" "$SECS" >>"$OUT/bench.tsv"
    elif [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
      printf '%s\tTIMEOUT\t%s\tstopped after %s s (bench writes its results at the end)\n' "$k" "$SECS" "$t" >>"$OUT/bench.tsv"
    else
      failed=1
      printf '%s\tFAIL\t%s\texit status %s: %s\n' "$k" "$SECS" "$RC" "$(grep -v '^\s*$' "$OUT/bench/$k/bench.err" | tail -1 | cut -c1-300)" >>"$OUT/bench.tsv"
    fi
  done
  step_end_by_table bench "$failed" "$OUT/bench.tsv"
}

# ---------------------------------------------------------------- sweep
sweep_step() {
  local sweep_end_at=$(($(now) + $(left))) inputs_tl inputs_cs
  inputs_tl="64 128 256 512 1024 2048"
  inputs_cs="500 2000 8000 32000 128000"
  [ "$quick" = 1 ] && inputs_tl="32 64" inputs_cs="250 500"
  step_begin sweep "thread_limit and coschedule over inputs ($((sweep_end_at - $(now))) s)"
  local dir="$OUT/sweep" failed=0 idx n kernel knob steps variants v t
  mkdir -p "$dir"
  printf 'kernel\tknob\tinput\tvariant\tstatus\ttime_s\tsteady_s\n' >"$OUT/sweep.tsv"
  # kernel, knob, steps (as ompadapt bench runs them), variants, inputs
  local plan=("heat2d-threads|thread_limit|-|thread_limit=64 thread_limit=128 thread_limit=192 thread_limit=256|$inputs_tl"
    "xsbench-cosched|coschedule|20|coschedule=0 coschedule=0.25 coschedule=0.5 coschedule=0.75 coschedule=1|$inputs_cs")
  # inputs grow in the outer loop: a budget that runs out leaves every variant of the smaller ones
  for idx in 0 1 2 3 4 5 6 7; do
    for p in "${plan[@]}"; do
      IFS='|' read -r kernel knob steps variants inputs <<<"$p"
      read -r -a ins <<<"$inputs"
      [ "$idx" -lt "${#ins[@]}" ] || continue
      n="${ins[idx]}"
      for v in $variants; do
        t=$((sweep_end_at - $(now)))
        [ "$t" -gt 90 ] && t=90
        if [ "$t" -lt 5 ]; then
          printf '%s\t%s\t%s\t%s\tNOT RUN\t\t\n' "$kernel" "$knob" "$n" "$v" >>"$OUT/sweep.tsv"
          continue
        fi
        local name="$kernel-$n-${v//[=.]/_}"
        run_one "$t" "$dir" "$name" "${KENV[@]}" env OMPADAPT_PERSIST=0 "OMPADAPT_DIR=$dir/store" "OMPADAPT_VARIANT=$v" \
          OMP_TARGET_OFFLOAD=MANDATORY "$KIT/kernels/$kernel" "$n" $([ "$steps" = - ] || echo "$steps")
        local res status
        res="$(grep -m1 '^RESULT ' "$dir/$name.out")"
        if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
          status=TIMEOUT
        elif [ "$RC" != 0 ] || ! echo "$res" | grep -q 'check=ok'; then
          status=FAIL failed=1
        elif ! grep -qE "^DECISIONS .* $v=[1-9]" "$dir/$name.out"; then
          status="FAIL (pinned variant did not run)" failed=1
        else
          status=ok
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kernel" "$knob" "$n" "$v" "$status" \
          "$(echo "$res" | grep -oE 'time_s=[^ ]+' | cut -d= -f2)" "$(echo "$res" | grep -oE 'steady_s=[^ ]+' | cut -d= -f2)" >>"$OUT/sweep.tsv"
      done
    done
  done
  sweep_md
  step_end_by_table sweep "$failed" "$OUT/sweep.tsv"
}

# sweep.md: per kernel, steady time (ms) per input and variant; the fastest in bold.
sweep_md() {
  awk -F'\t' '
    NR == 1 { next }
    {
      k = $1; if (!(k in seenk)) { seenk[k] = 1; ks[++nk] = k }
      if (!((k, $4) in seenv)) { seenv[k, $4] = 1; vs[k, ++nv[k]] = $4 }
      if (!((k, $3) in seeni)) { seeni[k, $3] = 1; is[k, ++ni[k]] = $3 }
      cell[k, $3, $4] = ($5 == "ok" ? sprintf("%.3f", $7 * 1000) : $5)
      if ($5 == "ok" && (!((k, $3) in best) || $7 < best[k, $3])) { best[k, $3] = $7; bestv[k, $3] = $4 }
    }
    END {
      for (a = 1; a <= nk; a++) {
        k = ks[a]
        printf "### %s: steady time (ms, all steps but the first), fastest in bold\n\n| input |", k
        for (b = 1; b <= nv[k]; b++) printf " %s |", vs[k, b]
        printf " fastest | vs %s |\n|---:|", vs[k, nv[k]]
        for (b = 1; b <= nv[k]; b++) printf "---:|"
        printf "---|---:|\n"
        for (c = 1; c <= ni[k]; c++) {
          i = is[k, c]; printf "| %s |", i
          for (b = 1; b <= nv[k]; b++) { x = cell[k, i, vs[k, b]]; printf " %s |", (vs[k, b] == bestv[k, i] ? "**" x "**" : x) }
          base = cell[k, i, vs[k, nv[k]]]
          printf " %s | %s |\n", bestv[k, i], ((k, i) in best && base + 0 > 0 ? sprintf("%.2fx", base / (best[k, i] * 1000)) : "-")
        }
        printf "\n"
      }
    }' "$OUT/sweep.tsv" >"$OUT/sweep.md"
}

# ---------------------------------------------------------------- summary
write_summary() {
  local s="$OUT/summary.md" name
  {
    echo "# ompadapt GPU kit results"
    echo
    echo "- kit: $(sed -n 's/^target: *//p' "$KIT/KIT.txt"), commit $(sed -n 's/^commit: *//p' "$KIT/KIT.txt"), built $(sed -n 's/^built: *//p' "$KIT/KIT.txt")"
    if [ -f "$OUT/device.txt" ]; then
      echo "- device: $( (command -v nvidia-smi >/dev/null && timeout 20 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1) || echo "no nvidia-smi")"
      echo "- host: $(sed -n 's/^cpus: *//p' "$OUT/device.txt")"
    fi
    [ -n "$cuda_note" ] && echo "- $cuda_note"
    echo "- budget: ${budget} s, used $(($(now) - started)) s; written $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo
    echo "| step | status | seconds |"
    echo "|---|---|---:|"
    for name in "${step_order[@]}"; do
      local secs="${step_secs[$name]}"
      [ "${step_status[$name]}" = running ] && secs="$(($(now) - secs)) so far"
      echo "| $name | ${step_status[$name]} | $secs |"
    done
    if [ -f "$OUT/checks.tsv" ]; then
      echo
      echo "## Variant checks"
      echo
      awk -F'\t' 'NR > 1 { c[$4]++; n++ } END { printf "%d runs: %d PASS, %d FAIL, %d SKIP, %d NOT RUN (every run: [checks.md](checks.md))\n", n, c["PASS"], c["FAIL"], c["SKIP"], c["NOT RUN"] }' "$OUT/checks.tsv"
      echo
      echo "| program | runs | pass | fail | skip | not run |"
      echo "|---|---:|---:|---:|---:|---:|"
      awk -F'\t' 'NR > 1 { if (!($1 in n)) o[++k] = $1; n[$1]++; c[$1, $4]++ }
        END { for (i = 1; i <= k; i++) { p = o[i]; printf "| %s | %d | %d | %s | %d | %d |\n", p, n[p], c[p, "PASS"], (c[p, "FAIL"] ? "**" c[p, "FAIL"] "**" : 0), c[p, "SKIP"], c[p, "NOT RUN"] } }' "$OUT/checks.tsv"
      if awk -F'\t' 'NR > 1 && $4 == "FAIL" { f = 1 } END { exit !f }' "$OUT/checks.tsv"; then
        echo
        echo "Failures:"
        echo
        awk -F'\t' 'NR > 1 && $4 == "FAIL" { printf "- %s %s (%s): %s\n", $1, $2, $3, $6 }' "$OUT/checks.tsv"
      fi
    fi
    if [ -f "$OUT/bench.tsv" ]; then
      echo
      echo "## ompadapt bench"
      echo
      echo "| kernel | status | s | results |"
      echo "|---|---|---:|---|"
      tail -n +2 "$OUT/bench.tsv" | while IFS=$'\t' read -r k st secs detail; do
        local link="$detail"
        [ -f "$OUT/bench/$k/summary.md" ] && link="[summary](bench/$k/summary.md), [runs.csv](bench/$k/runs.csv)"
        echo "| $k | $st | $secs | $link |"
      done
      local said=""
      for k in $(tail -n +2 "$OUT/bench.tsv" | cut -f1); do
        [ -f "$OUT/bench/$k/summary.md" ] || continue
        echo
        # the machine and method paragraph once
        sed 's/^# /### /; s/^## /#### /' "$OUT/bench/$k/summary.md" | { [ -n "${said:-}" ] && grep -v '^Machine: ' || cat; }
        said=1
      done
    fi
    if [ -f "$OUT/sweep.md" ]; then
      echo
      echo "## Sweeps ([sweep.tsv](sweep.tsv))"
      echo
      cat "$OUT/sweep.md"
    fi
    echo
    echo "Files: device.txt, log.txt, checks.md/.tsv and checks/PROGRAM/ (every run's output, report, diff),"
    echo "bench.tsv and bench/KERNEL/ (ompadapt bench's CSV, summary and SVG figures), sweep.md/.tsv and sweep/."
  } >"$s.tmp" && mv "$s.tmp" "$s"
  tar -czf "$OUT.tar.gz.tmp" -C "$(dirname "$OUT")" "$(basename "$OUT")" 2>/dev/null && mv "$OUT.tar.gz.tmp" "$OUT.tar.gz"
}

finish() {
  trap - EXIT INT TERM
  for name in "${step_order[@]}"; do
    [ "${step_status[$name]}" = running ] && step_end "$name" "interrupted"
  done
  [ -f "$OUT/checks.tsv" ] && checks_md
  [ -f "$OUT/sweep.tsv" ] && sweep_md
  write_summary
  log "results in $OUT (summary.md) and $OUT.tar.gz"
}
trap finish EXIT
trap 'log "interrupted"; exit 1' INT TERM

log "ompadapt GPU kit ($TARGET) from $KIT; budget ${budget} s; results in $OUT"
device_step
write_summary
for s in checks bench sweep; do
  wanted "$s" || continue
  if [ "$(left)" -lt 10 ]; then
    step_order+=("$s")
    step_status[$s]="not run (budget)"
    step_secs[$s]=0
    continue
  fi
  "${s}_step"
  write_summary
done

rc=0
if [ -f "$OUT/checks.tsv" ]; then
  awk -F'\t' 'NR > 1 && ($4 == "FAIL" || $4 == "NOT RUN") { f = 1 } END { exit f }' "$OUT/checks.tsv" || rc=1
elif wanted checks; then
  rc=1
fi
if [ "$rc" = 0 ]; then
  for s in bench sweep; do
    [ "${step_status[$s]:-}" = failed ] && rc=3
  done
fi
exit "$rc"
