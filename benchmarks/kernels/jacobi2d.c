/* 2D Jacobi sweep on an N x N grid (a 5-point average with fixed boundaries), STEPS sweeps
 * (default 100): regular, fine-grained work in a host `parallel for collapse(2)`, as CPU-only
 * codes write their stencils. On a few cores the best choice changes with N: a small grid's
 * sweep takes less than forking and joining a team (serial wins), a large one is split evenly
 * by the static schedule as written, while a dynamic schedule of 16 cells pays its per-chunk
 * cost on every 16 cells. Feature: N. Usage: jacobi2d N [STEPS]. */
#define BENCH_HOST_ONLY
#include "bench.h"

static double chosen;

#define SWEEP(u, w, i, j, n) \
  w[(i) * (n) + (j)] = 0.25 * (u[((i) - 1) * (n) + (j)] + u[((i) + 1) * (n) + (j)] + u[(i) * (n) + (j) - 1] + u[(i) * (n) + (j) + 1])

int main(int argc, char **argv) {
  long n = bench_arg(argc, argv, 1, 256), steps = bench_arg(argc, argv, 2, 100);
  long nn = n * n;
  double *u = malloc(nn * sizeof *u), *w = malloc(nn * sizeof *w);
  double *ref = malloc(nn * sizeof *ref), *tmp = malloc(nn * sizeof *tmp);
  for (long c = 0; c < nn; ++c) u[c] = w[c] = ref[c] = tmp[c] = (c / n == 0) ? 1.0 : bench_unit(c);
  bench_region reg = {"jacobi", {0}};

  bench_clock clk;
  bench_start(&clk);
  for (long s = 0; s < steps; ++s) {
#pragma omp adaptation model_name(jacobi) features(n) variants(BENCH_KINDS) model_output(chosen)
#pragma omp parallel for collapse(2)
    for (long i = 1; i < n - 1; ++i)
      for (long j = 1; j < n - 1; ++j)
        SWEEP(u, w, i, j, n);
    bench_count(&reg, chosen);
    bench_step(&clk);
    double *t = u; u = w; w = t;
  }
  bench_stop(&clk);

  for (long s = 0; s < steps; ++s) {
    for (long i = 1; i < n - 1; ++i)
      for (long j = 1; j < n - 1; ++j)
        SWEEP(ref, tmp, i, j, n);
    double *t = ref; ref = tmp; tmp = t;
  }
  double err = 0;
  for (long c = 0; c < nn; ++c) err = fmax(err, fabs(u[c] - ref[c]));
  bench_report("jacobi2d", n, steps, &clk, err, 0.0, &reg, 1);
  return 0;
}
