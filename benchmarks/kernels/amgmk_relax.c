/* AMGmk's relax kernel: weighted Jacobi sweeps x <- x + w (b - A x) / diag(A) with A in CSR,
 * here the 7-point Laplacian of an M x M x M grid (ROWS = M^3 rows), SWEEPS sweeps (default 10).
 * Usage: amgmk_relax M [SWEEPS]. Feature: the number of rows. */
#define BENCH_HAS_THREADS /* Georgakoudis et al. Table 3: GPU threads */
#include "bench.h"

static double chosen;

#define RELAX_ROW(x, xn, rowptr, col, val, b, i)                                \
  do {                                                                          \
    double r = b[i], d = 1.0;                                                   \
    for (long e = rowptr[i]; e < rowptr[(i) + 1]; ++e) {                        \
      r -= val[e] * x[col[e]];                                                  \
      if (col[e] == (i)) d = val[e];                                            \
    }                                                                           \
    xn[i] = x[i] + 0.8 * r / d;                                                 \
  } while (0)

int main(int argc, char **argv) {
  long m = bench_arg(argc, argv, 1, 32), sweeps = bench_arg(argc, argv, 2, 10);
  long rows = m * m * m, nnz = 0;
  long *rowptr = malloc((rows + 1) * sizeof *rowptr), *col = malloc(7 * rows * sizeof *col);
  double *val = malloc(7 * rows * sizeof *val), *b = malloc(rows * sizeof *b);
  for (long i = 0; i < rows; ++i) {
    long z = i / (m * m), y = (i / m) % m, x = i % m;
    rowptr[i] = nnz;
    long nb[6] = {z > 0 ? i - m * m : -1, y > 0 ? i - m : -1, x > 0 ? i - 1 : -1, x < m - 1 ? i + 1 : -1, y < m - 1 ? i + m : -1, z < m - 1 ? i + m * m : -1};
    col[nnz] = i, val[nnz++] = 6.0 + 0.1 * bench_unit(i);
    for (int k = 0; k < 6; ++k)
      if (nb[k] >= 0) col[nnz] = nb[k], val[nnz++] = -1.0;
    b[i] = bench_unit(i + rows);
  }
  rowptr[rows] = nnz;
  double *x = calloc(rows, sizeof *x), *xn = calloc(rows, sizeof *xn), *ref = calloc(rows, sizeof *ref), *tmp = calloc(rows, sizeof *tmp);
  bench_region reg = {"relax", {0}};

  bench_clock clk;
  bench_start(&clk);
#pragma omp target data map(to: rowptr[0:rows + 1], col[0:nnz], val[0:nnz], b[0:rows]) STATE_DATA(tofrom: x[0:rows], xn[0:rows])
  for (long s = 0; s < sweeps; ++s) {
#pragma omp adaptation model_name(relax) features(rows) variants(BENCH_KINDS) model_output(chosen)
#pragma omp target teams distribute parallel for STATE_LAUNCH(to: x[0:rows]) STATE_LAUNCH(from: xn[0:rows])
    for (long i = 0; i < rows; ++i)
      RELAX_ROW(x, xn, rowptr, col, val, b, i);
    bench_count(&reg, chosen);
    bench_step(&clk);
    double *t = x; x = xn; xn = t;
  }
  bench_stop(&clk);

  for (long s = 0; s < sweeps; ++s) {
    for (long i = 0; i < rows; ++i)
      RELAX_ROW(ref, tmp, rowptr, col, val, b, i);
    double *t = ref; ref = tmp; tmp = t;
  }
  double err = 0;
  for (long i = 0; i < rows; ++i) err = fmax(err, fabs(x[i] - ref[i]));
  bench_report("amgmk_relax", m, sweeps, &clk, err, 1e-12, &reg, 1);
  return 0;
}
