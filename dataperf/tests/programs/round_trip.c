/* Listing 2 of the OMPDataPerf paper: a kernel called in a loop with implicit/tofrom mapping; the
 * result goes back to the host and comes back unmodified. FIXED keeps the array on the device. */
#include "common.h"
#define STEPS 8
int main(void) {
  int n = 2048;
  double *a = malloc(n * sizeof *a);
  for (int i = 0; i < n; i++) a[i] = i;
#ifdef FIXED
#pragma omp target data map(tofrom: a[0:n]) /* @data */
#endif
  for (int s = 0; s < STEPS; s++) { /* @loop */
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) /* @step */
    for (int i = 0; i < n; i++) a[i] = 0.5 * a[i] + 1;
  }
  PRINT_SUM("a", a, n);
  return 0;
}
