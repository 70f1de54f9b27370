/* 2D heat equation, explicit finite differences (HeCBench `heat`), in a heterogeneous medium:
 * a 5-point stencil weighted by each cell's conductivity on an N x N grid with fixed
 * boundaries, STEPS time steps (default 20). Feature: N. */
#define BENCH_HAS_THREADS /* Georgakoudis et al. Table 3: GPU threads */
#include "bench.h"

static double chosen;

#define STENCIL(u, w, k, i, j, n) \
  w[(i) * (n) + (j)] = u[(i) * (n) + (j)] + 0.2 * k[(i) * (n) + (j)] * \
      (u[((i) - 1) * (n) + (j)] + u[((i) + 1) * (n) + (j)] + u[(i) * (n) + (j) - 1] + u[(i) * (n) + (j) + 1] - 4.0 * u[(i) * (n) + (j)])

int main(int argc, char **argv) {
  long n = bench_arg(argc, argv, 1, 256), steps = bench_arg(argc, argv, 2, 20);
  long nn = n * n;
  double *u = malloc(nn * sizeof *u), *w = malloc(nn * sizeof *w), *k = malloc(nn * sizeof *k);
  double *ref = malloc(nn * sizeof *ref), *tmp = malloc(nn * sizeof *tmp);
  for (long c = 0; c < nn; ++c) {
    u[c] = w[c] = ref[c] = tmp[c] = (c / n == 0) ? 100.0 : bench_unit(c);
    k[c] = 0.5 + 0.5 * bench_unit(c + nn);
  }
  bench_region reg = {"heat", {0}};

  bench_clock clk;
  bench_start(&clk);
#pragma omp target data map(to: k[0:nn]) STATE_DATA(tofrom: u[0:nn], w[0:nn])
  for (long s = 0; s < steps; ++s) {
#pragma omp adaptation model_name(heat) features(n) variants(BENCH_KINDS) model_output(chosen)
#pragma omp target teams distribute parallel for collapse(2) STATE_LAUNCH(to: u[0:nn]) STATE_LAUNCH(tofrom: w[0:nn])
    for (long i = 1; i < n - 1; ++i)
      for (long j = 1; j < n - 1; ++j)
        STENCIL(u, w, k, i, j, n);
    bench_count(&reg, chosen);
    bench_step(&clk);
    double *t = u; u = w; w = t;
  }
  bench_stop(&clk);

  for (long s = 0; s < steps; ++s) {
    for (long i = 1; i < n - 1; ++i)
      for (long j = 1; j < n - 1; ++j)
        STENCIL(ref, tmp, k, i, j, n);
    double *t = ref; ref = tmp; tmp = t;
  }
  double err = 0;
  for (long c = 0; c < nn; ++c) err = fmax(err, fabs(u[c] - ref[c]));
  bench_report("heat2d", n, steps, &clk, err, 1e-12, &reg, 1);
  return 0;
}
