/* Frees device memory it never mapped or allocated through OpenMP (OMPDataPerf's analysis has
 * undefined behaviour there), then does ordinary work. With the host plugin "device" memory
 * is host memory, so the pointer freed is a malloc'ed one. */
#include "common.h"
int main(void) {
  int n = 512, dev = omp_get_default_device();
  void *never_mapped = malloc(256);
  omp_target_free(never_mapped, dev); /* @free */
  omp_target_free(NULL, dev);
  double *a = malloc(n * sizeof *a);
  for (int i = 0; i < n; i++) a[i] = i;
  double *d = omp_target_alloc(n * sizeof *d, dev); /* @alloc */
  omp_target_memcpy(d, a, n * sizeof *d, 0, 0, dev, omp_get_initial_device());
#pragma omp target teams distribute parallel for is_device_ptr(d) /* @kernel */
  for (int i = 0; i < n; i++) d[i] *= 3;
  omp_target_memcpy(a, d, n * sizeof *d, 0, 0, omp_get_initial_device(), dev);
  omp_target_free(d, dev); /* @free2 */
  PRINT_SUM("a", a, n);
  return 0;
}
