/* Georgakoudis et al., Listing 4 (left): the number of threads per team is learned from 16 numeric
 * variants [64:1024:64], delivered to the program through model_output. Written as in the
 * paper, including its `model(dtree)` spelling of model_type (accepted with a warning); the
 * target directive is written in valid OpenMP order (directive name before clauses; the printed
 * listing has them the other way round, with stray quotes). */
#include "common.h"

void vecAdd(double *A, double *B, double *C, size_t N) {
  int GPU_THREADS;
#pragma omp begin adaptation model_name(by_len) \
    features(N) \
    variants([64:1024:64]) \
    model(dtree) min_train_data(16 /* variants */ * 10) \
    model_output(GPU_THREADS)
#pragma omp target teams distribute parallel for \
    map(to: A[0:N], B[0:N]) map(from: C[0:N]) \
    thread_limit(GPU_THREADS)
  for (size_t i = 0; i < N; ++i)
    C[i] = A[i] + B[i];
#pragma omp end adaptation model_name(by_len)
  printf("RUN n=%zu threads=%d\n", N, GPU_THREADS);
}

int main(void) {
  const size_t n = 20000;
  double *A = filled(n, 1.0), *B = filled(n, 2.0), *C = (double *)calloc(n, sizeof(double));
  for (int call = 0; call < 40; ++call) {
    for (size_t i = 0; i < n; ++i) C[i] = 0;
    vecAdd(A, B, C, n);
    check_sum(A, B, C, n, "listing4");
  }
  return 0;
}
