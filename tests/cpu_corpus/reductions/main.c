/* Reductions over sizes from tiny to large: a floating-point sum (its value depends on the team
 * size), integer sums and min/max (they do not). */
#include <stdio.h>
#include <stdlib.h>

static double dot(const double *a, const double *b, int n) {
  double s = 0.0;
#pragma omp parallel for reduction(+ : s) // expect: adaptive
  for (int i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}

static long count_multiples(const int *v, int n, int k) {
  long c = 0;
#pragma omp parallel for reduction(+ : c) // expect: adaptive
  for (int i = 0; i < n; ++i)
    c += (v[i] % k == 0);
  return c;
}

static void extremes(const int *v, int n, int *lo, int *hi) {
  int mn = v[0], mx = v[0];
#pragma omp parallel for reduction(min : mn) reduction(max : mx) // expect: adaptive
  for (int i = 0; i < n; ++i) {
    if (v[i] < mn) mn = v[i];
    if (v[i] > mx) mx = v[i];
  }
  *lo = mn;
  *hi = mx;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 30;
  int sizes[] = {16, 1000, 200000};
  int nmax = 200000;
  double *a = malloc(sizeof *a * nmax), *b = malloc(sizeof *b * nmax);
  int *v = malloc(sizeof *v * nmax);
  for (int i = 0; i < nmax; ++i) {
    a[i] = 1.0 / (1 + i % 97);
    b[i] = (i % 13) * 0.25;
    v[i] = (int)((i * 2654435761u) % 100003u) - 50000;
  }
  for (int s = 0; s < 3; ++s) {
    int n = sizes[s];
    double d = 0;
    long c = 0;
    int lo = 0, hi = 0;
    for (int r = 0; r < reps; ++r) {
      d = dot(a, b, n);
      c += count_multiples(v, n, 7);
      extremes(v, n, &lo, &hi);
    }
    printf("n=%d dot=%.17g count=%ld min=%d max=%d\n", n, d, c, lo, hi);
  }
  free(a);
  free(b);
  free(v);
  return 0;
}
