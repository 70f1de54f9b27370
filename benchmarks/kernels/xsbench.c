/* XSBench-like macroscopic cross-section lookups (Monte Carlo neutron transport): per lookup a
 * random energy and material; for each nuclide of the material a binary search in its energy
 * grid and a linear interpolation of 5 cross sections, summed weighted by concentration.
 * L lookups per batch (the feature, Georgakoudis et al. Table 3: "number of lookups"), BATCHES
 * batches (default 6). Usage: xsbench L [BATCHES]. */
#define BENCH_HAS_COSCHED /* Georgakoudis et al. Table 3: co-scheduling */
#include "bench.h"

static double chosen;

enum { NUCLIDES = 34, GRID = 1000, MATERIALS = 12, MAXNUC = 34 };

/* One lookup's 5 macroscopic cross sections. */
typedef struct {
  double xs[5];
} xs_result;

/* Binary search for the interval of `e` in the nuclide's grid, interpolation, accumulation.
 * Written so that co-scheduling can split the loop (the frontend must see that the loop writes
 * nothing but out[l]): one local per declaration, no casts of typedef'd names and no
 * parenthesised operands in it. */
#define XS_LOOKUP(egrid, xs, nucs, nnuc, conc, out, l, batch)                                     \
  do {                                                                                            \
    unsigned long long key = batch * 0x100000000ull + l;                                          \
    double e = bench_unit(key);                                                                   \
    int mat = bench_hash(key ^ 0x5555) % MATERIALS;                                               \
    double acc[5] = {0, 0, 0, 0, 0};                                                              \
    for (int k = 0; k < nnuc[mat]; ++k) {                                                         \
      int nuc = nucs[mat * MAXNUC + k];                                                           \
      const double *g = egrid + (long)nuc * GRID;                                                 \
      long lo = 0;                                                                                \
      long hi = GRID - 1;                                                                         \
      while (hi - lo > 1) {                                                                       \
        long mid = (lo + hi) / 2;                                                                 \
        if (g[mid] > e) hi = mid; else lo = mid;                                                  \
      }                                                                                           \
      double f = (e - g[lo]) / (g[hi] - g[lo]);                                                   \
      const double *x0 = xs + ((long)nuc * GRID + lo) * 5;                                        \
      const double *x1 = xs + ((long)nuc * GRID + hi) * 5;                                        \
      for (int c = 0; c < 5; ++c) acc[c] += conc[mat * MAXNUC + k] * (x0[c] + f * (x1[c] - x0[c])); \
    }                                                                                             \
    for (int c = 0; c < 5; ++c) out[l].xs[c] = acc[c];                                            \
  } while (0)

int main(int argc, char **argv) {
  long L = bench_arg(argc, argv, 1, 100000), batches = bench_arg(argc, argv, 2, 6);
  double *egrid = malloc(NUCLIDES * GRID * sizeof *egrid), *xs = malloc(NUCLIDES * GRID * 5 * sizeof *xs);
  for (long u = 0; u < NUCLIDES; ++u) {
    /* increasing energies from 0 to 1, spacing jittered */
    double e = 0;
    for (long g = 0; g < GRID; ++g) {
      egrid[u * GRID + g] = e;
      e += (0.5 + bench_unit(u * GRID + g)) / GRID;
    }
    for (long g = 0; g < GRID; ++g) egrid[u * GRID + g] /= e - (0.5 + bench_unit(u * GRID + GRID - 1)) / GRID;
    egrid[u * GRID + GRID - 1] = 1.0;
    for (long k = 0; k < GRID * 5; ++k) xs[u * GRID * 5 + k] = bench_unit(k + 7919 * u);
  }
  int nnuc[MATERIALS], nucs[MATERIALS * MAXNUC];
  double conc[MATERIALS * MAXNUC];
  for (int m = 0; m < MATERIALS; ++m) {
    nnuc[m] = m == 0 ? NUCLIDES : 4 + (int)(bench_hash(m) % 12); /* fuel has every nuclide */
    for (int k = 0; k < nnuc[m]; ++k) nucs[m * MAXNUC + k] = m == 0 ? k : (int)(bench_hash(m * 100 + k) % NUCLIDES), conc[m * MAXNUC + k] = bench_unit(m * 1000 + k);
  }
  xs_result *out = malloc(L * sizeof *out), *ref = malloc(L * sizeof *ref);
  bench_region reg = {"xs_lookup", {0}};

  bench_clock clk;
  bench_start(&clk);
  long last = batches - 1;
#pragma omp target data map(to: egrid[0:NUCLIDES * GRID], xs[0:NUCLIDES * GRID * 5], nnuc[0:MATERIALS], nucs[0:MATERIALS * MAXNUC], conc[0:MATERIALS * MAXNUC]) STATE_DATA(from: out[0:L])
  for (long batch = 0; batch < batches; ++batch) {
#pragma omp adaptation model_name(xs_lookup) features(L) variants(BENCH_KINDS) model_output(chosen)
#pragma omp target teams distribute parallel for STATE_LAUNCH(from: out[0:L])
    for (long l = 0; l < L; ++l)
      XS_LOOKUP(egrid, xs, nucs, nnuc, conc, out, l, batch);
    bench_count(&reg, chosen);
    bench_step(&clk);
  }
  bench_stop(&clk);

  for (long l = 0; l < L; ++l)
    XS_LOOKUP(egrid, xs, nucs, nnuc, conc, ref, l, last);
  double err = 0;
  for (long l = 0; l < L; ++l)
    for (int c = 0; c < 5; ++c) err = fmax(err, fabs(out[l].xs[c] - ref[l].xs[c]) / (1.0 + fabs(ref[l].xs[c])));
  bench_report("xsbench", L, batches, &clk, err, 1e-12, &reg, 1);
  return 0;
}
