/* Independent kernels launched asynchronously (HeCBench style: `nowait` on each, then
 * `taskwait`), one with `depend` chaining two kernels, then a synchronous kernel that combines
 * the results. A zero-source-change rebuild must leave the asynchronous constructs as written. */
#include <stdio.h>
#include <stdlib.h>

#define N 8192
#define ROUNDS 12

int main(void) {
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *z = malloc(N * sizeof *z);
  for (int i = 0; i < N; i++) a[i] = (i % 17) * 0.25, b[i] = (i % 5) * 0.5;
  int ok = 1;
  double total = 0;
  for (int r = 0; r < ROUNDS; r++) {
    double s = r * 0.125;
#pragma omp target teams distribute parallel for map(to: a[0:N]) map(from: x[0:N]) nowait
    for (int i = 0; i < N; i++) x[i] = a[i] * 2.0 + s;
#pragma omp target teams distribute parallel for map(to: b[0:N]) map(from: y[0:N]) nowait depend(out: y[0:N])
    for (int i = 0; i < N; i++) y[i] = b[i] - s;
#pragma omp target teams distribute parallel for map(tofrom: y[0:N]) nowait depend(inout: y[0:N])
    for (int i = 0; i < N; i++) y[i] = y[i] * 0.5;
#pragma omp taskwait
#pragma omp target teams distribute parallel for map(to: x[0:N], y[0:N]) map(from: z[0:N])
    for (int i = 0; i < N; i++) z[i] = x[i] + y[i];
    for (int i = 0; i < N; i++) {
      double e = (a[i] * 2.0 + s) + (b[i] - s) * 0.5;
      ok &= z[i] == e;
      total += z[i];
    }
  }
  printf("nowait_taskwait n=%d rounds=%d total=%.6f\n", N, ROUNDS, total);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
