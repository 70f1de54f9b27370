/* An adaptive region (compiled with the ompadapt plugin) around an offload that maps the same
 * inputs on every call: the tool names the region in its findings, and the runtime's report
 * shows the data each variant moves per execution. */
#include "common.h"

int variant_ran;

static void vec_add(const double *A, const double *B, double *C, int N) {
#pragma omp adaptation model_name(vadd) features(N) variants(cpu, gpu) model_output(variant_ran)
#pragma omp target teams distribute parallel for map(to: A[0:N], B[0:N]) map(from: C[0:N]) /* @target */
  for (int i = 0; i < N; ++i) C[i] = A[i] + B[i];
}

int main(void) {
  const int n = 10000;
  double *A = malloc(n * sizeof *A), *B = malloc(n * sizeof *B), *C = malloc(n * sizeof *C);
  for (int i = 0; i < n; i++) A[i] = i, B[i] = 2 * i;
  double total = 0;
  for (int call = 0; call < 12; ++call) {
    vec_add(A, B, C, n);
    total += checksum(C, n);
  }
  printf("CHECK total=%.3f\n", total);
  return 0;
}
