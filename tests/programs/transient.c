/* A region whose costs change after a start-up transient, as a process's first executions can
 * (libomp's first forks, first touches of the data): variant `early` spins 40 ms and `late` 60 ms
 * in the first 60 executions; from then on `early` spins 6 ms and `late` 1 ms. Exploration
 * measures in the transient and labels `early`; its trained executions then run at 6 ms, under
 * a sixth of the time it was chosen on. A later run's recheck sees that in the stored data,
 * waits until an execution of `early` shows the steady rate, measures both again and labels
 * `late`. The costs are far apart on purpose: a wall-clock spin only gets longer on a loaded
 * machine, by whole time slices where the team waits at its barrier for a descheduled thread.
 * The recheck needs the trained mean 1.5x under the measured time: with four busy loops beside
 * it on two cores, 6 ms against 3 ms steady took every execution to 10-16 ms and no recheck
 * came; here the executions may take 60 ms longer before that happens.
 * Usage: transient  -> prints `DECISION n=STEP variant=V` for the first and the last execution
 * and the checked result of a real reduction. */
#include "common.h"

#define STEPS 300
#define TRANSIENT 60

static int choice;

static double step_of(const double *a, int n, int step) {
  double sum = 0;
#pragma omp begin adaptation model_name(transient) features(n) variants(early, late) model_output(choice)
  spin_us(step < TRANSIENT ? (choice == 0 ? 40000 : 60000) : (choice == 0 ? 6000 : 1000));
#pragma omp parallel for reduction(+ : sum)
  for (int i = 0; i < n; ++i)
    sum += a[i];
#pragma omp end adaptation model_name(transient)
  return sum;
}

int main(void) {
  int n = 1000;
  double *a = filled((size_t)n, 2.0);
  double expect = (double)n * (n - 1) + 0.25 * n;
  for (int step = 0; step < STEPS; ++step) {
    double sum = step_of(a, n, step);
    if (sum != expect) {
      fprintf(stderr, "WRONG sum %.17g, expected %.17g (variant %d)\n", sum, expect, choice);
      return 2;
    }
    if (step == 0 || step == STEPS - 1)
      printf("DECISION n=%d variant=%d\n", step, choice);
  }
  printf("result %.0f\n", expect);
  free(a);
  return 0;
}
