/* The other offloaded construct forms the kinds apply to: `target` + a nested `teams distribute
 * parallel for` (cpu, gpu, thread_limit, num_teams) and `target parallel for` (cpu, gpu,
 * thread_limit), inside `target enter data` / `target exit data` of the same function. Every
 * variant must give the serial loop's result. */
#include "../common.h"

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3000;
  int calls = argc > 2 ? atoi(argv[2]) : 6;
  double *a = filled(n, 1.0), *b = filled(n, 0.0), *ra = filled(n, 1.0), *rb = filled(n, 0.0);
#pragma omp target enter data map(to: a[0:n], b[0:n])
  for (int c = 0; c < calls; ++c) {
#pragma omp adaptation model_name(nest) features(n) variants(cpu, gpu, thread_limit[32:64:32], num_teams[3:3:1])
#pragma omp target
#pragma omp teams distribute parallel for
    for (int i = 0; i < n; ++i) b[i] = b[i] * 0.5 + a[i];
#pragma omp adaptation model_name(tpf) features(n) variants(gpu, thread_limit[16:16:1], cpu)
#pragma omp target parallel for
    for (int i = 0; i < n; ++i) a[i] = a[i] + 0.25 * b[i];
    for (int i = 0; i < n; ++i) rb[i] = rb[i] * 0.5 + ra[i];
    for (int i = 0; i < n; ++i) ra[i] = ra[i] + 0.25 * rb[i];
  }
#pragma omp target exit data map(from: a[0:n], b[0:n])
  for (int i = 0; i < n; ++i)
    if (a[i] != ra[i] || b[i] != rb[i]) {
      fprintf(stderr, "WRONG at %d: a %g (%g), b %g (%g)\n", i, a[i], ra[i], b[i], rb[i]);
      return 2;
    }
  printf("OK\n");
  return 0;
}
