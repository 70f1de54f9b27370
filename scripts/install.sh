#!/usr/bin/env bash
# Installs the built ompadapt (cargo build --release) into PREFIX (default /usr/local):
#   PREFIX/lib/{libompadapt.so,libompadapt_pass.so,libompadapt_rt.so,libompadapt_rt.a}
#   PREFIX/include/{ompadapt.h,apollo.h}
#   PREFIX/bin/ompadapt       (list, show, train, evaluate, export/import, clear; bench)
#   PREFIX/lib/libompadapt_dataperf.so, PREFIX/bin/ompadapt-dataperf (data-movement analysis;
#   the launcher finds the tool in ../lib), PREFIX/include/ompadapt_dataperf.h
#   PREFIX/lib/cmake/OmpAdapt/OmpAdaptConfig{,Version}.cmake    (find_package(OmpAdapt))
#   PREFIX/lib/pkgconfig/ompadapt.pc                              (pkg-config ompadapt)
# The plugin finds the runtime beside itself, so the three libraries stay together.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${1:-/usr/local}"
lib="${OMPADAPT_LIB_DIR:-${CARGO_TARGET_DIR:-$root/target}/release}"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)"
for f in libompadapt.so libompadapt_pass.so libompadapt_rt.so libompadapt_rt.a ompadapt; do
  [ -f "$lib/$f" ] || { echo "install.sh: $lib/$f is missing: run cargo build --release --workspace first" >&2; exit 1; }
done
install -d "$prefix/lib" "$prefix/include" "$prefix/lib/cmake/OmpAdapt" "$prefix/lib/pkgconfig"
install -m 755 "$lib/libompadapt.so" "$lib/libompadapt_pass.so" "$lib/libompadapt_rt.so" "$prefix/lib/"
install -m 644 "$lib/libompadapt_rt.a" "$prefix/lib/"
install -D -m 755 "$lib/ompadapt" "$prefix/bin/ompadapt"
if [ -f "$lib/libompadapt_dataperf.so" ] && [ -f "$lib/ompadapt-dataperf" ]; then
  install -m 755 "$lib/libompadapt_dataperf.so" "$prefix/lib/"
  install -D -m 755 "$lib/ompadapt-dataperf" "$prefix/bin/ompadapt-dataperf"
  install -m 644 "$root/dataperf/include/ompadapt_dataperf.h" "$prefix/include/"
fi
install -m 644 "$root/runtime/include/ompadapt.h" "$root/runtime/include/apollo.h" "$prefix/include/"
install -m 644 "$root/cmake/OmpAdaptConfig.cmake" "$prefix/lib/cmake/OmpAdapt/"
cat > "$prefix/lib/cmake/OmpAdapt/OmpAdaptConfigVersion.cmake" <<CMAKE
set(PACKAGE_VERSION "$version")
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
CMAKE
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" "$root/cmake/ompadapt.pc.in" > "$prefix/lib/pkgconfig/ompadapt.pc"
echo "ompadapt $version installed in $prefix"
