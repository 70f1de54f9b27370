/* corpus: team-size invariant (prints the same for every team size of every region) */
/* What LLNL's LULESH 2.0 does (its time-step constraints) and codes like it: per-thread storage
 * sized by omp_get_max_threads() before a parallel region, written at omp_get_thread_num()
 * inside it — in the region itself, in a helper of this file, in a function of another
 * translation unit (other.c) — and every slot read after it. A smaller team would leave slots
 * unwritten, so each such region is left as written (the analysis finds the question); the
 * regions that ask nothing stay adaptive. */
#include <float.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* other.c: sums[omp_get_thread_num()] = this thread's share of x[0..n) */
void partial_sums(const double *x, int n, double *sums);

static int my_slot(void) { return omp_get_thread_num(); }

static double min_of(const double *x, int n) {
  int threads = omp_get_max_threads();
  double *per_thread = malloc(sizeof *per_thread * threads);
#pragma omp parallel // expect: left omp_get_thread_num
  {
    double local = DBL_MAX;
    int t = omp_get_thread_num();
#pragma omp for
    for (int i = 0; i < n; ++i)
      if (x[i] < local) local = x[i];
    per_thread[t] = local;
  }
  double m = per_thread[0];
  for (int t = 1; t < threads; ++t)
    if (per_thread[t] < m) m = per_thread[t];
  free(per_thread);
  return m;
}

static double max_of(const double *x, int n) {
  int threads = omp_get_max_threads();
  double *per_thread = malloc(sizeof *per_thread * threads);
#pragma omp parallel // expect: left omp_get_thread_num
  {
    double local = -DBL_MAX;
#pragma omp for nowait
    for (int i = 0; i < n; ++i)
      if (x[i] > local) local = x[i];
    per_thread[my_slot()] = local;
  }
  double m = per_thread[0];
  for (int t = 1; t < threads; ++t)
    if (per_thread[t] > m) m = per_thread[t];
  free(per_thread);
  return m;
}

static double sum_of(const double *x, int n) {
  int threads = omp_get_max_threads();
  double *sums = calloc(threads, sizeof *sums);
#pragma omp parallel // expect: left partial_sums
  partial_sums(x, n, sums);
  double s = 0;
  for (int t = 0; t < threads; ++t) s += sums[t];
  free(sums);
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  double *x = malloc(sizeof *x * n);
  double total = 0;
  for (int r = 0; r < 30; ++r) {
#pragma omp parallel for // expect: adaptive
    for (int i = 0; i < n; ++i) x[i] = (double)((i * 7919 + r * 104729) % 1000003);
    double s = 0;
#pragma omp parallel for reduction(+ : s) // expect: adaptive
    for (int i = 0; i < n; ++i) s += x[i] < 500000 ? 1.0 : 0.0;
    /* effects divided among the team (worksharing, single, master): any team does them once */
    double first = 0, last = 0;
#pragma omp parallel // expect: adaptive
    {
#pragma omp for reduction(+ : s)
      for (int i = 0; i < n; ++i) s += x[i] > 900000 ? 1.0 : 0.0;
#pragma omp single
      first = x[0];
#pragma omp master
      last = x[n - 1];
    }
    s += first - last;
    /* integer-valued doubles: every sum is exact, in any order */
    total += min_of(x, n) + max_of(x, n) + sum_of(x, n) + s;
  }
  printf("total=%.17g\n", total);
  free(x);
  return 0;
}
