/* A data environment that allocates a work array but whose kernel is skipped (a condition
 * that is false for this input): the allocation is never used. FIXED allocates only when the
 * kernel runs. */
#include "common.h"
int main(int argc, char **argv) {
  int n = 1024;
  int refine = argc > 5; /* false here */
  double *a = malloc(n * sizeof *a), *work = malloc(n * sizeof *work);
  for (int i = 0; i < n; i++) a[i] = i;
#ifndef FIXED
#pragma omp target data map(alloc: work[0:n]) /* @data */
#else
  if (refine)
#pragma omp target data map(alloc: work[0:n]) /* @data */
#endif
  {
    if (refine) {
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) /* @kernel */
      for (int i = 0; i < n; i++) a[i] += work[i];
    }
  }
  PRINT_SUM("a", a, n);
  return 0;
}
