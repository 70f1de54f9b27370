/* A scratch array allocated and deleted by every kernel of a time-step loop; its content
 * differs each step, so only the allocations repeat. FIXED allocates it once. */
#include "common.h"
#define STEPS 6
int main(void) {
  int n = 4096;
  double *out = malloc(n * sizeof *out);
  double sum = 0;
#ifdef FIXED
#pragma omp target enter data map(alloc: out[0:n]) /* @enter */
#endif
  for (int s = 0; s < STEPS; s++) { /* @loop */
#ifdef FIXED
#pragma omp target teams distribute parallel for /* @step-fixed */
#else
#pragma omp target teams distribute parallel for map(from: out[0:n]) /* @step */
#endif
    for (int i = 0; i < n; i++) out[i] = s * 1000.0 + i;
#ifdef FIXED
#pragma omp target update from(out[0:n]) /* @update */
#endif
    sum += checksum(out, n);
  }
#ifdef FIXED
#pragma omp target exit data map(delete: out[0:n]) /* @exit */
#endif
  printf("CHECK sum=%.6f\n", sum);
  return 0;
}
