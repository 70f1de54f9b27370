// A parallel region in a function inlined four times: copies of one construct are one region,
// named and remarked once (tests/tests/inspect.rs).
#include <stdio.h>

static double a[4][1000];

static inline __attribute__((always_inline)) void fill(int k) {
#pragma omp parallel for
  for (int i = 0; i < 1000; i++)
    a[k][i] = k + i;
}

int main(void) {
  fill(0);
  fill(1);
  fill(2);
  fill(3);
  printf("%g\n", a[3][999]);
  return 0;
}
