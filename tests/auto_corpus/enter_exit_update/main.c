/* Unstructured data mapping in one function (HeCBench style): `target enter data` before the
 * time-step loop, `target update from` every few steps for monitoring on the host, a boundary
 * value changed on the host and sent with `target update to`, `target exit data` at the end. */
#include <stdio.h>
#include <stdlib.h>

#define N 6000
#define STEPS 45

static void serial(double *u, double *t, int n) {
  for (int s = 0; s < STEPS; s++) {
    if (s % 15 == 14) u[0] = u[n - 1] = s * 0.01;
    for (int i = 1; i < n - 1; i++) t[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0;
    for (int i = 1; i < n - 1; i++) u[i] = t[i];
  }
}

int main(void) {
  double *u = malloc(N * sizeof *u), *t = malloc(N * sizeof *t), *r = malloc(N * sizeof *r), *rt = malloc(N * sizeof *rt);
  for (int i = 0; i < N; i++) u[i] = r[i] = (i % 50 == 0) ? 1.0 : 0.0;
  int n = N;
#pragma omp target enter data map(to: u[0:n]) map(alloc: t[0:n])
  for (int s = 0; s < STEPS; s++) {
    if (s % 15 == 14) {
      u[0] = u[n - 1] = s * 0.01;
#pragma omp target update to(u[0:1])
#pragma omp target update to(u[n - 1:1])
    }
#pragma omp target teams distribute parallel for
    for (int i = 1; i < n - 1; i++) t[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0;
#pragma omp target teams distribute parallel for
    for (int i = 1; i < n - 1; i++) u[i] = t[i];
    if (s % 9 == 8) {
#pragma omp target update from(u[0:n])
      double m = 0;
      for (int i = 0; i < n; i++) m = u[i] > m ? u[i] : m;
      printf("step %d max=%.12e\n", s, m);
    }
  }
#pragma omp target exit data map(from: u[0:n]) map(delete: t[0:n])
  serial(r, rt, N);
  int ok = 1;
  double sum = 0;
  for (int i = 0; i < N; i++) ok &= u[i] == r[i], sum += u[i];
  printf("enter_exit_update n=%d steps=%d checksum=%.12e\n", N, STEPS, sum);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
