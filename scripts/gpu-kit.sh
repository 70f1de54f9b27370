#!/usr/bin/env bash
# Builds the GPU kit: everything a machine with an NVIDIA GPU and driver, but no clang or LLVM,
# needs to check and measure ompadapt there (docs/gpu-kit.md).
#
#   scripts/gpu-kit.sh [--host-twin] [OUT]
#
# OUT (default target/gpu-kit/ompadapt-gpu-kit.tar.xz, with --host-twin
# target/gpu-kit/ompadapt-gpu-kit-host.tar.xz) holds one folder, ompadapt-gpu-kit/:
#   run.sh, prebuilt-cc, programs.tsv, KIT.txt     the runner (kit/), what was built and how
#   programs/NAME (+ NAME.stock, NAME.regions)     the end-to-end programs of kit/programs.tsv
#   kernels/NAME                                   the `ompadapt bench` kernels, one per use-case
#   share/kernels/                                 their sources (`ompadapt bench --source`)
#   bin/ompadapt, bin/llvm-omp-device-info
#   lib/                                           libompadapt_rt.so, libomp.so.5,
#                                                  libomptarget.so.19.1 and the whole ldd closure
#                                                  of everything above except glibc
# Programs and kernels are built with clang-19 + libompadapt.so for nvptx64 (--offload-arch=sm_90,
# KIT_ARCH to change it) against a CUDA root made from PyPI wheels, or with --host-twin for
# libomptarget's host offload (x86_64-pc-linux-gnu: the same kit, runnable on any machine).
# The kit is xz-compressed (KIT_XZ_LEVEL, default 6) and must stay under KIT_MAX_MIB (60) MiB.
# Needs `cargo build --release --workspace` first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
started=$(date +%s)

flavour=nvptx
out=""
for a in "$@"; do
  case "$a" in
    --host-twin) flavour=host ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-kit.sh: unknown option $a (see --help)" >&2; exit 2 ;;
    *) out="$a" ;;
  esac
done
work="${KIT_WORK:-$root/target/gpu-kit}"
if [ -z "$out" ]; then
  suffix=""
  [ $flavour = nvptx ] || suffix=-host
  out="$work/ompadapt-gpu-kit$suffix.tar.xz"
fi
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
lib_dir="${OMPADAPT_LIB_DIR:-${CARGO_TARGET_DIR:-$root/target}/release}"
llvm=/usr/lib/llvm-19
arch="${KIT_ARCH:-sm_90}"
xz_level="${KIT_XZ_LEVEL:-6}"
max_mib="${KIT_MAX_MIB:-60}"
jobs="${KIT_JOBS:-2}"
# CUDA 13.0 matches the driver of the machines the device tool lends (580.x); libdevice comes
# from the CUDA 12 wheel (the CUDA 13 one has none).
nvcc_wheel="${KIT_NVCC_WHEEL:-nvidia-cuda-nvcc==13.0.88}"
libdevice_wheel="${KIT_LIBDEVICE_WHEEL:-nvidia-cuda-nvcc-cu12==12.9.86}"

say() { echo "gpu-kit: $*" >&2; }
die() { echo "gpu-kit: ERROR: $*" >&2; exit 1; }

for f in libompadapt.so libompadapt_pass.so libompadapt_rt.so ompadapt; do
  [ -f "$lib_dir/$f" ] || die "$lib_dir/$f is missing: run cargo build --release --workspace first"
done
command -v clang-19 >/dev/null || die "clang-19 is missing: run scripts/bootstrap.sh"
[ -f "$llvm/lib/libomptarget.so.19.1" ] || die "$llvm/lib/libomptarget.so.19.1 is missing: run scripts/bootstrap.sh"

# The kernels `ompadapt bench` knows (harness/src/kernels.rs): name, source, use-case flag.
kernels="xsbench xsbench.c -
rsbench rsbench.c -
lulesh lulesh.c -
amgmk_relax amgmk_relax.c -
heat2d heat2d.c -
lbm2d lbm2d.c -
smith_waterman smith_waterman.c -
lulesh-threads lulesh.c -DUSE_THREADS
amgmk_relax-threads amgmk_relax.c -DUSE_THREADS
heat2d-threads heat2d.c -DUSE_THREADS
lbm2d-threads lbm2d.c -DUSE_THREADS
xsbench-cosched xsbench.c -DUSE_COSCHED
rsbench-cosched rsbench.c -DUSE_COSCHED
jacobi2d jacobi2d.c -DUSE_HOST
triangular triangular.c -DUSE_HOST"
bench_names="$(grep -o 'name: "[^"]*"' "$root/harness/src/kernels.rs" | cut -d'"' -f2 | sort)"
[ "$bench_names" = "$(echo "$kernels" | cut -d' ' -f1 | sort)" ] ||
  die "the kernels of harness/src/kernels.rs changed (${bench_names//$'\n'/ }): update the list in $0"

# A CUDA root clang-19 accepts, from PyPI wheels (docs/gpu-kit.md; DESIGN.md, toolchain facts).
cuda_root() {
  local cache="$work/cache/wheels" cuda="$work/cache/cuda-root"
  if [ -x "$cuda/bin/ptxas" ] && [ -f "$cuda/nvvm/libdevice/libdevice.10.bc" ] &&
    [ "$(cat "$cuda/wheels" 2>/dev/null)" = "$nvcc_wheel $libdevice_wheel" ]; then
    echo "$cuda"
    return
  fi
  mkdir -p "$cache"
  say "downloading $nvcc_wheel and $libdevice_wheel into $cache"
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$cache" "$nvcc_wheel" "$libdevice_wheel" >&2 ||
    die "pip download of the CUDA wheels failed"
  local nvcc_whl libdevice_whl tmp
  nvcc_whl="$(ls "$cache"/nvidia_cuda_nvcc-"${nvcc_wheel#*==}"-*.whl | head -1)"
  libdevice_whl="$(ls "$cache"/nvidia_cuda_nvcc_cu12-"${libdevice_wheel#*==}"-*.whl | head -1)"
  tmp="$(mktemp -d)"
  rm -rf "$cuda" && mkdir -p "$cuda/bin" "$cuda/nvvm/libdevice" "$cuda/include"
  unzip -q -o "$nvcc_whl" 'nvidia/cu13/bin/ptxas' 'nvidia/cu13/bin/nvlink' -d "$tmp"
  unzip -q -o "$libdevice_whl" 'nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc' -d "$tmp"
  install -m 755 "$tmp/nvidia/cu13/bin/ptxas" "$tmp/nvidia/cu13/bin/nvlink" "$cuda/bin/"
  cp "$tmp/nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc" "$cuda/nvvm/libdevice/"
  # a version clang-19 knows, and the header it looks for to accept the root
  echo '{"cuda":{"name":"CUDA SDK","version":"12.3.0"}}' >"$cuda/version.json"
  : >"$cuda/include/cuda.h"
  echo "$nvcc_wheel $libdevice_wheel" >"$cuda/wheels"
  rm -rf "$tmp"
  echo "$cuda"
}

if [ $flavour = nvptx ]; then
  cuda="$(cuda_root)"
  target=nvptx64
  export PATH="$cuda/bin:$PATH"
  offload=(-fopenmp-targets=nvptx64 "--offload-arch=$arch" "--cuda-path=$cuda"
    "--libomptarget-nvptx-bc-path=$llvm/lib/libomptarget-nvptx-$arch.bc")
else
  target=x86_64-pc-linux-gnu
  offload=(-fopenmp-targets=x86_64-pc-linux-gnu)
fi

stage="$work/stage-$flavour"
kit="$stage/ompadapt-gpu-kit"
logs="$work/logs-$flavour"
rm -rf "$stage" "$logs"
mkdir -p "$kit"/{programs,kernels,bin,lib,share/kernels} "$logs"

# One compile job per line: OUT<TAB>compiler<TAB>source<TAB>flags; the plugin is used unless
# OUT ends in .stock. Generated code loads the runtime by its bare name (found through
# LD_LIBRARY_PATH, which the kit's run.sh sets), not from this checkout's path.
joblist="$logs/jobs.tsv"
: >"$joblist"
while IFS=$'\t' read -r name src flags args reference normalise; do
  case "$name" in '' | '#'*) continue ;; esac
  cc=clang-19
  case "$src" in *.cpp) cc=clang++-19 ;; esac
  printf '%s\t%s\t%s\t%s\n' "$kit/programs/$name" "$cc" "$root/tests/$src" "$flags" >>"$joblist"
  if [ "$reference" = stock ]; then
    printf '%s\t%s\t%s\t%s\n' "$kit/programs/$name.stock" "$cc" "$root/tests/$src" \
      "$(echo "$flags" | sed -E 's/ ?-fplugin-arg-ompadapt-[^ ]*//g')" >>"$joblist"
  fi
done <"$root/kit/programs.tsv"
# The kernels exactly as `ompadapt bench` builds them (harness/src/runner.rs), per use-case.
while read -r name src define; do
  printf '%s\t%s\t%s\t%s\n' "$kit/kernels/$name" clang-19 "$root/benchmarks/kernels/$src" \
    "-O2$([ "$define" = - ] || echo " $define") -lm" >>"$joblist"
done <<<"$kernels"

compile_one() {
  local exe="$1" cc="$2" src="$3" flags="$4" log
  log="$LOGS/$(basename "$exe").log"
  local plugin=("-fplugin=$PLUGIN")
  case "$exe" in *.stock) plugin=() ;; esac
  # shellcheck disable=SC2086 # flags are words
  # from the source's folder: zero-source-change region names carry the file name as given
  if ! (cd "$(dirname "$src")" && OMPADAPT_RUNTIME_DEFAULT=libompadapt_rt.so "$cc" -fopenmp "${OFFLOAD[@]}" \
    "${plugin[@]}" "$(basename "$src")" $flags -o "$exe") >"$log" 2>&1; then
    echo "gpu-kit: ERROR: compiling $(basename "$exe") failed:" >&2
    cat "$log" >&2
    return 255
  fi
}
export -f compile_one
export LOGS="$logs" PLUGIN="$lib_dir/libompadapt.so"
# bash cannot export arrays: pass the offload flags as words
offload_words="${offload[*]}"
export OFFLOAD_WORDS="$offload_words"
say "building $(wc -l <"$joblist") programs and kernels for $target ($jobs at a time)"
compile_started=$(date +%s)
tr '\t' '\037' <"$joblist" | xargs -d '\n' -P "$jobs" -I{} bash -c \
  'IFS=$'"'"'\037'"'"' read -r a b c d <<<"$1"; read -r -a OFFLOAD <<<"$OFFLOAD_WORDS"; compile_one "$a" "$b" "$c" "$d"' _ {} ||
  die "a compile failed (logs in $logs)"
compile_s=$(($(date +%s) - compile_started))

# The regions each program has and their variants, from the descriptors generated code
# passes to the runtime (`ompadapt1;model=...;variants=...`, percent-encoded): one line per
# primary region (associated regions run with their primary's decision), tab-separated.
regions_of() {
  grep -aoE 'ompadapt1;model=[[:print:]]*' "$1" | grep -v ';use_model=' | sort -u |
    while IFS= read -r d; do
      local model variants line v
      model="$(echo "$d" | grep -oE ';model=[^;]*' | head -1 | cut -d= -f2-)"
      variants="$(echo "$d" | grep -oE ';variants=[^;]*' | head -1 | cut -d= -f2-)"
      line="$(printf '%b' "${model//%/\\x}")"
      IFS=, read -r -a vs <<<"$variants"
      for v in "${vs[@]}"; do line+=$'\t'"$(printf '%b' "${v//%/\\x}")"; done
      echo "$line"
    done | awk -F'\t' '!seen[$1]++'
}
for exe in "$kit"/programs/*; do
  case "$exe" in *.stock | *.regions) continue ;; esac
  regions_of "$exe" >"$exe.regions"
  [ -s "$exe.regions" ] || die "$(basename "$exe"): no adaptive region found in the binary"
done

install -m 755 "$root/kit/run.sh" "$kit/run.sh"
install -m 755 "$root/kit/prebuilt-cc" "$kit/prebuilt-cc"
install -m 644 "$root/kit/programs.tsv" "$kit/programs.tsv"
cp "$root/benchmarks/kernels/"*.c "$root/benchmarks/kernels/bench.h" "$kit/share/kernels/"
install -m 755 "$lib_dir/ompadapt" "$kit/bin/ompadapt"
install -m 755 "$lib_dir/libompadapt_rt.so" "$kit/lib/libompadapt_rt.so"
strip --strip-unneeded "$kit/bin/ompadapt" "$kit/lib/libompadapt_rt.so"
install -m 755 "$llvm/bin/llvm-omp-device-info" "$kit/bin/"
echo "$target" >"$kit/TARGET"

# The ldd closure of every ELF file of the kit, except glibc and the NVIDIA driver.
glibc='^(linux-vdso\.so|ld-linux-x86-64\.so|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libresolv\.so|libutil\.so|libanl\.so|libnsl\.so|libmvec\.so|libcuda\.so|libnvidia-)'
elves() { find "$kit" -type f -exec sh -c 'head -c4 "$1" | grep -q ELF && echo "$1"' _ {} \; | sort; }
for elf in $(elves); do
  LD_LIBRARY_PATH="$llvm/lib" ldd "$elf" | awk '/=>/ { print $1, $3 }'
done | sort -u | while read -r soname path; do
  echo "$soname" | grep -qE "$glibc" && continue
  [ -f "$path" ] || die "$soname (needed by the kit) is not found on this machine"
  [ -e "$kit/lib/$soname" ] || cp -L "$path" "$kit/lib/$soname"
done
# libomptarget's host plugin opens the OpenMP runtime as libomp.so (through libLLVM): without
# this name in the kit it finds the system's copy, and two OpenMP runtimes abort the program.
ln -sf libomp.so.5 "$kit/lib/libomp.so"
# Every dependency of every ELF file now resolves inside the kit (or to glibc).
for elf in $(elves); do
  LD_LIBRARY_PATH="$kit/lib" ldd "$elf" | awk '/=>/ { print $1, $3 }' | while read -r soname path; do
    echo "$soname" | grep -qE "$glibc" && continue
    case "$path" in "$kit/lib/"*) ;; *) die "$(basename "$elf") needs $soname from $path, not from the kit" ;; esac
  done
done

commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
git -C "$root" diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
{
  echo "ompadapt GPU kit"
  echo "flavour:   $flavour"
  echo "target:    $target$([ $flavour = nvptx ] && echo " --offload-arch=$arch")"
  echo "commit:    $commit"
  echo "built:     $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
  echo "compiler:  $(clang-19 --version | head -1)"
  [ $flavour = nvptx ] && echo "cuda root: $nvcc_wheel (ptxas, nvlink), $libdevice_wheel (libdevice) from PyPI"
  echo "compiled:  $(wc -l <"$joblist") programs and kernels in ${compile_s} s"
  echo
  echo "programs:  $(cd "$kit/programs" && ls | grep -vE '\.(stock|regions)$' | tr '\n' ' ')"
  echo "kernels:   $(cd "$kit/kernels" && ls | tr '\n' ' ')"
  echo
  echo "lib/ (uncompressed sizes):"
  (cd "$kit/lib" && ls -l | awk 'NR > 1 { printf "  %-28s %10d\n", $9, $5 }')
} >"$kit/KIT.txt"

say "compressing (xz -$xz_level)"
mkdir -p "$(dirname "$out")"
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner -cf - ompadapt-gpu-kit |
  xz -"$xz_level" -T2 >"$out.tmp"
mv "$out.tmp" "$out"
bytes=$(stat -c %s "$out")
mib=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
unpacked=$(du -sb "$kit" | cut -f1)
elapsed=$(($(date +%s) - started))
say "$out: $mib MiB ($((unpacked / 1048576)) MiB unpacked), built in ${elapsed} s (compiling ${compile_s} s)"
if [ "$bytes" -gt $((max_mib * 1048576)) ]; then
  die "the kit is $mib MiB, over the $max_mib MiB it must fit in (the device tool carries 64 MiB with the checkout)"
fi
