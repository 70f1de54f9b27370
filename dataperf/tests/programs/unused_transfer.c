/* Initial values copied to the device and overwritten by an update before any kernel read
 * them, and a final update after the last kernel. FIXED allocates first and copies once. */
#include "common.h"
int main(void) {
  int n = 4096;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  for (int i = 0; i < n; i++) a[i] = 0;
#ifdef FIXED
#pragma omp target enter data map(alloc: a[0:n]) map(alloc: b[0:n]) /* @enter-fixed */
#else
#pragma omp target enter data map(to: a[0:n]) map(alloc: b[0:n]) /* @enter */
#endif
  for (int i = 0; i < n; i++) a[i] = i * 0.25;
#pragma omp target update to(a[0:n]) /* @update */
#pragma omp target teams distribute parallel for /* @kernel */
  for (int i = 0; i < n; i++) b[i] = a[i] * a[i];
#ifndef FIXED
  for (int i = 0; i < n; i++) a[i] = -1;
#pragma omp target update to(a[0:n]) /* @late */
#endif
#pragma omp target exit data map(from: b[0:n]) map(delete: a[0:n]) /* @exit */
  PRINT_SUM("b", b, n);
  return 0;
}
