// End-to-end program: each call of vecadd() is an adaptive region whose variant (0 = cpu,
// 1 = gpu) comes from the command line: "0", "1", or "alt" (alternate, starting with cpu).
// It prints one letter per call: H when the region ran on the host (initial device), D when
// it ran on an offload device, then OK when every result is right.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Stands in for the runtime: it must never run once the pass has lowered the marker.
void ompadapt_unlowered_offload_site(const char *model) {
  fprintf(stderr, "UNLOWERED %s\n", model);
}
static inline __attribute__((noinline)) void __ompadapt_launch_site(int use_host, int num_teams, int thread_limit,
                                                                    const char *model) {
  if (use_host || num_teams || thread_limit) ompadapt_unlowered_offload_site(model);
}

static int vecadd(int variant, const double *A, const double *B, double *C, int N, double k) {
  int where[1] = {-1};
  __ompadapt_launch_site(variant == 0, 0, 0, "vecadd");
#pragma omp target teams distribute parallel for map(to: A[0:N], B[0:N]) map(from: C[0:N]) map(tofrom: where[0:1])
  for (int i = 0; i < N; ++i) {
    C[i] = A[i] + k * B[i];
    if (i == 0) where[0] = omp_is_initial_device();
  }
  return where[0];
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "1";
  enum { N = 4096, CALLS = 4 };
  double *A = malloc(N * sizeof *A), *B = malloc(N * sizeof *B), *C = malloc(N * sizeof *C);
  for (int i = 0; i < N; ++i) { A[i] = i; B[i] = 2 * i; }
  int bad = 0;
  for (int call = 0; call < CALLS; ++call) {
    int variant = strcmp(mode, "alt") == 0 ? call % 2 : atoi(mode);
    for (int i = 0; i < N; ++i) C[i] = -1;
    int on_host = vecadd(variant, A, B, C, N, call + 1.0);
    putchar(on_host == 1 ? 'H' : on_host == 0 ? 'D' : '?');
    for (int i = 0; i < N; ++i)
      if (C[i] != A[i] + (call + 1.0) * B[i]) { ++bad; break; }
  }
  printf(" %s\n", bad ? "WRONG" : "OK");
  free(A); free(B); free(C);
  return bad != 0;
}
