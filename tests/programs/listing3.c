/* Georgakoudis et al., Listing 3 (left): the device is chosen per input size by the model `by_len`,
 * consumed by a metadirective. One addition to the listing: model_output(variant_ran), so
 * that the test can tell which variant each call ran. */
#include "common.h"
#include <string.h>

int variant_ran;

void vecAdd(double *A, double *B, double *C, size_t N) {
#pragma omp begin adaptation model_name(by_len) features(N) variants(cpu, gpu) model_output(variant_ran)
#pragma omp metadirective \
    when(user={adaptation(by_len==cpu)} : parallel for) \
    when(user={adaptation(by_len==gpu)} : target map(to: A[0:N], B[0:N]) map(from: C[0:N]) \
                                          teams distribute parallel for)
  for (size_t i = 0; i < N; ++i)
    C[i] = A[i] + B[i];
#pragma omp end adaptation model_name(by_len)
}

int main(void) {
  const size_t sizes[] = {1000, 50000, 400000};
  for (int rep = 0; rep < 4; ++rep)
    for (int s = 0; s < 3; ++s) {
      size_t n = sizes[s];
      double *A = filled(n, 1.0), *B = filled(n, 2.0), *C = (double *)calloc(n, sizeof(double));
      vecAdd(A, B, C, n);
      check_sum(A, B, C, n, variant_ran == 0 ? "cpu" : "gpu");
      printf("RUN n=%zu variant=%d\n", n, variant_ran);
      free(A), free(B), free(C);
    }
  return 0;
}
