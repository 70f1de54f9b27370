// A region that calls nothing outside its unit (adaptive at compile time), in a program where
// another unit's parallel region uses threadprivate data (tls_unit.c): threadprivate values
// persist between parallel regions only while their teams keep one size, so the runtime, which
// reads that unit's summary, runs this region as written too (tests/tests/cross_unit.rs).
#include <stdio.h>

long counted(int rounds);
static double a[1000];

int main(void) {
  long c = 0;
  for (int r = 0; r < 3; r++) {
    // expect: held thread-local
#pragma omp parallel for
    for (int i = 0; i < 1000; i++) a[i] += i * 0.5;
    c += counted(r);
  }
  double s = 0;
  for (int i = 0; i < 1000; i++) s += a[i];
  printf("%.3f %ld\n", s, c);
  return 0;
}
