#include "common.h"
int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 1 << 21), iters = arg(argc, argv, 2, 40);
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  for (int i = 0; i < n; i++) { a[i] = 0.1; b[i] = 0.2; c[i] = 0.0; }
  double scalar = 0.4, dot = 0;
#pragma omp target enter data map(to: a[0:n], b[0:n], c[0:n])
  for (int k = 0; k < iters; k++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) c[i] = a[i];
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) b[i] = scalar * c[i];
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) a[i] = b[i] + scalar * c[i];
    dot = 0;
#pragma omp target teams distribute parallel for reduction(+: dot) map(tofrom: dot)
    for (int i = 0; i < n; i++) dot += a[i] * b[i];
  }
#pragma omp target exit data map(from: a[0:n]) map(delete: b[0:n], c[0:n])
  printf("CHECK dot=%.6e a0=%.6e\n", dot, a[0]);
  return 0;
}
