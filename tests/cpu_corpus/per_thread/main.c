/* corpus: team-size invariant (prints the same for every team size of every region) */
/* Per-thread buffers sized by omp_get_max_threads() and filled by thread number in a parallel
 * region (correct with any team here, but only the programmer knows that: the region asks for
 * its thread number, so it is left as written), and a parallel region with worksharing and
 * single inside, whose variants apply. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static long histogram(const int *v, int n, long *bins) {
  int T = omp_get_max_threads();
  long *local = calloc((size_t)T * 16, sizeof *local);
#pragma omp parallel // expect: left omp_get_thread_num
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    for (int i = t; i < n; i += nt) local[t * 16 + (v[i] & 15)]++;
  }
  long total = 0;
  for (int b = 0; b < 16; ++b) {
    bins[b] = 0;
    for (int t = 0; t < T; ++t) bins[b] += local[t * 16 + b];
    total += bins[b];
  }
  free(local);
  return total;
}

static void prefix_scale(double *x, int n, double *first) {
#pragma omp parallel // expect: adaptive
  {
#pragma omp for
    for (int i = 0; i < n; ++i) x[i] = x[i] * 2.0 + 1.0;
#pragma omp single
    *first = x[0];
#pragma omp for
    for (int i = 0; i < n; ++i) x[i] -= *first;
  }
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 40;
  int n = 50000;
  int *v = malloc(sizeof *v * n);
  double *x = malloc(sizeof *x * n);
  for (int i = 0; i < n; ++i) v[i] = (int)((i * 40503u) >> 3);
  long bins[16], total = 0;
  double first = 0;
  for (int r = 0; r < reps; ++r) {
    total += histogram(v, n, bins);
    for (int i = 0; i < n; ++i) x[i] = i % 11;
    prefix_scale(x, n, &first);
  }
  printf("total=%ld", total);
  for (int b = 0; b < 16; ++b) printf(" %ld", bins[b]);
  printf("\nfirst=%g x[n-1]=%.17g\n", first, x[n - 1]);
  free(v);
  free(x);
  return 0;
}
