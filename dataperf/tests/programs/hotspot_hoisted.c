/* benchmarks/dataperf/hotspot.c with the tool's suggestion for its duplicate transfers of `p`
 * applied by hand: `#pragma omp target data map(to: p[0:n * n])` around the loop in main that
 * calls `step`. Nothing else differs; the results must not. */
#include <math.h>
#include "common.h"
static int arg(int argc, char **argv, int i, int def) { return argc > i ? atoi(argv[i]) : def; }
/* Each step maps the grids again (the naive form HeCBench's and Rodinia's ports start from). */
static void step(const float *t, const float *p, float *o, int n) {
#pragma omp target teams distribute parallel for collapse(2) map(to: t[0:n*n], p[0:n*n]) map(from: o[0:n*n]) /* @step */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      float c = t[i * n + j];
      float nn = i > 0 ? t[(i - 1) * n + j] : c, s = i < n - 1 ? t[(i + 1) * n + j] : c;
      float e = j < n - 1 ? t[i * n + j + 1] : c, ww = j > 0 ? t[i * n + j - 1] : c;
      float acc = 0;
      for (int k = 0; k < 24; k++) acc += 1e-4f * sinf(c + k);
      o[i * n + j] = c + 0.1f * (nn + s + e + ww - 4 * c) + 0.01f * p[i * n + j] + acc;
    }
}
int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 512), steps = arg(argc, argv, 2, 20);
  float *t = malloc((size_t)n * n * sizeof *t), *p = malloc((size_t)n * n * sizeof *p), *o = malloc((size_t)n * n * sizeof *o);
  for (int i = 0; i < n * n; i++) { t[i] = 300 + (i % 17); p[i] = (i % 5) * 0.5f; }
#pragma omp target data map(to: p[0:n * n]) /* @hoisted */
  for (int s = 0; s < steps; s++) { step(t, p, o, n); float *x = t; t = o; o = x; }
  printf("CHECK t=%.4f\n", t[n * n / 2 + n / 2]);
  return 0;
}
