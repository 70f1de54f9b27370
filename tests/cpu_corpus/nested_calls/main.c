/* corpus: team-size invariant (prints the same for every team size of every region) */
/* A parallel loop in a function called both outside and inside another parallel region: the
 * calls from inside run it as written and are not recorded. A loop lexically nested in a
 * parallel region is left as written. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static void scale(double *x, int n, double f) {
#pragma omp parallel for // expect: adaptive
  for (int i = 0; i < n; ++i) x[i] *= f;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4000;
  double *x = malloc(sizeof *x * n * 4);
  for (int i = 0; i < 4 * n; ++i) x[i] = 1.0 + i % 3;
  for (int r = 0; r < 20; ++r) scale(x, 4 * n, 1.0001);
  int calls = 0;
#pragma omp parallel num_threads(2) reduction(+ : calls) // expect: left omp_get_thread_num
  {
    int t = omp_get_thread_num();
    if (t < 2) {
      scale(x + (size_t)t * 2 * n, 2 * n, 0.999);
      ++calls;
    }
#pragma omp parallel for // expect: left nested in the parallel region
    for (int i = 0; i < 8; ++i) x[i] += 0.0;
  }
  double s = 0;
  for (int i = 0; i < 4 * n; ++i) s += x[i];
  printf("calls=%d sum=%.17g\n", calls, s);
  free(x);
  return 0;
}
