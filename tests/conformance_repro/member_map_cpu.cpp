// Conformance difference (LLVM offload/test/mapping/target_map_for_member_data.cpp; our own
// reduction): a `target data map(from: d.c)` region around a launch that writes d.c through a
// reference. Stock (and OMPADAPT_VARIANT=gpu) prints 1. Under OMPADAPT_VARIANT=cpu, and under the
// real runtime's first run (it explores cpu first), it prints another number (garbage with
// -fpass-plugin, 0 with the plugin's auto mode): the host
// version's write of d.c does not survive the data region's end, which copies the device's
// never-written d.c back. Plugin auto mode and pass-only mode alike.
//   clang++-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -gline-tables-only \
//     -fpass-plugin=target/release/libompadapt_pass.so member_map_cpu.cpp
//   ./a.out (stock build) -> 1;  OMPADAPT_VARIANT=cpu ./a.out -> garbage
#include <cstdio>

struct D {
  int a;
  int c;
};

void set(D &d) {
#pragma omp target data map(from : d.c)
  {
#pragma omp target
    d.c = 1;
  }
}

int main() {
  D d{0, 0};
  set(d);
  std::printf("%d\n", d.c);
  return 0;
}
