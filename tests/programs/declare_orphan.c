/* An associated region whose primary exists nowhere in the program: one clear line at run
 * time, and the region runs none of its variants (its statement runs as plain code). */
#include "common.h"

int main(void) {
  double s = 0;
  int n = 1000;
#pragma omp declare adaptation use_model(nowhere) variant_mapping(1)
#pragma omp metadirective when(: parallel for reduction(+: s))
  for (int i = 0; i < n; ++i)
    s += i;
  for (int k = 0; k < 3; ++k) {
#pragma omp declare adaptation use_model(nowhere) variant_mapping(0)
#pragma omp metadirective when(: barrier)
  }
  printf("RESULT %s\n", s == n * (n - 1) / 2.0 ? "ok" : "wrong");
  return 0;
}
