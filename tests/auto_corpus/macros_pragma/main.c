/* Directives written through macros, as portable suites do: sizes and launch bounds from
 * macros in the clauses, `_Pragma` directly and through a wrapper macro, a kernel whose loop
 * bound is a macro expression. */
#include <stdio.h>
#include <stdlib.h>

#define LOG2N 14
#define NELEMS (1 << LOG2N)
#define BLOCK_SIZE 128
#define NUM_TEAMS (NELEMS / BLOCK_SIZE / 64)
#define PRAGMA(x) _Pragma(#x)
#define OMP_OFFLOAD(clauses) PRAGMA(omp target teams distribute parallel for clauses)
#define SCALE(v) ((v) * 0.5 + 1.0)

int main(void) {
  double *x = malloc(NELEMS * sizeof *x), *y = malloc(NELEMS * sizeof *y);
  for (int i = 0; i < NELEMS; i++) x[i] = (i % 11) * 0.25, y[i] = (i % 3) * 1.0;

  OMP_OFFLOAD(map(to: x[0:NELEMS]) map(tofrom: y[0:NELEMS]) thread_limit(BLOCK_SIZE) num_teams(NUM_TEAMS))
  for (int i = 0; i < NELEMS; i++) y[i] += SCALE(x[i]);

  double s = 0;
  _Pragma("omp target teams distribute parallel for map(to: y[0:NELEMS]) reduction(+:s)")
  for (int i = 0; i < NELEMS; i++) s += y[i];

#define HALF (NELEMS / 2)
  OMP_OFFLOAD(map(tofrom: y[0:HALF]))
  for (int i = 0; i < HALF; i++) y[i] = -y[i];

  double r = 0, e = 0;
  int ok = 1;
  for (int i = 0; i < NELEMS; i++) {
    double v = (i % 3) * 1.0 + SCALE((i % 11) * 0.25);
    r += v;
    ok &= y[i] == (i < HALF ? -v : v);
    e += y[i];
  }
  ok &= s == r;
  printf("macros_pragma n=%d sum=%.6f signed=%.6f\n", NELEMS, s, e);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
