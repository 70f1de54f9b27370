/* Georgakoudis et al. Listing 3 style: begin/end adaptation around a metadirective, features
 * through macros, numeric variants from a macro range, model_output into a struct member. */
#include <stdlib.h>

#define NFEAT(n) ((n) * 2)
#define MAXT 1024
#define STEP 128

struct choice { int threads; double frac; };
static struct choice out;

void vec_add(double *A, double *B, double *C, size_t N) {
#pragma omp begin adaptation model_name(by_len) features(N, NFEAT(N)) variants(cpu, gpu) \
    min_train_data(4) model_type(dtree, 3)
#pragma omp metadirective \
    when(user={adaptation(by_len==cpu)} : parallel for) \
    when(user={adaptation(by_len==gpu)} : target teams distribute parallel for map(to: A[0:N], B[0:N]) map(from: C[0:N]))
  for (size_t i = 0; i < N; ++i)
    C[i] = A[i] + B[i];
#pragma omp end adaptation model_name(by_len)
}

void scale(double *A, size_t N) {
#pragma omp begin adaptation model_name(threads) features(N) variants([STEP:MAXT:STEP]) model_output(out.threads)
#pragma omp target teams distribute parallel for thread_limit(out.threads) map(tofrom: A[0:N])
  for (size_t i = 0; i < N; ++i)
    A[i] *= 2.0;
#pragma omp end adaptation
}

void split(double *A, size_t N, int sel[2]) {
#pragma omp adaptation model_name(fraction) features(N) variants([0:1:0.25]) model_output(out.frac)
  {
    size_t cut = (size_t)(out.frac * (double)N);
    for (size_t i = 0; i < cut; ++i)
      A[i] += 1.0;
  }
#pragma omp adaptation model_name(sel_out) variants(1, 2, 4) model_output(sel[1])
  A[0] += sel[1];
}
