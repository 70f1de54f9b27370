/* coschedule[0:1:0.25] from one ordinary loop (Georgakoudis et al. Listing 5's semantics): a
 * fraction of the iterations offloaded with nowait, the rest on the host meanwhile. Run plain and
 * inside `target data` (where the host part must work on the device copies). Every fraction must
 * give the serial loop's result. */
#include "../common.h"

double frac;

static void vadd(const double *A, const double *B, double *C, size_t N) {
#pragma omp adaptation model_name(cosched) features(N) variants(gpu, coschedule[0:1:0.25]) model_output(frac)
#pragma omp target teams distribute parallel for map(to: A[0:N], B[0:N]) map(from: C[0:N])
  for (size_t i = 0; i < N; ++i)
    C[i] = A[i] + B[i];
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atol(argv[1]) : 10001;
  int calls = argc > 2 ? atoi(argv[2]) : 6;
  double *A = filled(n, 1.0), *B = filled(n, 2.0), *C = (double *)calloc(n, sizeof(double));
  for (int c = 0; c < calls; ++c) {
    for (size_t i = 0; i < n; ++i) C[i] = -1;
    vadd(A, B, C, n);
    check_sum(A, B, C, n, "plain");
    printf("OK plain call=%d fraction=%g\n", c, frac);
  }
  /* Inside a data environment: a stencil step split between device and host. */
  double *u = filled(n, 0.5), *v = (double *)calloc(n, sizeof(double));
  double *ru = filled(n, 0.5), *rv = (double *)calloc(n, sizeof(double));
#pragma omp target data map(tofrom: u[0:n]) map(to: v[0:n])
  {
    for (int t = 0; t < calls; ++t) {
#pragma omp adaptation model_name(cosched_data) features(n) variants(cpu, gpu, coschedule[0:1:0.25]) model_output(frac)
#pragma omp target teams distribute parallel for
      for (size_t i = 1; i < n - 1; ++i)
        v[i] = 0.5 * u[i - 1] + 0.25 * u[i + 1] + t;
#pragma omp target teams distribute parallel for
      for (size_t i = 1; i < n - 1; ++i)
        u[i] = v[i];
      printf("step=%d fraction=%g\n", t, frac);
    }
  }
  for (int t = 0; t < calls; ++t) {
    for (size_t i = 1; i < n - 1; ++i) rv[i] = 0.5 * ru[i - 1] + 0.25 * ru[i + 1] + t;
    for (size_t i = 1; i < n - 1; ++i) ru[i] = rv[i];
  }
  for (size_t i = 0; i < n; ++i)
    if (u[i] != ru[i]) {
      fprintf(stderr, "WRONG data environment: u[%zu] = %g, expected %g\n", i, u[i], ru[i]);
      return 2;
    }
  printf("OK data\n");
  return 0;
}
