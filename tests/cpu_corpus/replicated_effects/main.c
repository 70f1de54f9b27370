/* Parallel regions whose code every thread of the team runs, with an effect each time: the
 * result counts the team's threads, with no question asked. Each is left as written (what the
 * program prints is stock's with the program's team, under every pinned variant). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int hits;
static void hit(void) {
#pragma omp atomic
  hits++;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int count = 0, calls = 0, greetings = 0, nested = 0;
  double s = 0, *x = malloc(sizeof *x * n);
#pragma omp parallel // expect: left every thread of the team atomically updates
  {
#pragma omp atomic
    count++;
  }
#pragma omp parallel reduction(+ : s) // expect: left reduction variable
  s += 1.0;
#pragma omp parallel // expect: left every thread of the team atomically updates
  hit();
#pragma omp parallel // expect: left every thread of the team writes shared memory
  {
#pragma omp critical
    {
      ++greetings;
      puts("hello from a thread");
    }
  }
#pragma omp parallel reduction(+ : calls) // expect: left reduction variable
  {
#pragma omp for
    for (int i = 0; i < n; ++i) x[i] = i;
    calls += 1;
  }
#pragma omp parallel for // expect: left every thread of the team atomically updates
  for (int i = 0; i < 4; ++i) {
    /* a nested region runs with a full team once this one is inactive (a team of one) */
#pragma omp parallel
    {
#pragma omp atomic
      nested++;
    }
  }
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += x[i];
  x[0] = sum;
  x[1] = -sum;
  printf("count=%d s=%g hits=%d greetings=%d calls=%d nested=%d sum=%g x0=%g x1=%g\n", count, s, hits, greetings, calls, nested,
         sum, x[0], x[1]);
  free(x);
  return 0;
}
