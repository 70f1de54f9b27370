/* RSBench-like multipole cross-section lookups: each nuclide's resonances are poles in the
 * complex plane, grouped in energy windows with a background fit. A lookup evaluates, for each
 * nuclide of a random material, the window's fit polynomial plus the contributions
 * Re(r / (p - sqrt(E))) of the window's poles to 3 cross sections. L lookups per batch (the
 * feature), BATCHES batches (default 6). Usage: rsbench L [BATCHES]. */
#define BENCH_HAS_COSCHED /* Georgakoudis et al. Table 3: co-scheduling */
#include "bench.h"

static double chosen;

enum { NUCLIDES = 24, POLES = 400, WINDOWS = 40, MATERIALS = 8, MAXNUC = 24 };

/* One lookup's 3 cross sections. */
typedef struct {
  double xs[3];
} rs_result;

/* Written so that co-scheduling can split the loop (the frontend must see that the loop writes
 * nothing but out[l]): one local per declaration, no casts of typedef'd names and no
 * parenthesised operands in it.
 * poles: per pole 8 doubles (Re p, Im p, then Re/Im of 3 residues); fits: 3 x 3 per window */
#define RS_LOOKUP(poles, fits, nucs, nnuc, conc, out, l, batch)                                   \
  do {                                                                                            \
    unsigned long long key = batch * 0x100000000ull + l;                                          \
    double e = 1e-3 + bench_unit(key);                                                            \
    double se = sqrt(e);                                                                          \
    int mat = bench_hash(key ^ 0xabcd) % MATERIALS;                                               \
    int per = POLES / WINDOWS;                                                                    \
    double acc[3] = {0, 0, 0};                                                                    \
    for (int k = 0; k < nnuc[mat]; ++k) {                                                         \
      int nuc = nucs[mat * MAXNUC + k];                                                           \
      int w = e * WINDOWS;                                                                        \
      if (w >= WINDOWS) w = WINDOWS - 1;                                                          \
      const double *fit = fits + ((long)nuc * WINDOWS + w) * 9;                                   \
      double sig[3];                                                                              \
      for (int c = 0; c < 3; ++c) sig[c] = fit[c * 3] + fit[c * 3 + 1] * se + fit[c * 3 + 2] * e; \
      for (int p = w * per; p < w * per + per; ++p) {                                             \
        const double *P = poles + ((long)nuc * POLES + p) * 8;                                    \
        double dr = P[0] - se;                                                                    \
        double di = P[1];                                                                         \
        double den = dr * dr + di * di;                                                           \
        double cr = dr / den; /* 1 / (p - sqrt(E)) */                                             \
        double ci = -di / den;                                                                    \
        for (int c = 0; c < 3; ++c) sig[c] += P[2 + 2 * c] * cr - P[3 + 2 * c] * ci;             \
      }                                                                                           \
      for (int c = 0; c < 3; ++c) acc[c] += conc[mat * MAXNUC + k] * sig[c];                      \
    }                                                                                             \
    for (int c = 0; c < 3; ++c) out[l].xs[c] = acc[c];                                            \
  } while (0)

int main(int argc, char **argv) {
  long L = bench_arg(argc, argv, 1, 20000), batches = bench_arg(argc, argv, 2, 6);
  long np = (long)NUCLIDES * POLES * 8, nf = (long)NUCLIDES * WINDOWS * 9;
  double *poles = malloc(np * sizeof *poles), *fits = malloc(nf * sizeof *fits);
  for (long u = 0; u < NUCLIDES * POLES; ++u) {
    long p = u % POLES;
    poles[u * 8] = sqrt((p + bench_unit(u)) / POLES); /* resonances spread over the windows */
    poles[u * 8 + 1] = 1e-3 + 1e-2 * bench_unit(u + np);
    for (int c = 2; c < 8; ++c) poles[u * 8 + c] = 1e-3 * (bench_unit(u * 8 + c) - 0.5);
  }
  for (long k = 0; k < nf; ++k) fits[k] = bench_unit(k + 3 * np);
  int nnuc[MATERIALS], nucs[MATERIALS * MAXNUC];
  double conc[MATERIALS * MAXNUC];
  for (int m = 0; m < MATERIALS; ++m) {
    nnuc[m] = m == 0 ? NUCLIDES : 3 + (int)(bench_hash(m + 77) % 8);
    for (int k = 0; k < nnuc[m]; ++k) nucs[m * MAXNUC + k] = m == 0 ? k : (int)(bench_hash(m * 31 + k) % NUCLIDES), conc[m * MAXNUC + k] = bench_unit(m * 500 + k);
  }
  rs_result *out = malloc(L * sizeof *out), *ref = malloc(L * sizeof *ref);
  bench_region reg = {"rs_lookup", {0}};

  bench_clock clk;
  bench_start(&clk);
  long last = batches - 1;
#pragma omp target data map(to: poles[0:np], fits[0:nf], nnuc[0:MATERIALS], nucs[0:MATERIALS * MAXNUC], conc[0:MATERIALS * MAXNUC]) STATE_DATA(from: out[0:L])
  for (long batch = 0; batch < batches; ++batch) {
#pragma omp adaptation model_name(rs_lookup) features(L) variants(BENCH_KINDS) model_output(chosen)
#pragma omp target teams distribute parallel for STATE_LAUNCH(from: out[0:L])
    for (long l = 0; l < L; ++l)
      RS_LOOKUP(poles, fits, nucs, nnuc, conc, out, l, batch);
    bench_count(&reg, chosen);
    bench_step(&clk);
  }
  bench_stop(&clk);

  for (long l = 0; l < L; ++l)
    RS_LOOKUP(poles, fits, nucs, nnuc, conc, ref, l, last);
  double err = 0;
  for (long l = 0; l < L; ++l)
    for (int c = 0; c < 3; ++c) err = fmax(err, fabs(out[l].xs[c] - ref[l].xs[c]) / (1.0 + fabs(ref[l].xs[c])));
  bench_report("rsbench", L, batches, &clk, err, 1e-12, &reg, 1);
  return 0;
}
