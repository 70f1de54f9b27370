# Shared by scripts/compile-time.sh and benchmarks/compile_time_count.sh.
# The source for one fixed variant: without its adaptation directives (and their continuation
# lines), each metadirective selector that needs the plugin made one stock clang resolves.
strip_adaptation() {
  awk '
    cont { cont = /\\$/; next }
    /^[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+((begin|end|declare)[ \t]+)?adaptation/ { cont = /\\$/; next }
    /^[ \t]*[A-Za-z_][A-Za-z_0-9]*\([ \t]*omp[ \t]+((begin|end|declare)[ \t]+)?adaptation/ { next }
    { gsub(/_Pragma\("omp (begin |end |declare )?adaptation[^"]*"\)/, "")
      gsub(/user[ \t]*=[ \t]*\{[ \t]*adaptation\([^}]*\}/, "user={condition(1)}")
      gsub(/when\([ \t]*:/, "when(user={condition(1)}:")
      print }
  ' "$1"
}
