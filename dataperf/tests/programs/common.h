/* Helpers for the data-movement test programs: a checksum every variant prints, so that a
 * program under the tool is checked against the same program without it. */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

static double checksum(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += v[i] * (1 + i % 7);
  return s;
}
#define PRINT_SUM(name, v, n) printf("CHECK %s=%.6f\n", name, checksum(v, n))
