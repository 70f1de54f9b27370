/* Power iteration with a CSR sparse matrix (HeCBench spmv style): an SpMV kernel, a max
 * reduction and a scaling kernel per iteration, inside `target data`, integer index arrays
 * mapped alongside the values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 3000
#define PER_ROW 5
#define ITERS 25

static void build(int *rowptr, int *col, double *val, int n) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    rowptr[i] = k;
    for (int d = 0; d < PER_ROW; d++) {
      col[k] = (i + d * d * 7 + d) % n;
      val[k] = 1.0 + ((i + d) % 4) * 0.25;
      k++;
    }
  }
  rowptr[n] = k;
}

static double power(const int *rowptr, const int *col, const double *val, double *x, double *y, int n, int iters) {
  int nnz = rowptr[n];
  double lambda = 0;
#pragma omp target data map(to: rowptr[0:n + 1], col[0:nnz], val[0:nnz]) map(tofrom: x[0:n]) map(alloc: y[0:n])
  for (int it = 0; it < iters; it++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int k = rowptr[i]; k < rowptr[i + 1]; k++) s += val[k] * x[col[k]];
      y[i] = s;
    }
    double m = 0;
#pragma omp target teams distribute parallel for reduction(max: m)
    for (int i = 0; i < n; i++) m = fabs(y[i]) > m ? fabs(y[i]) : m;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) x[i] = y[i] / m;
    lambda = m;
  }
  return lambda;
}

int main(void) {
  int *rowptr = malloc((ROWS + 1) * sizeof *rowptr), *col = malloc(ROWS * PER_ROW * sizeof *col);
  double *val = malloc(ROWS * PER_ROW * sizeof *val);
  double *x = malloc(ROWS * sizeof *x), *y = malloc(ROWS * sizeof *y), *rx = malloc(ROWS * sizeof *rx), *ry = malloc(ROWS * sizeof *ry);
  build(rowptr, col, val, ROWS);
  for (int i = 0; i < ROWS; i++) x[i] = rx[i] = 1.0 + (i % 10) * 0.1;
  double lambda = power(rowptr, col, val, x, y, ROWS, ITERS);
  double rl = 0;
  for (int it = 0; it < ITERS; it++) {
    double m = 0;
    for (int i = 0; i < ROWS; i++) {
      double s = 0;
      for (int k = rowptr[i]; k < rowptr[i + 1]; k++) s += val[k] * rx[col[k]];
      ry[i] = s;
      m = fabs(s) > m ? fabs(s) : m;
    }
    for (int i = 0; i < ROWS; i++) rx[i] = ry[i] / m;
    rl = m;
  }
  int ok = lambda == rl;
  double sum = 0;
  for (int i = 0; i < ROWS; i++) ok &= x[i] == rx[i], sum += x[i];
  printf("spmv_power rows=%d iters=%d lambda=%.12e sum(x)=%.12e\n", ROWS, ITERS, lambda, sum);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
