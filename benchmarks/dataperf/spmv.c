#include "common.h"
int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 1 << 18), iters = arg(argc, argv, 2, 30), nnz_row = 16;
  int *rowp = malloc((n + 1) * sizeof *rowp), *col = malloc((size_t)n * nnz_row * sizeof *col);
  double *val = malloc((size_t)n * nnz_row * sizeof *val), *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  for (int i = 0; i <= n; i++) rowp[i] = i * nnz_row;
  for (long k = 0; k < (long)n * nnz_row; k++) { col[k] = (int)((k * 7919) % n); val[k] = 1.0 / (1 + k % 13); }
  for (int i = 0; i < n; i++) x[i] = 1.0;
  int nnz = n * nnz_row;
#pragma omp target data map(to: rowp[0:n+1], col[0:nnz], val[0:nnz]) map(alloc: x[0:n], y[0:n])
  for (int it = 0; it < iters; it++) {
#pragma omp target update to(x[0:n])
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int k = rowp[i]; k < rowp[i + 1]; k++) s += val[k] * x[col[k]];
      y[i] = s;
    }
#pragma omp target update from(y[0:n])
    double norm = 0;
    for (int i = 0; i < n; i++) norm += y[i] * y[i];
    norm = sqrt(norm);
    for (int i = 0; i < n; i++) x[i] = y[i] / norm;
  }
  printf("CHECK x0=%.9f\n", x[0]);
  return 0;
}
