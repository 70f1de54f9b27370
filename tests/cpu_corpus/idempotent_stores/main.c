/* corpus: team-size invariant (prints the same for every team size of every region) */
/* Idempotent stores (ParRes p2p's `t0 = 0` before the wavefront): every thread of the team
 * stores the same value into a shared variable outside worksharing, which one thread storing it
 * leaves alike, so the region adapts. A variable every thread increments stays as written. */
#include <stdio.h>
#include <stdlib.h>

static double t0;
static int sweeps, entered;

static void sweep(int n, double *grid, double w) {
  double start;
#pragma omp parallel // expect: adaptive
  {
    t0 = 0;
    start = w * 2 + 1;
#pragma omp for
    for (int i = 1; i < n; ++i) grid[i] = 0.5 * (grid[i] + grid[i - 1]) * 0 + grid[i] * start + t0;
#pragma omp single
    sweeps++;
  }
}

static void count_entries(void) {
#pragma omp parallel // expect: left writes shared memory
  {
#pragma omp critical
    entered = entered + 1;
  }
}

int main(void) {
  int n = 3000;
  double *grid = malloc(sizeof *grid * n);
  for (int i = 0; i < n; ++i) grid[i] = (i % 17) * 0.001;
  for (int r = 0; r < 3; ++r) sweep(n, grid, 0.25);
  count_entries();
  double s = 0;
  for (int i = 0; i < n; ++i) s += grid[i];
  printf("sum %.6f sweeps %d t0 %.1f entered %d\n", s, sweeps, t0, entered > 0);
  free(grid);
  return 0;
}
