/* Listing 1 of the OMPDataPerf paper: the same input mapped to two consecutive target regions.
 * FIXED maps it once around both. */
#include "common.h"
int main(void) {
  int n = 4096;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  for (int i = 0; i < n; i++) a[i] = i * 0.5;
#ifdef FIXED
#pragma omp target data map(to: a[0:n]) /* @data */
  {
#endif
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: b[0:n]) /* @first */
  for (int i = 0; i < n; i++) b[i] = a[i] + 1;
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: c[0:n]) /* @second */
  for (int i = 0; i < n; i++) c[i] = a[i] * 2;
#ifdef FIXED
  }
#endif
  PRINT_SUM("b", b, n);
  PRINT_SUM("c", c, n);
  return 0;
}
