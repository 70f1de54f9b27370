/* Plain OpenMP offload code written the way HeCBench's programs are: a target data region
 * around the time-step loop, one kernel per step, macros, reductions, atomics, tasks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 256
#define IDX(i, j, n) ((i) * (n) + (j))

static double norm(const double *u, int n) {
  double s = 0;
#pragma omp parallel for reduction(+: s) schedule(static)
  for (int i = 0; i < n * n; ++i)
    s += u[i] * u[i];
  return sqrt(s);
}

int heat(int n, int steps) {
  double *u = calloc((size_t)n * n, sizeof *u), *v = calloc((size_t)n * n, sizeof *v);
  if (!u || !v)
    return 1;
  u[IDX(n / 2, n / 2, n)] = 1.0;
#pragma omp target data map(tofrom: u[0:n*n]) map(alloc: v[0:n*n])
  {
    for (int t = 0; t < steps; ++t) {
#pragma omp target teams distribute parallel for collapse(2) thread_limit(BLOCK)
      for (int i = 1; i < n - 1; ++i)
        for (int j = 1; j < n - 1; ++j)
          v[IDX(i, j, n)] = 0.25 * (u[IDX(i - 1, j, n)] + u[IDX(i + 1, j, n)] + u[IDX(i, j - 1, n)] + u[IDX(i, j + 1, n)]);
      double *w = u;
      u = v;
      v = w;
    }
#pragma omp target update from(u[0:n*n])
  }
  int hits = 0;
#pragma omp parallel
  {
#pragma omp single
    for (int i = 0; i < n; ++i) {
#pragma omp task firstprivate(i) shared(hits)
      {
        if (u[IDX(i, i, n)] > 0) {
#pragma omp atomic
          hits++;
        }
      }
    }
#pragma omp taskwait
  }
#pragma omp metadirective when(user={condition(n > 64)}: parallel for) default(simd)
  for (int i = 0; i < n; ++i)
    v[i] = u[i];
  printf("%g %d\n", norm(u, n), hits);
  free(u);
  free(v);
  return 0;
}
