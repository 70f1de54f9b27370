/* A host parallel loop that zero-source-change mode makes adaptive (-fplugin-arg-ompadapt-auto:
 * `serial` and the shares 0.125, 0.25, 0.5 and 1 of the team), run REPS times on each size. On
 * a team of 2 the shares 0.125, 0.25 and 0.5 are serial's one thread: measured once there.
 * Usage: host_teams REPS N...  -> prints `DONE sum=S` (the loop's result, the same whatever
 * variant ran). */
#include <stdio.h>
#include <stdlib.h>

#define MAX_N (1 << 16)
static double a[MAX_N];

static void step(int n) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i)
    a[i] = 0.5 * a[i] + 1.0;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 1;
  for (int r = 0; r < reps; ++r)
    for (int i = 2; i < argc; ++i) {
      int n = atoi(argv[i]);
      step(n < MAX_N ? n : MAX_N);
    }
  double sum = 0;
  for (int i = 0; i < MAX_N; ++i) sum += a[i];
  printf("DONE sum=%.6f\n", sum);
  return 0;
}
