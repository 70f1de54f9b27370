/* corpus: team-size invariant (prints the same for every team size of every region) */
/* Memory a thread allocates in the region is its own: every thread allocating, filling and
 * freeing a scratch buffer outside worksharing (malloc, calloc, realloc, free), around a
 * worksharing loop that reads it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void smooth(const double *in, double *out, int n) {
#pragma omp parallel // expect: adaptive
  {
    double *w = malloc(3 * sizeof *w);
    w[0] = 0.25;
    w[1] = 0.5;
    w[2] = 0.25;
#pragma omp for
    for (int i = 1; i < n - 1; ++i) out[i] = w[0] * in[i - 1] + w[1] * in[i] + w[2] * in[i + 1];
    free(w);
  }
}

static void offsets(double *x, int n) {
#pragma omp parallel // expect: adaptive
  {
    double *table = calloc(4, sizeof *table);
    table = realloc(table, 64 * sizeof *table);
    memset(table, 0, 64 * sizeof *table);
    for (int k = 0; k < 64; ++k) table[k] = k * 0.5;
#pragma omp for
    for (int i = 0; i < n; ++i) x[i] += table[i % 64];
    free(table);
  }
}

int main(void) {
  int n = 5000;
  double *a = malloc(sizeof *a * n), *b = calloc(n, sizeof *b);
  for (int i = 0; i < n; ++i) a[i] = (i * 37) % 101;
  for (int r = 0; r < 4; ++r) {
    smooth(a, b, n);
    offsets(b, n);
    memcpy(a, b, sizeof *a * n);
  }
  double s = 0;
  for (int i = 0; i < n; ++i) s += a[i] * (i % 7);
  printf("checksum %.6f\n", s);
  free(a);
  free(b);
  return 0;
}
