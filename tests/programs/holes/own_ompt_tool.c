/* A program that is an OMPT tool itself (LLVM's offload/test/ompt tests, found by the conformance
 * runs of issue 41): it defines ompt_start_tool, which the loader ompadapt adds to the module
 * defines too (weakly); the assembler refused the pair ("changed binding to STB_GLOBAL"), so the
 * program did not build in either adaptive build. The program's tool wins, as it would over any
 * other tool linked in; without ompadapt's OMPT tool the runtime refuses `cpu` where it needs the
 * extents only that tool records. */
#include <omp-tools.h>
#include <stdio.h>

static int started;

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data) {
  (void)lookup, (void)device, (void)data;
  started = 1;
  return 1;
}
static void finalize(ompt_data_t *data) { (void)data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime_version) {
  (void)version, (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}

int main(void) {
  long a[256], s = 0;
  for (int i = 0; i < 256; i++) a[i] = i;
#pragma omp target map(tofrom : a)
  for (int i = 0; i < 256; i++) a[i] *= 3;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < 256; i++) s += a[i];
  printf("tool started %d sum %ld\n", started, s);
  return 0;
}
