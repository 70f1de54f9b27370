/* corpus: team-size invariant (prints the same for every team size of every region) */
/* Ordered loops beside an ordinary one: their ordered parts run in iteration order whatever the
 * team, so every variant prints the same. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  double *a = malloc(sizeof *a * n);
  long trace = 0;
#pragma omp parallel for // expect: adaptive
  for (int i = 0; i < n; ++i) a[i] = (i % 17) * 0.5;
#pragma omp parallel for ordered schedule(static, 3) // expect: adaptive
  for (int i = 1; i < n; ++i) {
    double v = a[i] * 1.5;
#pragma omp ordered
    {
      a[i] = a[i - 1] * 0.5 + v;
      trace = trace * 31 + i;
    }
  }
#pragma omp parallel // expect: adaptive
  {
#pragma omp for ordered
    for (int i = 0; i < 4; ++i) {
#pragma omp ordered
      trace += i;
    }
  }
  printf("a[n-1]=%.17g trace=%ld\n", a[n - 1], trace);
  free(a);
  return 0;
}
