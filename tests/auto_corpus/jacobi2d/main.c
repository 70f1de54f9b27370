/* 2D Jacobi relaxation (HeCBench jacobi-omp style): one `target data` region around the
 * time-step loop, two collapse(2) kernels per step (update, then residual with a max reduction
 * and copy back), a kernel before the loop. Checked against the same iteration run serially. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 96
#define STEPS 60

static void init(double *u, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) u[i * n + j] = (i == 0) ? 1.0 : (j == 0 ? 0.5 : 0.0);
}

static double relax(double *u, double *unew, int n, int steps) {
  double resid = 0.0;
#pragma omp target data map(tofrom: u[0:n * n]) map(alloc: unew[0:n * n])
  {
#pragma omp target teams distribute parallel for collapse(2)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) unew[i * n + j] = u[i * n + j];

    for (int s = 0; s < steps; s++) {
#pragma omp target teams distribute parallel for collapse(2)
      for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
          unew[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);

      resid = 0.0;
#pragma omp target teams distribute parallel for collapse(2) reduction(max: resid)
      for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++) {
          double d = fabs(unew[i * n + j] - u[i * n + j]);
          if (d > resid) resid = d;
          u[i * n + j] = unew[i * n + j];
        }
    }
  }
  return resid;
}

static double relax_serial(double *u, double *unew, int n, int steps) {
  double resid = 0.0;
  for (int i = 0; i < n * n; i++) unew[i] = u[i];
  for (int s = 0; s < steps; s++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        unew[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
    resid = 0.0;
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++) {
        double d = fabs(unew[i * n + j] - u[i * n + j]);
        if (d > resid) resid = d;
        u[i * n + j] = unew[i * n + j];
      }
  }
  return resid;
}

int main(void) {
  double *u = malloc(N * N * sizeof *u), *unew = malloc(N * N * sizeof *unew);
  double *r = malloc(N * N * sizeof *r), *rnew = malloc(N * N * sizeof *rnew);
  init(u, N);
  init(r, N);
  double resid = relax(u, unew, N, STEPS);
  double rresid = relax_serial(r, rnew, N, STEPS);
  double sum = 0.0, rsum = 0.0;
  for (int i = 0; i < N * N; i++) sum += u[i], rsum += r[i];
  printf("jacobi2d n=%d steps=%d residual=%.12e checksum=%.12e\n", N, STEPS, resid, sum);
  int ok = resid == rresid && sum == rsum;
  printf("%s\n", ok ? "PASS" : "FAIL");
  free(u), free(unew), free(r), free(rnew);
  return ok ? 0 : 1;
}
