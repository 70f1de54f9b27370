/* Host loops beside offloaded ones: one flag adapts both kinds. A parallel loop inside a target
 * region, or in declare target code, is device code and stays as written. */
#include <stdio.h>
#include <stdlib.h>

#pragma omp declare target
static void smooth(double *a, int n) {
#pragma omp parallel for // expect: left offload region
  for (int i = 0; i < n; ++i) a[i] = 0.5 * a[i] + 0.125 * (i % 3);
}
#pragma omp end declare target

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  double *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n);
#pragma omp parallel for // expect: adaptive
  for (int i = 0; i < n; ++i) a[i] = (i % 29) * 0.125;
  for (int r = 0; r < 4; ++r) {
#pragma omp target map(tofrom : a[0 : n]) // expect: adaptive
    smooth(a, n);
#pragma omp target teams distribute parallel for map(to : a[0 : n]) map(from : b[0 : n]) // expect: adaptive
    for (int i = 0; i < n; ++i) b[i] = a[i] * 2.0;
#pragma omp target map(tofrom : a[0 : n]) // expect: adaptive
    {
#pragma omp parallel for // expect: left offload region
      for (int i = 0; i < n; ++i) a[i] += 0.001;
    }
  }
  double s = 0;
#pragma omp parallel for reduction(+ : s) // expect: adaptive
  for (int i = 0; i < n; ++i) s += b[i] * (1 + i % 3);
  printf("sum=%.17g a0=%.17g\n", s, a[0]);
  free(a);
  free(b);
  return 0;
}
