/* A region whose label wins where it is measured and, with a penalty, loses the whole run:
 * variant `cpu` spins 0.3 ms in the region and `gpu` (the program's own variant, as for an
 * offload written with a target construct) 1.5 ms, so exploration labels `cpu`. With the
 * argument `penalty`, every execution of `cpu` costs the code after the region 4 ms more,
 * which no measurement of the region sees: a run with the label takes 4.3 ms a step against
 * the own variant's 1.5 ms. (A variant that leaves a cost behind it: a team left spinning, data
 * left on the wrong side, a cache filled with what the next code does not read.) Without it
 * the label is 5x faster over the whole run too. The costs are far apart on purpose: spins only
 * get longer on a loaded machine, for both sides.
 * Usage: whole_run [penalty] -> prints `DECISION n=0 variant=V` (the first step's variant) and
 * the checked result of a real reduction. */
#include "common.h"
#include <string.h>

#define STEPS 100

static int choice;

static double step_of(const double *a, int n) {
  double sum = 0;
#pragma omp begin adaptation model_name(whole_run) features(n) variants(cpu, gpu) model_output(choice)
  spin_us(choice == 0 ? 300 : 1500);
#pragma omp parallel for reduction(+ : sum)
  for (int i = 0; i < n; ++i)
    sum += a[i];
#pragma omp end adaptation model_name(whole_run)
  return sum;
}

int main(int argc, char **argv) {
  int penalty = argc > 1 && strcmp(argv[1], "penalty") == 0;
  int n = 1000;
  double *a = filled((size_t)n, 2.0);
  double expect = (double)n * (n - 1) + 0.25 * n;
  for (int step = 0; step < STEPS; ++step) {
    double sum = step_of(a, n);
    if (sum != expect) {
      fprintf(stderr, "WRONG sum %.17g, expected %.17g (variant %d)\n", sum, expect, choice);
      return 2;
    }
    if (step == 0)
      printf("DECISION n=0 variant=%d\n", choice);
    if (penalty && choice == 0)
      spin_us(4000);
  }
  printf("result %.0f\n", expect);
  free(a);
  return 0;
}
