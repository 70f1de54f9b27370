/* corpus: team-size invariant (prints the same for every team size of every region) */
/* A parallel region whose every thread starts a nested parallel loop: the loop's work, divided
 * among the nested team, still happens once per thread of the outer team, so a smaller outer team
 * adds fewer times (the analysis once took the nested loop's worksharing as divided work of the
 * outer region too). The program divides by the team it asked for: stock prints 3000 with any
 * team; an outer region made serial behind its back prints 3000 / T. */
#include <omp.h>
#include <stdio.h>

#define N 1000
static double v[N];

static double total(void) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) // expect: adaptive
  for (int i = 0; i < N; i++)
    s += v[i];
  return s;
}

int main(void) {
  for (int r = 0; r < 3; ++r) {
#pragma omp parallel // expect: left atomically updates shared memory
    {
#pragma omp parallel for // expect: left nested in the parallel region
      for (int i = 0; i < N; i++) {
#pragma omp atomic
        v[i] += 1;
      }
    }
  }
  /* integer-valued: the sum is exact in any order */
  printf("total %.17g\n", total() / omp_get_max_threads());
  return 0;
}
