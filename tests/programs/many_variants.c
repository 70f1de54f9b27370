/* A region with 1001 variants (Georgakoudis et al.'s fractions `[0:1:0.001]`): it compiles, and the
 * runtime explores it (each execution gets one of the declared values). Prints
 * `VALUE x` per execution. */
#include "common.h"

static double frac;

int main(void) {
  double work = 0;
  for (int k = 0; k < 1100; ++k) {
#pragma omp adaptation model_name(split) features(k % 2) variants([0:1:0.001]) model_output(frac)
    work += frac;
    printf("VALUE %.3f\n", frac);
  }
  return work >= 0 ? 0 : 1;
}
