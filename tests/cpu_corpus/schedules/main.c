/* corpus: team-size invariant (prints the same for every team size of every region) */
/* Irregular (triangular) work under the program's own schedules: schedule(runtime) reads
 * OMP_SCHEDULE, schedule(dynamic, 4) is the program's choice; both keep them (team sizes
 * only). */
#include <stdio.h>
#include <stdlib.h>

static double triangle(int n) {
  double s = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : s) // expect: adaptive
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) s += (double)((i ^ j) & 7);
  return s;
}

static long collatz(int n) {
  long steps = 0;
#pragma omp parallel for schedule(dynamic, 4) reduction(+ : steps) // expect: adaptive
  for (int i = 1; i <= n; ++i) {
    long x = i;
    while (x != 1) {
      x = (x & 1) ? 3 * x + 1 : x / 2;
      ++steps;
    }
  }
  return steps;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 20;
  double t = 0;
  long c = 0;
  for (int r = 0; r < reps; ++r) {
    t += triangle(r % 2 ? 40 : 900);
    c += collatz(r % 2 ? 50 : 20000);
  }
  printf("triangle=%.17g collatz=%ld\n", t, c);
  return 0;
}
