// Conformance difference (LLVM offload/test/offloading/offloading_success.cpp; our own
// reduction): a kernel that asks where it runs, omp_is_initial_device(), gets no `cpu` variant in
// C (offloading_success.c is identical under every pin), but in C++ it keeps one: under
// OMPADAPT_VARIANT=cpu it returns 1 (stock, on the host offload: 0), prints "host" and exits 1.
//   clang++-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -fpass-plugin=target/release/libompadapt_pass.so initial_device_cpp.cpp
//   ./a.out -> device, exit 0;  OMPADAPT_VARIANT=cpu ./a.out -> host, exit 1
#include <omp.h>
#include <cstdio>

int main() {
  int on_host = 0;
#pragma omp target map(from : on_host)
  { on_host = omp_is_initial_device(); }
  std::printf("%s\n", on_host ? "host" : "device");
  return on_host;
}
