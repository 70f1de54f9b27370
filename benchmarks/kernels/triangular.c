/* Triangular work: N particles, each step every particle sums a softened inverse distance to
 * the particles before it (row i does i interactions, as in a symmetric pair loop over j < i),
 * then all move a little along their sums (STEPS steps, default 10). A host `parallel for` with
 * the static schedule as written gives the first half of the rows, a quarter of the work, to
 * one thread: on two cores a dynamic schedule finishes in about 2/3 of its time, while a small
 * N's step takes less than forking a team (serial wins). Every row is summed in the same order
 * by whichever thread runs it, so the result equals the serial reference exactly.
 * Feature: N. Usage: triangular N [STEPS]. */
#define BENCH_HOST_ONLY
#include "bench.h"

static double chosen;

static inline double row_sum(const double *x, const double *y, const double *z, long i) {
  double acc = 0;
  for (long j = 0; j < i; ++j) {
    double dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
    acc += 1.0 / sqrt(dx * dx + dy * dy + dz * dz + 0.01);
  }
  return acc;
}

static void move(double *x, double *y, double *z, const double *phi, long n) {
  for (long i = 0; i < n; ++i) {
    double d = 1e-4 * phi[i] / (double)n;
    x[i] += d, y[i] -= d, z[i] += 0.5 * d;
  }
}

int main(int argc, char **argv) {
  long n = bench_arg(argc, argv, 1, 1024), steps = bench_arg(argc, argv, 2, 10);
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z), *phi = malloc(n * sizeof *phi);
  double *rx = malloc(n * sizeof *rx), *ry = malloc(n * sizeof *ry), *rz = malloc(n * sizeof *rz), *rphi = malloc(n * sizeof *rphi);
  for (long i = 0; i < n; ++i) {
    x[i] = rx[i] = bench_unit(3 * i);
    y[i] = ry[i] = bench_unit(3 * i + 1);
    z[i] = rz[i] = bench_unit(3 * i + 2);
  }
  bench_region reg = {"pairs", {0}};

  bench_clock clk;
  bench_start(&clk);
  for (long s = 0; s < steps; ++s) {
#pragma omp adaptation model_name(pairs) features(n) variants(BENCH_KINDS) model_output(chosen)
#pragma omp parallel for
    for (long i = 0; i < n; ++i)
      phi[i] = row_sum(x, y, z, i);
    bench_count(&reg, chosen);
    bench_step(&clk);
    move(x, y, z, phi, n);
  }
  bench_stop(&clk);

  for (long s = 0; s < steps; ++s) {
    for (long i = 0; i < n; ++i) rphi[i] = row_sum(rx, ry, rz, i);
    move(rx, ry, rz, rphi, n);
  }
  double err = 0;
  for (long i = 0; i < n; ++i) err = fmax(err, fmax(fabs(phi[i] - rphi[i]), fabs(x[i] - rx[i])));
  bench_report("triangular", n, steps, &clk, err, 0.0, &reg, 1);
  return 0;
}
