/* Kernels in helper functions called inside the caller's `target data` region (the common
 * HeCBench structure: main maps the arrays once, helpers launch kernels on them without map
 * clauses). The helpers' functions do not show the data environment: their arrays are present
 * on the device, and their host copies are stale until the region ends. */
#include <stdio.h>
#include <stdlib.h>

#define N 5000
#define STEPS 40

static void smooth(double *restrict out, const double *restrict in, int n) {
#pragma omp target teams distribute parallel for
  for (int i = 1; i < n - 1; i++) out[i] = (in[i - 1] + 2.0 * in[i] + in[i + 1]) * 0.25;
}

static void relax(double *u, const double *v, double w, int n) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++) u[i] = (1.0 - w) * u[i] + w * v[i];
}

static void serial(double *a, double *b, int n) {
  for (int s = 0; s < STEPS; s++) {
    for (int i = 1; i < n - 1; i++) b[i] = (a[i - 1] + 2.0 * a[i] + a[i + 1]) * 0.25;
    for (int i = 0; i < n; i++) a[i] = (1.0 - 0.5) * a[i] + 0.5 * b[i];
  }
}

int main(void) {
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  double *ra = malloc(N * sizeof *ra), *rb = malloc(N * sizeof *rb);
  for (int i = 0; i < N; i++) a[i] = ra[i] = (i % 40 < 20) ? 1.0 : -1.0, b[i] = rb[i] = 0.0;
#pragma omp target data map(tofrom: a[0:N]) map(to: b[0:N])
  {
    for (int s = 0; s < STEPS; s++) {
      smooth(b, a, N);
      relax(a, b, 0.5, N);
    }
  }
  serial(ra, rb, N);
  int ok = 1;
  double sum = 0, sq = 0;
  for (int i = 0; i < N; i++) ok &= a[i] == ra[i], sum += a[i], sq += a[i] * a[i];
  printf("caller_data_env n=%d steps=%d sum=%.12e sumsq=%.12e\n", N, STEPS, sum, sq);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
