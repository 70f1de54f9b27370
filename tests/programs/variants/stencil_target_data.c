/* HeCBench style: a 40-step stencil inside `target data`, one adaptive kernel per step
 * (variants cpu and gpu of one ordinary `target teams distribute parallel for`), a plain
 * kernel after it. Whatever sequence of variants runs, the result must be bit-identical to
 * the serial loop: the cpu variant must work on the device copies (brought to the host before
 * it, sent back after it). */
#include "../common.h"
#include <math.h>
#include <string.h>

#define STEPS 40

static void serial(double *u, double *v, int n) {
  for (int t = 0; t < STEPS; ++t) {
    for (int i = 1; i < n - 1; ++i) v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1] + 0.001 * t;
    for (int i = 1; i < n - 1; ++i) u[i] = v[i];
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2048;
  double *u = (double *)malloc(n * sizeof(double)), *v = (double *)calloc(n, sizeof(double));
  double *ref = (double *)malloc(n * sizeof(double)), *rv = (double *)calloc(n, sizeof(double));
  for (int i = 0; i < n; ++i) u[i] = ref[i] = (i * 37 % 101) / 7.0;
#pragma omp target data map(tofrom: u[0:n]) map(to: v[0:n])
  {
    for (int t = 0; t < STEPS; ++t) {
#pragma omp adaptation model_name(stencil) features(n) variants(cpu, gpu)
#pragma omp target teams distribute parallel for
      for (int i = 1; i < n - 1; ++i) v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1] + 0.001 * t;
#pragma omp target teams distribute parallel for
      for (int i = 1; i < n - 1; ++i) u[i] = v[i];
    }
  }
  serial(ref, rv, n);
  double err = 0;
  for (int i = 0; i < n; ++i) err = fabs(u[i] - ref[i]) > err ? fabs(u[i] - ref[i]) : err;
  printf("RESULT max_error=%g\n", err);
  return err == 0 ? 0 : 2;
}
