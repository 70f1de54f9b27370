/* An unmodified HeCBench-style program, built stock and in zero-source-change mode: kernels in
 * a `target data` region run over time steps, a `declare target` function, a reduction, a
 * collapse(2) nest, several kernels per function, kernels from a macro with _Pragma (two on one
 * line), `nowait` + `taskwait` (left as written), and one explicit adaptation directive beside
 * the plain constructs (seen only by builds with the plugin, which defines
 * OMPADAPT_API_VERSION). Every value is an integer held in a double, so results are exact
 * whatever order a reduction takes: each variant's output must equal the stock build's byte for
 * byte. */
#include <stdio.h>
#include <stdlib.h>

#pragma omp declare target
static double weight(int i) { return (double)(i % 3); }
#pragma omp end declare target

#define SCALE_U(k)                                                                               \
  _Pragma("omp target teams distribute parallel for map(tofrom: u[0:n])")                        \
  for (int i_ = 0; i_ < n; ++i_) u[i_] *= (k);

static void init(double *u, double *v, int n) {
#pragma omp target teams distribute parallel for map(from: u[0:n], v[0:n])
  for (int i = 0; i < n; ++i) {
    u[i] = i % 7;
    v[i] = 0;
  }
}

static double total(const double *u, int n) {
  double s = 0;
#pragma omp target teams distribute parallel for reduction(+: s) map(to: u[0:n])
  for (int i = 0; i < n; ++i) s += u[i];
  return s;
}

static void grid(double *g, int rows, int cols) {
#pragma omp target teams distribute parallel for collapse(2) map(tofrom: g[0:rows * cols])
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) g[r * cols + c] += r + 2 * c;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096, steps = 12, rows = 48, cols = 40;
  double *u = (double *)malloc(n * sizeof(double)), *v = (double *)malloc(n * sizeof(double));
  double *w = (double *)calloc(n, sizeof(double)), *z = (double *)calloc(n, sizeof(double));
  double *g = (double *)calloc(rows * cols, sizeof(double));
  init(u, v, n);
#pragma omp target data map(tofrom: u[0:n], v[0:n])
  {
    for (int t = 0; t < steps; ++t) {
#pragma omp target teams distribute parallel for
      for (int i = 1; i < n - 1; ++i) v[i] = u[i - 1] + u[i + 1] + weight(i) + t;
#pragma omp target teams distribute parallel for
      for (int i = 1; i < n - 1; ++i) u[i] = (double)((long)v[i] % 1009);
    }
    printf("step total u=%.0f\n", total(u, n));
  }
  for (int k = 0; k < 3; ++k) grid(g, rows, cols);
  SCALE_U(2.0) SCALE_U(3.0)
#ifdef OMPADAPT_API_VERSION /* built with the plugin */
#pragma omp adaptation model_name(explicit_scale) features(n, auto) variants(cpu, gpu)
#endif
#pragma omp target teams distribute parallel for map(tofrom: v[0:n])
  for (int i = 0; i < n; ++i) v[i] = 3 * v[i] - 1;
#pragma omp target teams distribute parallel for map(to: u[0:n]) map(tofrom: w[0:n]) nowait
  for (int i = 0; i < n; ++i) w[i] = u[i] + 1;
#pragma omp target teams distribute parallel for map(to: v[0:n]) map(tofrom: z[0:n]) nowait
  for (int i = 0; i < n; ++i) z[i] = v[i] - 1;
#pragma omp taskwait
  printf("total u=%.0f v=%.0f w=%.0f z=%.0f g=%.0f\n", total(u, n), total(v, n), total(w, n), total(z, n),
         total(g, rows * cols));
  printf("u[1..4]=%.0f %.0f %.0f %.0f\n", u[1], u[2], u[3], u[4]);
  free(u), free(v), free(w), free(z), free(g);
  return 0;
}
