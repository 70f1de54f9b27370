#!/usr/bin/env bash
# Installs the stock Debian LLVM 19 toolchain ompadapt builds against (clang-tools-19 carries
# clang-offload-packager and clang-linker-wrapper, which -fopenmp-targets needs), and makes libomptarget
# (in /usr/lib/llvm-19/lib, off the default loader path) findable at run time.
# Idempotent: when everything is present it only checks, in well under a second.
set -euo pipefail

pkgs=(clang-19 clang-tools-19 llvm-19-dev libclang-19-dev libclang-cpp19-dev libomp-19-dev llvm-19-tools pkg-config cmake
      libopenmpi-dev openmpi-bin   # Open MPI: the runtime's `mpi` feature and its mpirun test
      fonts-dejavu-core            # text in the pictures of `ompadapt show` and `ompadapt bench`
      flang-19                     # Fortran: pass-only mode (flang-new-19 -fpass-plugin) and its corpus
      llvm-19-linker-tools         # LLVMgold.so: the LTO builds of the cross-unit test (ld.gold)
      valgrind)                    # the memory-checked runs of the cpu variant
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

if [ ${#missing[@]} -gt 0 ]; then
  echo "ompadapt bootstrap: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# libomp.so.5 and libomptarget.so.19.1 live in /usr/lib/llvm-19/lib. Register that directory with
# the dynamic loader so that offloading programs run without LD_LIBRARY_PATH or -rpath.
conf=/etc/ld.so.conf.d/ompadapt-llvm-19.conf
if [ ! -f "$conf" ]; then
  echo /usr/lib/llvm-19/lib | $SUDO tee "$conf" >/dev/null
  $SUDO ldconfig
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "ompadapt bootstrap: cargo not found; install Rust (rustup) first" >&2
  exit 1
fi
