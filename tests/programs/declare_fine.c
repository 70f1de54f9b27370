/* Liao et al., Figure 6: `declare adaptation` before a metadirective with three variants
 * (serial, CPU threads, offload), fine-grained: the region adapts per call, on the size and on
 * the OpenMP context (Liao et al.'s `omp_num_threads`), with a random forest trained once 3 sizes
 * x 3 variants are measured (min_sample_points). Every result is
 * checked against a serial loop. Prints `THREADS n` (what omp_num_threads evaluates to). */
#include "common.h"
#include <omp.h>

static void saxpy(double a, const double *x, double *y, long n) {
#pragma omp declare adaptation model(random_forest) feature(min_sample_points(3): n) feature(omp_num_threads)
#pragma omp metadirective when(:) when(: parallel for) \
    default(target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n]))
  for (long i = 0; i < n; ++i)
    y[i] += a * x[i];
}

int main(void) {
  const long sizes[] = {100, 5000, 200000};
  printf("THREADS %d\n", omp_get_max_threads());
  for (int rep = 0; rep < 6; ++rep)
    for (int s = 0; s < 3; ++s) {
      long n = sizes[s];
      double *x = filled(n, 1.0), *y = filled(n, 2.0), *want = filled(n, 2.0);
      for (long i = 0; i < n; ++i)
        want[i] += 0.5 * x[i];
      saxpy(0.5, x, y, n);
      for (long i = 0; i < n; ++i)
        if (y[i] != want[i]) {
          fprintf(stderr, "WRONG y[%ld] = %g, expected %g (n = %ld)\n", i, y[i], want[i], n);
          return 2;
        }
      free(x), free(y), free(want);
    }
  printf("RESULT ok\n");
  return 0;
}
