#!/usr/bin/env bash
# Compile time of the plugin in counted instructions (callgrind: the same on a quiet or a busy
# machine, unlike seconds): every compiler job of one compilation (host, and device with
# -fopenmp-targets) summed, the driver and the offload packager left out. For each source:
#   plain   clang FLAGS -c
#   plugin  the same + -fplugin=P                         (P: each plugin of PLUGINS)
#   auto    the same + -fplugin-arg-ompadapt-auto=KINDS   (sources without adaptation directives)
# An explicit adaptive source (one that says `adaptation`) is compiled with the plugin only, and
# its plain baseline is the program written for one fixed variant (scripts/compile-time.sh's
# strip_adaptation). Ratios to plain per source, and geometric means per column.
#
#   benchmarks/compile_time_count.sh FILE...
#   PLUGINS="/old/libompadapt.so target/release/libompadapt.so" benchmarks/compile_time_count.sh FILE...
#   FLAGS='-O2 -fopenmp' KINDS=default EXTRA=-I<polybench>/utilities benchmarks/compile_time_count.sh ...
# FLAGS defaults to '-O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu', KINDS to cpu,gpu.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
PLUGINS=${PLUGINS:-$root/target/release/libompadapt.so}
KINDS=${KINDS:-cpu,gpu}
# shellcheck disable=SC2206
FLAGS=(${FLAGS:--O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu} ${EXTRA:-} -w)
command -v valgrind >/dev/null || { echo "valgrind is missing" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$root/scripts/lib/strip_adaptation.sh"

# Instructions of the compiler jobs of `cc FLAGS ARGS -c SRC`: the driver's jobs (-###) run in
# order, cc1 ones under callgrind.
count() {
  local cc=$1 src=$2 total=0 job n
  shift 2
  while IFS= read -r job; do
    eval "set -- $job"
    if [ "$2" = -cc1 ]; then
      n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
      [ -n "$n" ] || { echo "compile failed: $*" >&2; exit 1; }
      total=$((total + n))
    else
      "$@" >/dev/null
    fi
  done < <("$cc" -### "${FLAGS[@]}" "${ARGS[@]}" -c "$src" -o "$TMP/o.o" 2>&1 | grep '^ "')
  echo "$total"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
declare -A LOGS
for src in "$@"; do
  cc=clang-19
  [[ "$src" == *.cpp ]] && cc=clang++-19
  dir=$(cd "$(dirname "$src")" && pwd)
  file=$(basename "$src")
  name=$(basename "$dir")/$file
  cd "$dir"
  if grep -q adaptation "$file"; then
    kind=adaptive
    strip_adaptation "$file" > "$TMP/base.${file##*.}"
    ARGS=(-I "$dir")
    plain=$(count "$cc" "$TMP/base.${file##*.}")
  else
    kind=plain
    ARGS=()
    plain=$(count "$cc" "$file")
  fi
  line=$(printf '%-34s %-8s %12d' "$name" "$kind" "$plain")
  i=0
  for p in $PLUGINS; do
    i=$((i + 1))
    ARGS=(-fplugin="$p")
    with=$(count "$cc" "$file")
    r=$(ratio "$with" "$plain")
    line+=$(printf ' | P%d %12d %6s' "$i" "$with" "$r")
    LOGS["$kind plugin P$i"]+="$r "
    if [ "$kind" = plain ]; then
      ARGS=(-fplugin="$p" -fplugin-arg-ompadapt-auto="$KINDS")
      with=$(count "$cc" "$file")
      r=$(ratio "$with" "$plain")
      line+=$(printf ' auto %12d %6s' "$with" "$r")
      LOGS["plain auto P$i"]+="$r "
    fi
  done
  echo "$line"
  cd - >/dev/null
done
echo
echo "FLAGS ${FLAGS[*]}; kinds $KINDS; P1..: $PLUGINS"
for k in "${!LOGS[@]}"; do
  # shellcheck disable=SC2086
  echo "$k / plain: geometric mean $(printf '%s\n' ${LOGS[$k]} | awk '{ s += log($1); n++ } END { printf "%.3f (%d sources)", exp(s / n), n }')"
done | sort
