/* A HeCBench-style program: one kernel launch per process, the region executed once per run,
 * so the runtime can only learn across runs. Eleven variants (a tile size, say): the best
 * (0-based BEST) spins 1 ms, every other one 40 ms + 1 ms per step away, on top of a real
 * reduction whose result is checked. The costs are far apart on purpose: each run measures one
 * execution, and on a loaded machine (CI beside other work) a wall-clock spin only ever gets
 * longer, by a preemption at its end; 39 ms of margin keep one-shot labels right at load 8. Build with -DBEST=k to move the fastest variant (default 6, t7); every build names its model
 * `by_len` and every executable is called `main`, as HeCBench's are.
 * Usage: main N  -> prints `DECISION n=N variant=V` and what the program computed. */
#include "common.h"

#ifndef BEST
#define BEST 6
#endif

static int choice;

static double kernel(const double *a, int n) {
  double sum = 0;
#pragma omp begin adaptation model_name(by_len) features(n) \
    variants(t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11) model_output(choice)
  spin_us(choice == BEST ? 1000 : 40000 + 1000 * abs(choice - BEST));
#pragma omp parallel for reduction(+ : sum) num_threads(1 + choice % 2)
  for (int i = 0; i < n; ++i)
    sum += a[i];
#pragma omp end adaptation model_name(by_len)
  return sum;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  double *a = filled((size_t)n, 2.0);
  double sum = kernel(a, n);
  /* sum of 2i + 0.25 for i < n, exact in double for these sizes */
  double expect = (double)n * (n - 1) + 0.25 * n;
  if (sum != expect) {
    fprintf(stderr, "WRONG sum %.17g, expected %.17g (variant %d)\n", sum, expect, choice);
    return 2;
  }
  printf("result %.0f\n", sum);
  printf("DECISION n=%d variant=%d\n", n, choice);
  free(a);
  return 0;
}
