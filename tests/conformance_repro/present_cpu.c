/* Conformance difference (LLVM offload/test/mapping/present/target.c, target_array_extension.c,
 * zero_length_array_section.c; our own reduction): a launch with map(present: ...) of data that
 * is not mapped is a run-time error: stock aborts ("... is not present", exit by SIGABRT). Under
 * OMPADAPT_VARIANT=cpu (and the real runtime when it explores cpu) the host version runs without
 * the presence check, prints "ran" and exits 0. Plugin auto mode and pass-only mode alike.
 *   clang-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -fpass-plugin=target/release/libompadapt_pass.so present_cpu.c
 *   ./a.out -> abort;  OMPADAPT_VARIANT=cpu ./a.out -> "ran", exit 0 */
#include <stdio.h>

int main(void) {
  int x = 1;
#pragma omp target map(present, tofrom : x)
  { x = 2; }
  printf("ran %d\n", x);
  return 0;
}
