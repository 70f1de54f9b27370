/* 2D fluid simulation with the lattice-Boltzmann method (HeCBench-style FluidSim): D2Q9,
 * BGK collision, pull streaming on a periodic N x N lattice with solid obstacles (bounce-back),
 * STEPS steps (default 10). Feature: N. */
#define BENCH_HAS_THREADS /* Georgakoudis et al. Table 3: GPU threads */
#include "bench.h"

static double chosen;

/* One cell: pull from the neighbours, then bounce back (solid) or relax towards equilibrium. */
#define LBM_CELL(f, fn, solid, i, j, n, nn)                                                      \
  do {                                                                                           \
    const int cx[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1}, cy[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};    \
    const int opp[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};                                              \
    const double wq[9] = {4.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36}; \
    double fin[9], rho = 0, ux = 0, uy = 0;                                                      \
    long c = (i) * (n) + (j);                                                                    \
    for (int q = 0; q < 9; ++q) {                                                                \
      long si = ((i) - cy[q] + (n)) % (n), sj = ((j) - cx[q] + (n)) % (n);                       \
      fin[q] = f[q * (nn) + si * (n) + sj];                                                      \
      rho += fin[q], ux += cx[q] * fin[q], uy += cy[q] * fin[q];                                 \
    }                                                                                            \
    if (solid[c]) {                                                                              \
      for (int q = 0; q < 9; ++q) fn[q * (nn) + c] = fin[opp[q]];                                \
    } else {                                                                                     \
      ux /= rho, uy /= rho;                                                                      \
      double uu = 1.5 * (ux * ux + uy * uy);                                                     \
      for (int q = 0; q < 9; ++q) {                                                              \
        double cu = 3.0 * (cx[q] * ux + cy[q] * uy);                                             \
        double feq = wq[q] * rho * (1.0 + cu + 0.5 * cu * cu - uu);                              \
        fn[q * (nn) + c] = fin[q] - 1.7 * (fin[q] - feq);                                        \
      }                                                                                          \
    }                                                                                            \
  } while (0)

int main(int argc, char **argv) {
  long n = bench_arg(argc, argv, 1, 128), steps = bench_arg(argc, argv, 2, 10);
  long nn = n * n, nf = 9 * nn;
  double *f = malloc(nf * sizeof *f), *fn = malloc(nf * sizeof *fn), *ref = malloc(nf * sizeof *ref), *tmp = malloc(nf * sizeof *tmp);
  unsigned char *solid = malloc(nn);
  for (long c = 0; c < nn; ++c) {
    long i = c / n, j = c % n;
    /* a cylinder and the walls at the top and bottom */
    solid[c] = (i == 0 || i == n - 1 || (i - n / 2) * (i - n / 2) + (j - n / 4) * (j - n / 4) < (n / 10) * (n / 10));
    for (int q = 0; q < 9; ++q) f[q * nn + c] = ref[q * nn + c] = (q == 0 ? 4.0 / 9 : q < 5 ? 1.0 / 9 : 1.0 / 36) * (1.0 + 0.05 * bench_unit(q * nn + c));
  }
  memcpy(fn, f, nf * sizeof *f);
  memcpy(tmp, f, nf * sizeof *f);
  bench_region reg = {"lbm", {0}};

  bench_clock clk;
  bench_start(&clk);
#pragma omp target data map(to: solid[0:nn]) STATE_DATA(tofrom: f[0:nf], fn[0:nf])
  for (long s = 0; s < steps; ++s) {
#pragma omp adaptation model_name(lbm) features(n) variants(BENCH_KINDS) model_output(chosen)
#pragma omp target teams distribute parallel for collapse(2) STATE_LAUNCH(to: f[0:nf]) STATE_LAUNCH(from: fn[0:nf])
    for (long i = 0; i < n; ++i)
      for (long j = 0; j < n; ++j)
        LBM_CELL(f, fn, solid, i, j, n, nn);
    bench_count(&reg, chosen);
    bench_step(&clk);
    double *t = f; f = fn; fn = t;
  }
  bench_stop(&clk);

  for (long s = 0; s < steps; ++s) {
    for (long i = 0; i < n; ++i)
      for (long j = 0; j < n; ++j)
        LBM_CELL(ref, tmp, solid, i, j, n, nn);
    double *t = ref; ref = tmp; tmp = t;
  }
  double err = 0;
  for (long c = 0; c < nf; ++c) err = fmax(err, fabs(f[c] - ref[c]));
  bench_report("lbm2d", n, steps, &clk, err, 1e-12, &reg, 1);
  return 0;
}
