/* Conformance difference (LLVM offload/test/ompt/veccopy_wrong_return.c; our own reduction): a
 * program that is an OMPT tool itself (defines ompt_start_tool) builds stock but fails to build in
 * both adaptive modes: "<unknown>:0: error: ompt_start_tool changed binding to STB_GLOBAL" (the
 * support code ompadapt adds to the module declares the same symbol with another binding).
 *   clang-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -fpass-plugin=target/release/libompadapt_pass.so ompt_tool_build.c
 *   -> build error (stock: builds, prints 2) */
#include <omp-tools.h>
#include <stdio.h>

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime_version) {
  return NULL; /* no tool after all */
}

int main(void) {
  int x = 1;
#pragma omp target map(tofrom : x)
  { x = 2; }
  printf("%d\n", x);
  return 0;
}
