#include "common.h"
int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 768), steps = arg(argc, argv, 2, 200);
  double *u = calloc((size_t)n * n, sizeof *u), *v = calloc((size_t)n * n, sizeof *v);
  for (int i = 0; i < n; i++) u[i] = v[i] = 100.0; /* hot top edge */
  double res = 0;
#pragma omp target data map(tofrom: u[0:n*n]) map(to: v[0:n*n])
  for (int s = 0; s < steps; s++) {
    res = 0;
#pragma omp target teams distribute parallel for collapse(2) reduction(+: res)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++) {
        double x = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
        res += fabs(x - u[i * n + j]);
        v[i * n + j] = x;
      }
    double *t = u; u = v; v = t;
  }
  printf("CHECK res=%.6e\n", res);
  return 0;
}
