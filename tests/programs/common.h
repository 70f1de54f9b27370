/* Helpers shared by the test programs: a clock-based spin for controlled costs, and result
 * checking against a serial loop. */
#ifndef OMPADAPT_TEST_COMMON_H
#define OMPADAPT_TEST_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Busy-waits for `us` microseconds: a cost that is known whatever the CPU. */
static inline void spin_us(double us) {
  double end = now_us() + us;
  while (now_us() < end) {
  }
}

static inline double *filled(size_t n, double scale) {
  double *a = (double *)malloc(n * sizeof(double));
  for (size_t i = 0; i < n; ++i) a[i] = scale * (double)i + 0.25;
  return a;
}

/* Exits with a message unless C == A + B elementwise (exact: the sums are exact in double). */
static inline void check_sum(const double *A, const double *B, const double *C, size_t n, const char *what) {
  for (size_t i = 0; i < n; ++i)
    if (C[i] != A[i] + B[i]) {
      fprintf(stderr, "WRONG %s: C[%zu] = %g, expected %g\n", what, i, C[i], A[i] + B[i]);
      exit(2);
    }
}
#endif
