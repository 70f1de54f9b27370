/* The single-region form: `adaptation` right before a target construct. The ompadapt pass
 * turns the launch into a dispatch: variant cpu runs the host version of the outlined region
 * (no mapping, no offload), variant gpu the offload. Each element records whether it ran on
 * the initial (host) device, so the test can tell that the dispatch really happened. */
#include "common.h"
#include <omp.h>

int variant_ran;

void vecAdd(double *A, double *B, double *C, int *D, size_t N) {
#pragma omp adaptation model_name(offload) features(N) variants(cpu, gpu) model_output(variant_ran)
#pragma omp target teams distribute parallel for map(to: A[0:N], B[0:N]) map(from: C[0:N], D[0:N])
  for (size_t i = 0; i < N; ++i) {
    C[i] = A[i] + B[i];
    D[i] = omp_is_initial_device();
  }
}

int main(void) {
  const size_t n = 10000;
  double *A = filled(n, 1.0), *B = filled(n, 2.0), *C = (double *)calloc(n, sizeof(double));
  int *D = (int *)calloc(n, sizeof(int));
  for (int call = 0; call < 8; ++call) {
    for (size_t i = 0; i < n; ++i) C[i] = 0, D[i] = -1;
    vecAdd(A, B, C, D, n);
    check_sum(A, B, C, n, variant_ran == 0 ? "cpu" : "gpu");
    size_t on_host = 0;
    for (size_t i = 0; i < n; ++i) on_host += D[i] == 1;
    printf("RUN variant=%d on_host=%zu of=%zu\n", variant_ran, on_host, n);
  }
  return 0;
}
