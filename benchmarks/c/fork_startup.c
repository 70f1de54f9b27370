/* The fork cost of a 2-thread team over a process's first parallel regions, stock OpenMP (no
 * ompadapt): why a host region's exploration, which measures in the process's first executions,
 * can see `threads=1` many times slower than it runs later (docs/performance.md, "The speed
 * tables at quiet-machine sizes": heat-3d, durbin, LULESH's small regions labelled `serial`).
 * On the 2-core machine here, in 9 of 12 runs the 100th empty region still took 40-43 us and
 * the steady cost, 1.5 us, came only after 5-30 ms; the other 3 runs were at 1.6 us by the
 * 10th region. Prints the mean of ten consecutive regions at several points, and the total.
 * Build: clang-19 -O2 -fopenmp fork_startup.c; run it several times. */
#include <stdio.h>
#include <time.h>

#define REGIONS 20000

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(void) {
  static double took[REGIONS];
  volatile int touched = 0;
  double start = now_us();
  for (int i = 0; i < REGIONS; i++) {
    double t = now_us();
#pragma omp parallel num_threads(2)
    { touched++; }
    took[i] = now_us() - t;
  }
  double end = now_us();
  const int at[] = {0, 10, 100, 200, 500, 1000, 2000, 5000, 10000, REGIONS - 10};
  for (unsigned k = 0; k < sizeof at / sizeof at[0]; k++) {
    double sum = 0;
    for (int j = at[k]; j < at[k] + 10; j++)
      sum += took[j];
    printf("regions %5d..%5d: %6.1f us each\n", at[k], at[k] + 9, sum / 10);
  }
  printf("all %d regions: %.1f ms\n", REGIONS, (end - start) / 1e3);
  return 0;
}
