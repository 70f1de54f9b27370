/* corpus: team-size invariant (prints the same for every team size of every region) */
/* A Jacobi sweep over a small and a large grid (collapse(2)), and the residual (a reduction),
 * many time steps: small grids lose to their own fork/join. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sweep(int n, const double *u, double *w) {
#pragma omp parallel for collapse(2) // expect: adaptive
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < n - 1; ++j)
      w[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
}

static double residual(int n, const double *u, const double *w) {
  double r = 0;
#pragma omp parallel for reduction(max : r) // expect: adaptive
  for (int i = 0; i < n * n; ++i) {
    double d = u[i] > w[i] ? u[i] - w[i] : w[i] - u[i];
    if (d > r) r = d;
  }
  return r;
}

static void run(int n, int steps) {
  double *u = calloc((size_t)n * n, sizeof *u), *w = calloc((size_t)n * n, sizeof *w);
  for (int i = 0; i < n; ++i) u[i] = w[i] = 1.0;
  double r = 0;
  for (int t = 0; t < steps; ++t) {
    sweep(n, u, w);
    r = residual(n, u, w);
    double *x = u;
    u = w;
    w = x;
  }
  double s = 0;
  for (int i = 0; i < n * n; ++i) s += u[i] * (1 + i % 5);
  printf("n=%d steps=%d residual=%.17g checksum=%.17g\n", n, steps, r, s);
  free(u);
  free(w);
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 60;
  run(12, steps);
  run(400, steps / 6 + 1);
  return 0;
}
