# Timing helpers shared by the compile-time scripts (scripts/compile-time.sh,
# benchmarks/compile_time_auto.sh). Source it after setting TMP (a scratch folder) and CLOCK
# (`cpu`, the default, or `wall`).

# Median of the numbers on stdin.
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# Milliseconds one compilation takes: CPU time (user + system, of the driver and its compiler
# jobs) by default, which a machine shared with other work inflates far less than wall time;
# CLOCK=wall for elapsed time. A failed compilation stops the script with its errors.
time_ms() {
  local start end TIMEFORMAT='%3U %3S'
  start=$(date +%s%N)
  if ! { time "$@" > /dev/null 2> "$TMP/stderr"; } 2> "$TMP/cpu"; then
    echo "compile failed: $*" >&2
    cat "$TMP/stderr" >&2
    exit 1
  fi
  end=$(date +%s%N)
  if [ "${CLOCK:-cpu}" = wall ]; then
    echo $(((end - start) / 1000000))
  else
    awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$TMP/cpu"
  fi
}
