/* An adaptive region whose data a caller keeps on the device (`target data`): the cpu variant's
 * host version needs the runtime's copies of that data, which are not the program's data
 * movement: the tool must leave them out of its findings. */
#include "common.h"

static void scale(double *A, int N) {
#pragma omp adaptation model_name(scale) features(N) variants(cpu, gpu)
#pragma omp target teams distribute parallel for /* @target */
  for (int i = 0; i < N; ++i) A[i] = A[i] * 0.5 + 1;
}

int main(void) {
  const int n = 10000;
  double *A = malloc(n * sizeof *A);
  for (int i = 0; i < n; i++) A[i] = i;
#pragma omp target data map(tofrom: A[0:n])
  for (int call = 0; call < 12; ++call) scale(A, n);
  printf("CHECK total=%.3f\n", checksum(A, n));
  return 0;
}
