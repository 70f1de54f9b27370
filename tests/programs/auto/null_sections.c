/* A kernel handed a null pointer with a zero-length section, as XSBench passes the grids its
 * mode does not use: under the cpu variant the runtime must not ask libomptarget about the null
 * pointer (it prints "omptarget error: Call to omp_get_mapped_ptr with nullptr"). */
#include <stdio.h>
#include <stdlib.h>

static double sum(const double *x, const int *unused, int n, int m) {
  double s = 0;
#pragma omp target teams distribute parallel for reduction(+: s) map(to: x[0:n], unused[0:m])
  for (int i = 0; i < n; ++i) s += x[i] + (m > 0 ? unused[i % m] : 0);
  return s;
}

int main(void) {
  int n = 1000;
  double *x = malloc(n * sizeof *x);
  for (int i = 0; i < n; ++i) x[i] = i % 7;
  printf("sum=%.1f\n", sum(x, NULL, n, 0));
  free(x);
  return 0;
}
