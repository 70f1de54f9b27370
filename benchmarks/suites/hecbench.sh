#!/usr/bin/env bash
# hecbench.sh: rebuilds HeCBench's *-omp programs with stock clang-19 and with ompadapt's
# zero-source-change mode, runs them under pinned variants and under the real runtime, and
# compares what they print with the stock build. Run with --help for the options.
#
# The suite-specific parts are the functions suite_*; the build/run/compare steps
# (build_program, run_binary, compare_run, mode_*) only need a program directory, its sources,
# flags, libraries and run arguments, so another Makefile suite can reuse them.
set -uo pipefail

SELF="$(readlink -f "${BASH_SOURCE[0]}")"
HERE="$(dirname "$SELF")"

usage() {
  cat <<'EOF'
Usage: benchmarks/suites/hecbench.sh [OPTIONS]

Builds each HeCBench *-omp program listed in hecbench-args.tsv twice with clang++-19
(stock: -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu; adaptive: the same plus
-fplugin=PLUGIN -fplugin-arg-ompadapt-auto=cpu,gpu), taking sources, include directories,
defines, the language standard and libraries from the program's Makefile (evaluated by GNU
make with the compiler replaced; nothing is built by make), then runs, inside the program's
directory and each with a time limit:
  stock    twice (outputs that differ between the two: "stock-nondeterministic")
  a        adaptive, every region pinned to cpu       (OMPADAPT_VARIANT=cpu)
  b        adaptive, every region pinned to gpu       (OMPADAPT_VARIANT=gpu)
  c        for programs with at most 20 regions: each region cpu in turn, the others gpu
           (OMPADAPT_VARIANT='gpu;REGION:cpu')
  d        the real runtime three times on one store (no OMPADAPT_VARIANT)
Each adaptive run must print what the first stock run printed (stdout, after removing the
lines the filter table says vary: timings) and exit with the same status. Each mode starts
from a fresh OMPADAPT_DIR; every adaptive run writes a JSON report (OMPADAPT_REPORT=json:...)
from which the regions and the regions whose cpu variant the runtime found unavailable are
read (also from the stderr line "variant 'cpu' is unavailable").

Options:
  --hecbench DIR    HeCBench checkout or extracted tree (holding src/); binaries and outputs
                    are written into its program directories (ompadapt-stock, ompadapt-adaptive)
  --mirror GITDIR   a bare git repository of HeCBench instead: src/ of --rev is extracted into
                    OUT/tree (blobs the mirror lacks are skipped)
  --rev REV         revision for --mirror (default: HEAD)
  --plugin PATH     libompadapt.so (default: $OMPADAPT_PLUGIN, else target/release/ of the
                    ompadapt checkout holding this script, else
                    /work/main/target/release/libompadapt.so); libompadapt_rt.so beside it is
                    loaded by the programs
  --ompadapt DIR    ompadapt checkout whose commit the results name (default: the git
                    checkout holding the plugin, else the one holding this script)
  --kinds KINDS     variant kinds of the adaptive build (default: cpu,gpu)
  --mode auto|pass  the adaptive build: -fplugin-arg-ompadapt-auto (default), or pass-only mode
                    (-fpass-plugin=libompadapt_pass.so beside the plugin, OMPADAPT_AUTO=KINDS)
  --only NAME       only this program (e.g. adam-omp or adam; repeatable)
  --jobs N          programs processed in parallel (default: 2)
  --modes LIST      comma-separated subset of a,b,c,d (default: a,b,c,d)
  --out DIR         results directory (default: ./hecbench-out)
  --timeout SEC     limit per run (default: 60)
  --max-c-regions N mode c only for programs with at most N regions (default: 20)
  --args FILE       argument table (default: hecbench-args.tsv beside this script)
  --filters FILE    filter table (default: hecbench-filters.tsv beside this script)
  --excluded FILE   exclusion table (default: hecbench-excluded.tsv beside this script)
  --survey          every *-omp program of the tree that the exclusion table does not list,
                    with the arguments of its Makefile's run target (overridden by the
                    argument table where it lists the program); for building the tables
  --stock-only      build and run the stock version only (with --survey: finding inputs)
  --md FILE         markdown table (default: OUT/hecbench.md)
  --resume          keep the results already in OUT: run only the programs that have none
                    (or those --only names, again) and report on the whole table
  --report-only     run nothing: write results.tsv and the markdown from what OUT holds
  -h, --help        this text

Tables (tab-separated, '#' starts a comment, '-' is an empty field):
  hecbench-args.tsv      program, args (shell words; relative paths are relative to the
                         program directory), filter (an extended regex: stdout lines that
                         match are also left out), cflags (more flags for both builds), note
  hecbench-filters.tsv   program ('*' = the default for all), regex; a program's rows add to
                         the default, except a row whose regex starts with '!only:' which
                         replaces it
  hecbench-excluded.tsv  program, reason

Output (OUT/): results.tsv (one row per program), hecbench.md, programs/NAME/ (build logs,
stdout/stderr/status and JSON report of every run). Exit status: 0 when every built program
built with the plugin and printed the stock output in every mode, 1 otherwise, 2 for bad usage.
EOF
}

die() { echo "hecbench.sh: $*" >&2; exit 2; }

# ----------------------------------------------------------------------------------------------
# configuration (exported: the per-program workers are separate processes)

# ----------------------------------------------------------------------------------------------
# small helpers

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# table_rows FILE: the rows of a tab-separated table without comments and blank lines
table_rows() { [ -f "$1" ] && grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$1"; }

# table_field FILE KEY N: field N of the (first) row whose first field is KEY; '-' -> empty
table_field() {
  table_rows "$1" | awk -F'\t' -v k="$2" -v n="$3" \
    '$1 == k { v = $n; if (v == "-") v = ""; print v; exit }'
}

# short TEXT [N]: one line, at most N (160) characters (not bytes), tabs and pipes made
# harmless for the tables
short() {
  printf '%s' "$1" | python3 -c 'import sys
t = sys.stdin.buffer.read().decode("utf-8", "replace")
t = t.replace("\t", " ").replace("\n", " ").replace("|", "/")
sys.stdout.write(t[:int(sys.argv[1])])' "${2:-160}"
}

# ----------------------------------------------------------------------------------------------
# suite-specific part: HeCBench

# suite_programs: program names, one a line (directory names under src/)
suite_programs() {
  (cd "$HB_TREE/src" && ls -d -- *-omp 2>/dev/null)
}

# suite_program_dir NAME
suite_program_dir() { printf '%s/src/%s' "$HB_TREE" "$1"; }

# suite_build_info NAME: sets MF_PROGRAM MF_SOURCES MF_FLAGS MF_LIBS MF_RUN MF_RUNS MF_ERROR
suite_build_info() {
  local dir info
  dir="$(suite_program_dir "$1")"
  MF_PROGRAM="" MF_SOURCES=() MF_FLAGS=() MF_LIBS=() MF_RUN=() MF_RUNS=0 MF_ERROR=""
  if [ ! -f "$dir/Makefile" ]; then
    MF_ERROR="no Makefile"
    return 1
  fi
  info="$(python3 "$HERE/makefile-info.py" "$dir" 2>&1)" || {
    MF_ERROR="makefile-info failed: $(short "$info")"
    return 1
  }
  eval "$info"
}

# suite_commit: the suite's revision, for the report
suite_commit() {
  if [ -n "$HB_MIRROR" ]; then
    git -C "$HB_MIRROR" rev-parse "$HB_REV" 2>/dev/null
  elif git -C "$HB_TREE" rev-parse HEAD >/dev/null 2>&1; then
    git -C "$HB_TREE" rev-parse HEAD
  elif [ -f "$HB_TREE/.hecbench-commit" ]; then
    cat "$HB_TREE/.hecbench-commit"
  else
    echo "unknown"
  fi
}

# suite_prepare: makes HB_TREE usable (extracts it from the mirror)
suite_prepare() {
  if [ -n "$HB_MIRROR" ]; then
    local rev
    rev="$(git -C "$HB_MIRROR" rev-parse "$HB_REV")" || die "no revision $HB_REV in $HB_MIRROR"
    HB_TREE="$HB_OUT/tree"
    if [ "$(cat "$HB_TREE/.hecbench-commit" 2>/dev/null)" != "$rev" ]; then
      echo "extracting src/ of $rev from $HB_MIRROR into $HB_TREE ..." >&2
      rm -rf "$HB_TREE"
      mkdir -p "$HB_TREE"
      python3 "$HERE/git-extract.py" "$HB_MIRROR" "$rev" "$HB_TREE" src \
        2>"$HB_OUT/extract.log" || die "extraction failed, see $HB_OUT/extract.log"
      echo "$rev" >"$HB_TREE/.hecbench-commit"
    fi
  fi
  [ -n "$HB_TREE" ] || die "give --hecbench DIR or --mirror GITDIR"
  [ -d "$HB_TREE/src" ] || die "$HB_TREE has no src/ directory"
  HB_TREE="$(cd "$HB_TREE" && pwd)"
}

# ----------------------------------------------------------------------------------------------
# generic part: build, run, compare

CXX="${CXX_OMPADAPT:-clang++-19}"
OFFLOAD_FLAGS=(-O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)

# build_program DIR KIND OUTPUT LOG: KIND stock|adaptive; uses B_SOURCES B_FLAGS B_LIBS;
# sets BUILD_SECONDS; returns the compiler's status
build_program() {
  local dir="$1" kind="$2" output="$3" log="$4" t0 t1 rc
  local cmd=("$CXX" "${OFFLOAD_FLAGS[@]}")
  local has_std=0 f
  for f in "${B_FLAGS[@]}"; do case "$f" in -std=*) has_std=1 ;; esac; done
  [ $has_std = 1 ] || cmd+=(-std=c++17)
  cmd+=("${B_FLAGS[@]}")
  if [ "$kind" = adaptive ] && [ "$HB_MODE" = pass ]; then
    # pass-only mode: the pass alone, its kinds from OMPADAPT_AUTO (docs/pass-only.md)
    cmd=(env "OMPADAPT_AUTO=$HB_KINDS" "${cmd[@]}" "-fpass-plugin=$(dirname "$HB_PLUGIN")/libompadapt_pass.so" -gline-tables-only -gdwarf-4)
  elif [ "$kind" = adaptive ]; then
    cmd+=("-fplugin=$HB_PLUGIN" "-fplugin-arg-ompadapt-auto=$HB_KINDS")
  fi
  cmd+=("${B_SOURCES[@]}" -o "$output" "${B_LIBS[@]}" -lm)
  rm -f "$dir/$output"
  {
    printf '$ cd %q &&' "$dir"
    printf ' %q' "${cmd[@]}"
    printf '\n'
  } >"$log"
  t0=$(now)
  (cd "$dir" && "${cmd[@]}") >>"$log" 2>&1
  rc=$?
  t1=$(now)
  BUILD_SECONDS=$(elapsed "$t0" "$t1")
  return $rc
}

# first_error LOG: the first error line of a compiler log (else its last line)
first_error() {
  local line
  line="$(grep -m1 -E 'error:|fatal|Error|Segmentation|Aborted|PLEASE' "$1")" ||
    line="$(tail -n1 "$1")"
  short "$line"
}

# run_binary DIR BINARY BASE [VAR=VALUE ...]: runs DIR/BINARY with R_ARGS in DIR under the
# time limit; BASE.out, BASE.err, BASE.rc, BASE.time
run_binary() {
  local dir="$1" bin="$2" base="$3" t0 t1 rc
  shift 3
  t0=$(now)
  # argv[0] is ./main for both builds: programs that print their own name print the same
  (cd "$dir" && env "$@" timeout -k 5 "$HB_TIMEOUT" bash -c 'b=$1; shift; exec -a ./main "./$b" "$@"' _ "$bin" "${R_ARGS[@]}") \
    >"$base.out" 2>"$base.err" </dev/null
  rc=$?
  t1=$(now)
  echo "$rc" >"$base.rc"
  elapsed "$t0" "$t1" >"$base.time"
  return 0
}

# filter_output FILE: stdout without the lines the program's filter removes, the binary's name
# (programs that print argv[0]) the same for both builds
filter_output() {
  if [ -n "$F_REGEX" ]; then
    grep -a -v -E -e "$F_REGEX" "$1"
  else
    cat "$1"
  fi | sed -e 's/ompadapt-adaptive/ompadapt-stock/g'
  return 0
}

# compare_run REF_BASE BASE: 0 when BASE printed what REF_BASE printed (after the filter) and
# exited alike; else 1 and DIFF_LINE says where
compare_run() {
  local ref="$1" got="$2" a b rca rcb n la lb
  rca="$(cat "$ref.rc")" rcb="$(cat "$got.rc")"
  filter_output "$ref.out" >"$got.ref.filtered"
  filter_output "$got.out" >"$got.filtered"
  DIFF_LINE=""
  if ! cmp -s "$got.ref.filtered" "$got.filtered"; then
    n="$(cmp "$got.ref.filtered" "$got.filtered" 2>&1 | sed -n 's/.*line \([0-9]*\).*/\1/p')"
    if [ -z "$n" ]; then  # one is a prefix of the other
      a=$(wc -l <"$got.ref.filtered") b=$(wc -l <"$got.filtered")
      n=$(( (a < b ? a : b) + 1 ))
    fi
    la="$(sed -n "${n}p" "$got.ref.filtered")" lb="$(sed -n "${n}p" "$got.filtered")"
    [ -n "$la" ] || la="<end>"
    [ -n "$lb" ] || lb="<end>"
    DIFF_LINE="line $n: stock «$(short "$la" 70)» adaptive «$(short "$lb" 70)»"
  fi
  if [ "$rca" != "$rcb" ]; then
    local what="exit $rcb (stock $rca)"
    [ "$rcb" = 124 ] || [ "$rcb" = 137 ] && what="timeout after ${HB_TIMEOUT}s (stock exit $rca)"
    DIFF_LINE="$what${DIFF_LINE:+; $DIFF_LINE}"
  fi
  rm -f "$got.ref.filtered"
  [ -z "$DIFF_LINE" ]
}

# report_regions JSON...: region names of the reports, one a line
report_regions() {
  python3 - "$@" <<'EOF'
import json, sys
names = []
for f in sys.argv[1:]:
    try:
        doc = json.load(open(f))
    except Exception:
        continue
    for r in doc.get("regions", []):
        n = r.get("region")
        if n and n.strip() and n not in names:
            names.append(n)
if names:
    print("\n".join(names))
EOF
}

# unavailable_regions BASE...: regions whose cpu variant a run reported unavailable (JSON
# report "unavailable" entries and the stderr line), one a line
unavailable_regions() {
  local b
  {
    python3 - "$@" <<'EOF'
import json, sys
for b in sys.argv[1:]:
    try:
        doc = json.load(open(b + ".json"))
    except Exception:
        continue
    for r in doc.get("regions", []):
        for u in r.get("unavailable") or []:
            if u.get("variant") == "cpu":
                print(r.get("region"))
EOF
    for b in "$@"; do
      sed -n "s/.*region '\([^']*\)': variant 'cpu' is unavailable.*/\1/p" "$b.err" 2>/dev/null
    done
  } | sort -u
}

# adaptive_run BASE STORE [VAR=VALUE ...]: one adaptive run with a JSON report
adaptive_run() {
  local base="$1" store="$2"
  shift 2
  rm -f "$base.json"
  run_binary "$P_DIR" ompadapt-adaptive "$base" "OMPADAPT_DIR=$store" \
    "OMPADAPT_REPORT=json:$base.json" "$@"
}

# pin_check BASE SPEC: checks that a run with OMPADAPT_VARIANT=SPEC ran, in every region its
# report lists, only the variant SPEC gives it (or the replacement of a variant the runtime
# found unavailable); prints nothing when so, else what went wrong
pin_check() {
  python3 - "$1" "$2" <<'EOF'
import json, re, sys
base, spec = sys.argv[1], sys.argv[2]
default, per = None, {}
for item in [x for x in spec.split(";") if x.strip()]:
    if re.search(r".:(cpu|gpu)$", item):
        region, v = item.rsplit(":", 1)
        per[region] = v
    else:
        default = item
try:
    err = open(base + ".err", errors="replace").read()
except OSError:
    err = ""
m = re.search(r"OMPADAPT_VARIANT names '[^']*', which is not one of its variants", err)
if m:
    print("runtime ignored the pin: " + m.group(0))
    sys.exit(0)
try:
    doc = json.load(open(base + ".json"))
except Exception:
    sys.exit(0)  # no report: no region ran (the region count says so), or the run died
bad = []
for r in doc.get("regions", []):
    name = r.get("region")
    want = per.get(name, default)
    if want is None:
        continue
    unav = r.get("unavailable") or []
    ran = {t.get("variant") for t in r.get("timings", [])
           if (t.get("exploring_runs") or 0) + (t.get("model_runs") or 0) > 0}
    allowed = {want} | {u.get("replacement") for u in unav if u.get("variant") == want}
    if ran - allowed:
        bad.append(f"{name} ran {'+'.join(sorted(ran))} (pinned {want})")
if bad:
    print("pin not applied: " + "; ".join(bad)[:300])
EOF
}

# mode_result NAME OK TOTAL FIRSTDIFF: records one mode's result
declare -A MODE_RES MODE_DIFF
mode_result() {
  if [ "$3" = 0 ]; then
    MODE_RES[$1]="-"
  elif [ "$2" = "$3" ]; then
    MODE_RES[$1]="yes"
  elif [ "$3" = 1 ]; then
    MODE_RES[$1]="NO"
  else
    MODE_RES[$1]="NO $2/$3"
  fi
  [ -z "$4" ] || MODE_DIFF[$1]="$4"
}

has_mode() { case ",$HB_MODES," in *",$1,"*) return 0 ;; esac; return 1; }

# process_program NAME: builds, runs and compares one program; writes OUT/programs/NAME/result.tsv
process_program() {
  local name="$1" pdir w args_s filter_s cflags_s note="" f
  pdir="$(suite_program_dir "$name")"
  w="$HB_OUT/programs/$name"
  rm -rf "$w"
  mkdir -p "$w"
  P_DIR="$pdir"
  local built_stock="no" built_adaptive="-" plugin_error="" stock_error="" t_stock="" t_adapt=""
  local ratio="-" nregions="-" cpu_avail="-" stock_nondet="no" stock_time="-" stock_rc="-"
  MODE_RES=([a]="-" [b]="-" [c]="-" [d]="-")
  MODE_DIFF=()

  write_result() {
    local m diffs=""
    for m in a b c d; do
      [ -n "${MODE_DIFF[$m]:-}" ] && diffs+="${diffs:+ ;; }$m: ${MODE_DIFF[$m]}"
    done
    printf '%s\t' "$name" "$built_stock" "$built_adaptive" "$nregions" "$cpu_avail" \
      "${MODE_RES[a]}" "${MODE_RES[b]}" "${MODE_RES[c]}" "${MODE_RES[d]}" "$ratio" \
      "$t_stock" "$t_adapt" "$stock_rc" "$stock_time" "$stock_nondet" \
      "$(short "$plugin_error")" "$(short "$stock_error")" "$(short "$diffs" 1000)" >"$w/result.tsv"
    printf '%s\n' "$(short "$note")" >>"$w/result.tsv"
  }

  if ! suite_build_info "$name"; then
    stock_error="$MF_ERROR"
    write_result
    return 0
  fi
  [ -z "$MF_ERROR" ] || note="makefile: $MF_ERROR"
  B_SOURCES=("${MF_SOURCES[@]}")
  B_FLAGS=("${MF_FLAGS[@]}")
  B_LIBS=("${MF_LIBS[@]}")
  cflags_s="$(table_field "$HB_ARGS" "$name" 4)"
  if [ -n "$cflags_s" ]; then
    eval "B_FLAGS+=($cflags_s)"
  fi
  if table_rows "$HB_ARGS" | awk -F'\t' -v k="$name" '$1 == k { f = 1 } END { exit !f }'; then
    args_s="$(table_field "$HB_ARGS" "$name" 2)"
    eval "R_ARGS=($args_s)"
  else
    R_ARGS=("${MF_RUN[@]}")
  fi
  if [ ${#R_ARGS[@]} -gt 0 ]; then printf '%q ' "${R_ARGS[@]}"; fi >"$w/args"
  # the program's filter: the default, or '!only:' rows, plus the program's own rows and the
  # args table's filter column
  local default only=() extra=()
  default="$(table_rows "$HB_FILTERS" | awk -F'\t' '$1 == "*" { print $2; exit }')"
  while IFS= read -r f; do
    case "$f" in
      '!only:'*) only+=("${f#!only:}") ;;
      ?*) extra+=("$f") ;;
    esac
  done < <(table_rows "$HB_FILTERS" | awk -F'\t' -v k="$name" '$1 == k { print $2 }')
  f="$(table_field "$HB_ARGS" "$name" 3)"
  [ -z "$f" ] || extra+=("$f")
  F_REGEX=""
  if [ ${#only[@]} -gt 0 ]; then
    for f in "${only[@]}"; do F_REGEX+="${F_REGEX:+|}($f)"; done
  elif [ -n "$default" ]; then
    F_REGEX="($default)"
  fi
  for f in "${extra[@]}"; do F_REGEX+="${F_REGEX:+|}($f)"; done
  printf '%s\n' "$F_REGEX" >"$w/filter"
  local tnote
  tnote="$(table_field "$HB_ARGS" "$name" 5)"
  [ -z "$tnote" ] || note="${note:+$note; }$tnote"

  # builds
  if build_program "$pdir" stock ompadapt-stock "$w/build-stock.log"; then
    built_stock="yes"
    t_stock="$BUILD_SECONDS"
  else
    stock_error="$(first_error "$w/build-stock.log")"
    write_result
    return 0
  fi
  if [ "$HB_STOCK_ONLY" = 0 ]; then
    if build_program "$pdir" adaptive ompadapt-adaptive "$w/build-adaptive.log"; then
      built_adaptive="yes"
      t_adapt="$BUILD_SECONDS"
      ratio="$(awk -v a="$t_adapt" -v s="$t_stock" 'BEGIN { if (s > 0) printf "%.2f", a / s; else print "-" }')"
    else
      built_adaptive="NO"
      t_adapt="$BUILD_SECONDS"
      plugin_error="$(first_error "$w/build-adaptive.log")"
    fi
  fi

  # stock runs
  run_binary "$pdir" ompadapt-stock "$w/stock1"
  stock_rc="$(cat "$w/stock1.rc")"
  stock_time="$(cat "$w/stock1.time")"
  if [ "$stock_rc" = 124 ] || [ "$stock_rc" = 137 ]; then
    note="${note:+$note; }stock run timed out after ${HB_TIMEOUT}s"
    write_result
    return 0
  fi
  [ "$stock_rc" = 0 ] || note="${note:+$note; }stock exits $stock_rc"
  if [ "$HB_STOCK_ONLY" = 1 ]; then
    write_result
    return 0
  fi
  run_binary "$pdir" ompadapt-stock "$w/stock2"
  if ! compare_run "$w/stock1" "$w/stock2"; then
    stock_nondet="yes"
    note="${note:+$note; }stock runs differ: ${DIFF_LINE/adaptive «/2nd run «}"
  fi
  if [ "$built_adaptive" != yes ]; then
    write_result
    return 0
  fi

  # adaptive runs
  local bases=() regions=() ok total first r i pin pins
  if has_mode a; then
    adaptive_run "$w/a" "$w/store-a" OMPADAPT_VARIANT=cpu
    bases+=("$w/a")
    if compare_run "$w/stock1" "$w/a"; then mode_result a 1 1 ""; else mode_result a 0 1 "$DIFF_LINE"; fi
    pin="$(pin_check "$w/a" cpu)"
    [ -z "$pin" ] || { MODE_RES[a]="PIN? ${MODE_RES[a]}"; MODE_DIFF[a]="${MODE_DIFF[a]:+${MODE_DIFF[a]}; }$pin"; }
  fi
  if has_mode b; then
    adaptive_run "$w/b" "$w/store-b" OMPADAPT_VARIANT=gpu
    bases+=("$w/b")
    if compare_run "$w/stock1" "$w/b"; then mode_result b 1 1 ""; else mode_result b 0 1 "$DIFF_LINE"; fi
    pin="$(pin_check "$w/b" gpu)"
    [ -z "$pin" ] || { MODE_RES[b]="PIN? ${MODE_RES[b]}"; MODE_DIFF[b]="${MODE_DIFF[b]:+${MODE_DIFF[b]}; }$pin"; }
  fi
  if [ ${#bases[@]} = 0 ]; then  # the region names come from a report
    adaptive_run "$w/probe" "$w/store-probe" OMPADAPT_VARIANT=gpu
    bases+=("$w/probe")
  fi
  mapfile -t regions < <(report_regions "${bases[@]/%/.json}")
  if has_mode c; then
    if [ ${#regions[@]} -gt "$HB_MAXC" ]; then
      MODE_RES[c]="skip (${#regions[@]} regions)"
    else
      ok=0 total=0 first="" pins=""
      i=0
      for r in "${regions[@]}"; do
        i=$((i + 1))
        adaptive_run "$w/c$i" "$w/store-c$i" "OMPADAPT_VARIANT=gpu;$r:cpu"
        echo "$r" >"$w/c$i.region"
        bases+=("$w/c$i")
        total=$((total + 1))
        if compare_run "$w/stock1" "$w/c$i"; then
          ok=$((ok + 1))
        elif [ -z "$first" ]; then
          first="$r cpu: $DIFF_LINE"
        fi
        pin="$(pin_check "$w/c$i" "gpu;$r:cpu")"
        [ -z "$pin" ] || [ -n "$pins" ] || pins="$r: $pin"
      done
      mode_result c "$ok" "$total" "$first"
      if [ -n "$pins" ]; then
        MODE_RES[c]="PIN? ${MODE_RES[c]}"
        MODE_DIFF[c]="${MODE_DIFF[c]:+${MODE_DIFF[c]}; }$pins"
      fi
    fi
  fi
  if has_mode d; then
    ok=0 total=0 first=""
    for i in 1 2 3; do
      adaptive_run "$w/d$i" "$w/store-d"
      bases+=("$w/d$i")
      total=$((total + 1))
      if compare_run "$w/stock1" "$w/d$i"; then
        ok=$((ok + 1))
      elif [ -z "$first" ]; then
        first="run $i: $DIFF_LINE"
      fi
    done
    mode_result d "$ok" "$total" "$first"
  fi
  # a difference counts only against a stock build that is deterministic: two equal stock runs
  # can be luck (metropolis-omp agreed twice, then gave four outputs in four runs), so a
  # program whose adaptive output differs gets three more stock runs first
  if [ "$stock_nondet" = no ] && [[ " ${MODE_RES[*]} " == *NO* ]]; then
    for i in 3 4 5; do
      run_binary "$pdir" ompadapt-stock "$w/stock$i"
      if ! compare_run "$w/stock1" "$w/stock$i"; then
        stock_nondet="yes"
        note="${note:+$note; }stock runs differ (run $i of 5): ${DIFF_LINE/adaptive «/run $i «}"
        break
      fi
    done
  fi
  # the runtime could not be used (the generated code then runs the first variant)
  if grep -q -h "cannot use the runtime library" "${bases[@]/%/.err}" 2>/dev/null; then
    note="${note:+$note; }RUNTIME NOT LOADED: $(grep -m1 -h -o "cannot use the runtime library[^;]*" "${bases[@]/%/.err}" | head -n1)"
  fi
  # regions seen by any run; those whose cpu variant some run found unavailable
  mapfile -t regions < <(report_regions "${bases[@]/%/.json}")
  nregions=${#regions[@]}
  local unavailable
  unavailable="$(unavailable_regions "${bases[@]}" | grep -c .)"
  cpu_avail=$((nregions - unavailable))
  printf '%s\n' "${regions[@]}" >"$w/regions"
  unavailable_regions "${bases[@]}" >"$w/cpu-unavailable"
  write_result
  # the binaries stay (rerunning by hand); the stores go
  rm -rf "$w"/store-*
  return 0
}

# plugin_sums: short checksums and times of the plugin and the runtime beside it (a rebuild
# during a run shows as a difference between start and end)
plugin_sums() {
  local f out=""
  [ -n "$HB_PLUGIN" ] || return 0
  for f in "$HB_PLUGIN" "$(dirname "$HB_PLUGIN")/libompadapt_rt.so"; do
    [ -f "$f" ] || continue
    out+="${out:+, }$(basename "$f") $(sha256sum "$f" | cut -c1-12) ($(date -r "$f" '+%H:%M:%S'))"
  done
  printf '%s' "$out"
}

# ----------------------------------------------------------------------------------------------
# the markdown summary

RESULT_HEADER="program	built_stock	built_adaptive	regions	cpu_available	a	b	c	d	compile_ratio	compile_stock_s	compile_adaptive_s	stock_exit	stock_run_s	stock_nondeterministic	plugin_error	stock_error	differences	notes"

write_markdown() {
  local results="$1" md="$2"
  python3 - "$results" "$md" <<'EOF'
import csv, os, sys
results, md = sys.argv[1], sys.argv[2]
env = os.environ
rows = list(csv.DictReader(open(results, encoding="utf-8", errors="replace"), delimiter="\t", quoting=csv.QUOTE_NONE))
for r in rows:
    for k in r:
        if isinstance(r[k], str):
            r[k] = r[k].replace("\ufffd", "")
def ok(v): return v == "yes"
modes = [m for m in "abcd" if m in env["HB_MODES"].split(",")]
built = [r for r in rows if r["built_stock"] == "yes"]
ran = [r for r in built if r["built_adaptive"] == "yes" and r["stock_exit"] not in ("124", "137", "-")]
plugin_fail = [r for r in rows if r["built_adaptive"] == "NO"]
stock_fail = [r for r in rows if r["built_stock"] == "no"]
not_run = [r for r in rows if r["built_stock"] == "-"]
timeouts = [r for r in built if r["stock_exit"] in ("124", "137")]
nondet = [r for r in built if r["stock_nondeterministic"] == "yes"]
def num(v):
    try: return int(v)
    except ValueError: return 0
regions = sum(num(r["regions"]) for r in ran)
avail = sum(num(r["cpu_available"]) for r in ran)
ratios = sorted(float(r["compile_ratio"]) for r in rows if r["compile_ratio"] not in ("", "-"))
def geomean(xs):
    import math
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")
out = []
w = out.append
w("# HeCBench `*-omp` programs rebuilt with ompadapt (zero-source-change mode)")
w("")
w(f"- HeCBench commit: `{env['HB_SUITE_COMMIT']}`")
w(f"- build: `clang++-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu` (+ " + (f"`-fpass-plugin -gline-tables-only` with `OMPADAPT_AUTO={env['HB_KINDS']}`: pass-only mode" if env.get('HB_MODE') == 'pass' else f"`-fplugin -fplugin-arg-ompadapt-auto={env['HB_KINDS']}`") + f"), host offload; runs limited to {env['HB_TIMEOUT']} s; {env['HB_JOBS']} programs in parallel")
w(f"- machine: {env['HB_MACHINE']}")
w(f"- plugin: `{env['HB_PLUGIN']}`")
w("")
# every invocation that wrote into this output directory (--resume adds to earlier ones)
inv = []
try:
    for line in open(os.path.join(os.path.dirname(results), "invocations.tsv")):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 8 and f[0] != "date":
            inv.append(f)
except OSError:
    pass
if inv:
    w("| invocation (UTC) | programs run | wall time | ompadapt commit | plugin, runtime (sha256, mtime) at start | changed by the end | load at start | load at end |")
    w("|---|---|---|---|---|---|---|---|")
    for f in inv:
        changed = "no" if f[5] == f[4] else f"**yes**: {f[5]}"
        w(f"| {f[0]} | {f[1]} | {f[2]} | `{f[3]}` | {f[4]} | {changed} | `{f[6].strip()}` | `{f[7].strip()}` |")
w("")
w("Modes (each adaptive run compared with the first stock run: stdout after the timing filter, and the exit status): "
  "**a** every region pinned `cpu`; **b** every region pinned `gpu`; **c** each region `cpu` in turn, the others `gpu` "
  f"(programs with at most {env['HB_MAXC']} regions; `k/n` regions identical); **d** the real runtime, 3 runs on one store (`k/3`). "
  "*regions*: regions the runtime reported; *cpu avail.*: those whose `cpu` variant no run reported unavailable.")
w("")
w("## Totals")
w("")
w(f"| programs in the table | built stock | built adaptive | PLUGIN build failures | stock build failures | stock run timeouts | stock-nondeterministic | compared | regions | cpu available |")
w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
w(f"| {len(rows)} | {len(built)} | {sum(1 for r in rows if r['built_adaptive'] == 'yes')} | {len(plugin_fail)} | {len(stock_fail)} | {len(timeouts)} | {len(nondet)} | {len(ran)} | {regions} | {avail} |")
w("")
w("| mode | identical programs | differing | of which stock-deterministic | pin not applied by the runtime (no valid comparison) | run |")
w("|---|---:|---:|---:|---:|---:|")
for m in modes:
    cmp_ = [r for r in ran if r[m] not in ("-",) and not r[m].startswith("skip")]
    pinbad = [r for r in cmp_ if r[m].startswith("PIN?")]
    same = [r for r in cmp_ if ok(r[m])]
    differ = [r for r in cmp_ if r[m].startswith("NO")]
    skipped = sum(1 for r in ran if r[m].startswith("skip"))
    det_rows = [r for r in differ if r["stock_nondeterministic"] != "yes"]
    w(f"| {m} | {len(same)} | {len(differ)} | {len(det_rows)} | {len(pinbad)} | {len(cmp_)}{f' ({skipped} skipped: more regions than --max-c-regions)' if skipped else ''} |")
if ratios:
    w("")
    w(f"Compile time adaptive/stock: geometric mean {geomean(ratios):.2f}, median {ratios[len(ratios)//2]:.2f}, max {ratios[-1]:.2f} ({len(ratios)} programs).")
w("")
if plugin_fail:
    w("## PLUGIN build failures (stock builds, adaptive does not)")
    w("")
    for r in plugin_fail:
        w(f"- **{r['program']}**: `{r['plugin_error']}`")
    w("")
diff_rows = [r for r in ran if r["differences"]]
pin_parts, diff_parts = [], []
for r in diff_rows:
    flag = " (stock-nondeterministic)" if r["stock_nondeterministic"] == "yes" else ""
    for part in r["differences"].split(" ;; "):
        m = part[:1]
        if r.get(m, "").startswith("PIN?"):
            pin_parts.append(f"- {r['program']} — {part}")
        else:
            diff_parts.append(f"- {r['program']}{flag} — {part}")
if diff_parts:
    w("## Differences (first differing line per mode)")
    w("")
    det_parts = [d for d in diff_parts if "(stock-nondeterministic)" not in d]
    nd_parts = [d for d in diff_parts if "(stock-nondeterministic)" in d]
    if det_parts:
        w("Programs whose stock runs agree (two, and three more where an adaptive run differs):")
        w("")
        out.extend(det_parts)
        w("")
    if nd_parts:
        w("Programs whose stock runs already differ (a difference here says little):")
        w("")
        out.extend(nd_parts)
        w("")
unav = []
for r in ran:
    try:
        names = [l.strip() for l in open(os.path.join(os.path.dirname(results), "programs", r["program"], "cpu-unavailable")) if l.strip()]
    except OSError:
        names = []
    unav += [(r["program"], n) for n in names]
if unav:
    w("## Regions whose `cpu` variant the runtime found unavailable (host guard)")
    w("")
    for p_, n in unav:
        w(f"- {p_}: `{n}`")
    w("")
if pin_parts:
    w("## Pins the runtime did not apply (these runs are no valid comparison)")
    w("")
    ignored = [p for p in pin_parts if "runtime ignored the pin" in p]
    if ignored:
        w(f"{len(ignored)} programs: the runtime printed `OMPADAPT_VARIANT names '...', which is not one of its variants` and let the region learn. The first three:")
        w("")
        out.extend(ignored[:3])
        w("")
    rest = [p for p in pin_parts if "runtime ignored the pin" not in p]
    if rest:
        w("Other runs where a pinned region ran another variant:")
        w("")
        out.extend(rest)
        w("")
if nondet:
    w("## Stock-nondeterministic programs (two stock runs, or three more where an adaptive run differs, do not all agree after the filter)")
    w("")
    for r in nondet:
        w(f"- {r['program']}: {r['notes']}")
    w("")
if stock_fail or timeouts or not_run:
    w("## Not compared")
    w("")
    for r in stock_fail:
        w(f"- {r['program']}: stock build fails: `{r['stock_error']}`")
    for r in timeouts:
        w(f"- {r['program']}: stock run exceeds the time limit")
    for r in not_run:
        w(f"- {r['program']}: not run (no result in the output directory)")
    w("")
w("## Programs")
w("")
w("| program | built stock/adaptive | regions | cpu avail. | a | b | c | d | compile ratio | stock run (s) | notes |")
w("|---|---|---:|---:|---|---|---|---|---:|---:|---|")
for r in rows:
    notes = r["notes"]
    if r["stock_nondeterministic"] == "yes":
        notes = "stock-nondeterministic; " + notes
    w(f"| {r['program']} | {r['built_stock']}/{r['built_adaptive']} | {r['regions']} | {r['cpu_available']} | {r['a']} | {r['b']} | {r['c']} | {r['d']} | {r['compile_ratio']} | {r['stock_run_s']} | {notes.replace('|', '/')} |")
open(md, "w").write("\n".join(out) + "\n")
EOF
}

parse_options() {
  if [ "${1:-}" = --worker ]; then
    # internal: process one program; the configuration comes exported from the main process
    WORKER="${2:?}"
    return 0
  fi
  HB_TREE=""
  HB_MIRROR=""
  HB_REV="HEAD"
  HB_PLUGIN=""
  HB_OMPADAPT=""
  HB_KINDS="cpu,gpu"
  HB_MODE=auto
  HB_JOBS=2
  HB_MODES="a,b,c,d"
  HB_OUT="./hecbench-out"
  HB_TIMEOUT=60
  HB_MAXC=20
  HB_ARGS="$HERE/hecbench-args.tsv"
  HB_FILTERS="$HERE/hecbench-filters.tsv"
  HB_EXCLUDED="$HERE/hecbench-excluded.tsv"
  HB_SURVEY=0
  HB_STOCK_ONLY=0
  HB_MD=""
  HB_RESUME=0
  HB_REPORT_ONLY=0
  ONLY=()
  WORKER=""
  while [ $# -gt 0 ]; do
    case "$1" in
      -h | --help) usage; exit 0 ;;
      --hecbench) HB_TREE="${2:?--hecbench needs a directory}"; shift 2 ;;
      --mirror) HB_MIRROR="${2:?--mirror needs a git directory}"; shift 2 ;;
      --rev) HB_REV="${2:?--rev needs a revision}"; shift 2 ;;
      --plugin) HB_PLUGIN="${2:?--plugin needs a path}"; shift 2 ;;
      --ompadapt) HB_OMPADAPT="${2:?--ompadapt needs a directory}"; shift 2 ;;
      --kinds) HB_KINDS="${2:?--kinds needs a value}"; shift 2 ;;
      --mode) HB_MODE="${2:?--mode needs auto or pass}"; shift 2 ;;
      --only) ONLY+=("${2:?--only needs a name}"); shift 2 ;;
      --jobs) HB_JOBS="${2:?--jobs needs a number}"; shift 2 ;;
      --modes) HB_MODES="${2:?--modes needs a list}"; shift 2 ;;
      --out) HB_OUT="${2:?--out needs a directory}"; shift 2 ;;
      --timeout) HB_TIMEOUT="${2:?--timeout needs seconds}"; shift 2 ;;
      --max-c-regions) HB_MAXC="${2:?--max-c-regions needs a number}"; shift 2 ;;
      --args) HB_ARGS="${2:?--args needs a file}"; shift 2 ;;
      --filters) HB_FILTERS="${2:?--filters needs a file}"; shift 2 ;;
      --excluded) HB_EXCLUDED="${2:?--excluded needs a file}"; shift 2 ;;
      --survey) HB_SURVEY=1; shift ;;
      --stock-only) HB_STOCK_ONLY=1; shift ;;
      --resume) HB_RESUME=1; shift ;;
      --report-only) HB_REPORT_ONLY=1; HB_RESUME=1; shift ;;
      --md) HB_MD="${2:?--md needs a file}"; shift 2 ;;
      *) die "unknown option '$1' (see --help)" ;;
    esac
  done
}

# ----------------------------------------------------------------------------------------------
# main

main() {
  parse_options "$@"
  if [ -n "$WORKER" ]; then
    process_program "$WORKER"
    exit 0
  fi

  command -v "$CXX" >/dev/null || die "$CXX not found (scripts/bootstrap.sh installs clang-19)"
  command -v python3 >/dev/null || die "python3 not found"
  mkdir -p "$HB_OUT" || die "cannot create $HB_OUT"
  HB_OUT="$(cd "$HB_OUT" && pwd)"
  HB_ARGS="$(readlink -f "$HB_ARGS")" HB_FILTERS="$(readlink -f "$HB_FILTERS")"
  HB_EXCLUDED="$(readlink -f "$HB_EXCLUDED")"
  suite_prepare

  if [ "$HB_STOCK_ONLY" = 0 ]; then
    if [ -z "$HB_PLUGIN" ]; then
      if [ -n "${OMPADAPT_PLUGIN:-}" ]; then
        HB_PLUGIN="$OMPADAPT_PLUGIN"
      elif [ -f "$HERE/../../target/release/libompadapt.so" ]; then
        HB_PLUGIN="$HERE/../../target/release/libompadapt.so"
      else
        HB_PLUGIN="/work/main/target/release/libompadapt.so"
      fi
    fi
    [ -f "$HB_PLUGIN" ] || die "plugin $HB_PLUGIN not found (--plugin)"
    HB_PLUGIN="$(readlink -f "$HB_PLUGIN")"
  fi
  if [ -z "$HB_OMPADAPT" ]; then
    if [ -n "$HB_PLUGIN" ] && git -C "$(dirname "$HB_PLUGIN")" rev-parse HEAD >/dev/null 2>&1; then
      HB_OMPADAPT="$(git -C "$(dirname "$HB_PLUGIN")" rev-parse --show-toplevel)"
    else
      HB_OMPADAPT="$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null || echo "$HERE")"
    fi
  fi

  # the programs
  declare -a PROGS=()
  if [ "$HB_SURVEY" = 1 ]; then
    while IFS= read -r p; do
      if table_rows "$HB_EXCLUDED" | awk -F'\t' -v k="$p" '$1 == k { f = 1 } END { exit !f }'; then
        continue
      fi
      PROGS+=("$p")
    done < <(suite_programs)
  else
    [ -f "$HB_ARGS" ] || die "no argument table $HB_ARGS"
    mapfile -t PROGS < <(table_rows "$HB_ARGS" | cut -f1)
  fi
  if [ ${#ONLY[@]} -gt 0 ]; then
    declare -a sel=()
    for p in "${PROGS[@]}"; do
      for o in "${ONLY[@]}"; do
        if [ "$p" = "$o" ] || [ "$p" = "$o-omp" ]; then sel+=("$p"); break; fi
      done
    done
    PROGS=("${sel[@]}")
  fi
  [ ${#PROGS[@]} -gt 0 ] || die "no programs selected"
  # --resume: the report covers ALL (every program of the table, or the survey); this
  # invocation runs the selected ones that have no result in OUT yet, and those --only names
  declare -a ALL=("${PROGS[@]}")
  if [ "$HB_RESUME" = 1 ]; then
    ALL=()
    if [ "$HB_SURVEY" = 1 ]; then
      while IFS= read -r p; do
        table_rows "$HB_EXCLUDED" | awk -F'\t' -v k="$p" '$1 == k { f = 1 } END { exit !f }' || ALL+=("$p")
      done < <(suite_programs)
    else
      mapfile -t ALL < <(table_rows "$HB_ARGS" | cut -f1)
    fi
    if [ ${#ONLY[@]} -eq 0 ]; then
      declare -a todo=()
      for p in "${PROGS[@]}"; do
        [ -f "$HB_OUT/programs/$p/result.tsv" ] || todo+=("$p")
      done
      PROGS=("${todo[@]}")
    fi
  fi
  [ "$HB_REPORT_ONLY" = 0 ] || PROGS=()
  HB_RAN="${#PROGS[@]} of ${#ALL[@]}"

  export HB_TREE HB_MIRROR HB_REV HB_PLUGIN HB_OMPADAPT HB_KINDS HB_MODE HB_JOBS HB_MODES HB_OUT \
    HB_TIMEOUT HB_MAXC HB_ARGS HB_FILTERS HB_EXCLUDED HB_SURVEY HB_STOCK_ONLY
  export HB_RAN HB_RESUME HB_PLUGIN_SUM_START HB_PLUGIN_SUM_END HB_DATE HB_UPTIME_START HB_UPTIME_END HB_WALL HB_MACHINE HB_OMPADAPT_COMMIT HB_SUITE_COMMIT

  HB_DATE="$(date -u '+%Y-%m-%d %H:%M UTC')"
  HB_UPTIME_START="$(uptime)"
  HB_MACHINE="$(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); $("$CXX" --version | head -n1)"
  HB_OMPADAPT_COMMIT="$(git -C "$HB_OMPADAPT" rev-parse HEAD 2>/dev/null || echo unknown)"
  if [ -n "$HB_OMPADAPT_COMMIT" ] && [ -n "$(git -C "$HB_OMPADAPT" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    HB_OMPADAPT_COMMIT+=" (with uncommitted changes)"
  fi
  HB_SUITE_COMMIT="$(suite_commit)"
  HB_PLUGIN_SUM_START="$(plugin_sums)"
  # the workers run a copy of the harness: editing it during a run changes nothing
  mkdir -p "$HB_OUT/harness"
  cp "$SELF" "$HERE/makefile-info.py" "$HERE/git-extract.py" "$HB_OUT/harness/"
  start=$(now)
  echo "hecbench.sh: ${#PROGS[@]} programs, $HB_JOBS at a time, modes $HB_MODES, results in $HB_OUT" >&2

  mkdir -p "$HB_OUT/programs"
  [ ${#PROGS[@]} -eq 0 ] ||
  printf '%s\n' "${PROGS[@]}" |
    xargs -P "$HB_JOBS" -I{} bash -c '
      "$HB_OUT/harness/hecbench.sh" --worker "$1" </dev/null 2>>"$HB_OUT/workers.log"
      r="$HB_OUT/programs/$1/result.tsv"
      if [ -f "$r" ]; then
        printf "%s\n" "$(cut -f1-10 "$r" | tr "\t" " ")" >&2
      else
        echo "$1: no result" >&2
      fi' "$SELF" {}

  results="$HB_OUT/results.tsv"
  {
    echo "$RESULT_HEADER"
    for p in "${ALL[@]}"; do
      if [ -f "$HB_OUT/programs/$p/result.tsv" ]; then
        cat "$HB_OUT/programs/$p/result.tsv"
      else
        printf '%s\t-\t-\t-\t-\t-\t-\t-\t-\t-\t\t\t-\t-\tno\t\t\t\tnot run (no result)\n' "$p"
      fi
    done
  } >"$results"
  end=$(now)
  HB_UPTIME_END="$(uptime)"
  HB_PLUGIN_SUM_END="$(plugin_sums)"
  HB_WALL="$(awk -v s="$(elapsed "$start" "$end")" 'BEGIN { printf "%d min %d s", s / 60, s % 60 }')"
  [ -n "$HB_MD" ] || HB_MD="$HB_OUT/hecbench.md"
  [ "$HB_REPORT_ONLY" = 1 ] || {
    [ -f "$HB_OUT/invocations.tsv" ] ||
      printf 'date\tprograms run\twall\tompadapt commit\tplugin at start\tplugin at end\tload at start\tload at end\n'
    printf '%s\t' "$HB_DATE" "$HB_RAN" "$HB_WALL" "$HB_OMPADAPT_COMMIT" "$HB_PLUGIN_SUM_START" \
      "$HB_PLUGIN_SUM_END" "$HB_UPTIME_START"
    printf '%s\n' "$HB_UPTIME_END"
  } >>"$HB_OUT/invocations.tsv"
  write_markdown "$results" "$HB_MD"
  echo "hecbench.sh: wrote $results and $HB_MD ($HB_WALL)" >&2

  # exit status: 1 when a plugin build failed or an adaptive run differed
  awk -F'\t' 'NR > 1 && ($3 == "NO" || $6 ~ /NO/ || $7 ~ /NO/ || $8 ~ /NO/ || $9 ~ /NO/ || $6$7$8$9 ~ /PIN/) { bad = 1 }
    END { exit bad ? 1 : 0 }' "$results"
}

main "$@"; exit $?
