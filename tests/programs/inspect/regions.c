// Regions of every outcome, for `ompadapt inspect` and for names and places equal in both
// builds (tests/tests/inspect.rs): one adaptive host region, one left as written (it asks for
// its thread number), one offload launch, and a launch's own parallel constructs.
#include <omp.h>
#include <stdio.h>

static int thread_sum(void) {
  int s = 0;
#pragma omp parallel reduction(+ : s)
  s += omp_get_thread_num();
  return s;
}

int main(int argc, char **argv) {
  int n = 1000 * argc;
  static double a[4000], b[4000];
    #pragma omp parallel for
  for (int i = 0; i < n; i++)
    a[i] = i;
#pragma omp target teams distribute parallel for map(to : a[0 : n]) map(from : b[0 : n])
  for (int i = 0; i < n; i++)
    b[i] = 2 * a[i];
  printf("%g %d\n", b[n - 1], thread_sum() >= 0);
  return 0;
}
