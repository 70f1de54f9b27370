/* corpus: team-size invariant (prints the same for every team size of every region) */
/* NPB bt/sp's compute_rhs: every thread calls it, and `if (timeron && thread_id == 0)` lets
 * thread 0 alone start and stop a timer, as `masked` would; here thread 0 also counts the
 * calls. The block runs once per execution of the region whatever the team, so the region
 * adapts. A guard inside the worksharing loop (NPB's EP) gives thread 0 a team-dependent
 * share of the iterations: left as written. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int timeron = 1;
static long calls;
static double start[4], elapsed[4];

static void timer_start(int n) { start[n] = omp_get_wtime(); }
static void timer_stop(int n) { elapsed[n] += omp_get_wtime() - start[n]; }

static void compute_rhs(int n, double *rhs, const double *u) {
  int thread_id = omp_get_thread_num();
  if (timeron && thread_id == 0) {
    timer_start(1);
    calls++;
  }
#pragma omp for
  for (int i = 1; i < n - 1; ++i) rhs[i] = u[i - 1] - 2 * u[i] + u[i + 1];
  if (timeron && thread_id == 0) timer_stop(1);
}

static void adi(int n, double *rhs, const double *u) {
#pragma omp parallel // expect: adaptive
  compute_rhs(n, rhs, u);
}

static long ep_like(int n) {
  long mine = 0;
#pragma omp parallel reduction(+ : mine) // expect: left omp_get_thread_num
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (int k = 0; k < n; ++k)
      if (tid == 0) mine += 1;
  }
  return mine > 0;
}

int main(void) {
  int n = 4000;
  double *u = malloc(sizeof *u * n), *rhs = calloc(n, sizeof *rhs);
  for (int i = 0; i < n; ++i) u[i] = (i * 13) % 29;
  for (int step = 0; step < 6; ++step) {
    adi(n, rhs, u);
    for (int i = 1; i < n - 1; ++i) u[i] += 0.1 * rhs[i];
  }
  double s = 0;
  for (int i = 0; i < n; ++i) s += u[i];
  printf("sum %.6f calls %ld ep %ld timed %d\n", s, calls, ep_like(n), elapsed[1] >= 0);
  free(u);
  free(rhs);
  return 0;
}
