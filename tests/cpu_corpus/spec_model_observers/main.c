/* The model of what a parallel region can observe (docs/soundness.md): items whose constructs
 * make the result depend on the team, each left as written with the reason. `masked filter(1)`:
 * a team of one has no thread 1, and the block would not run (issue 41's model, found by it). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#define N 64
long a[N], b[N], g;
long masked_filter(void) {
  long x = 0;
#pragma omp parallel // expect: left filters on a thread other than the primary one
  {
#pragma omp masked filter(1)
    x = 5;
  }
  return x;
}
long firstpriv_ptr(void) {
  long *p = a;
#pragma omp parallel firstprivate(p) // expect: left writes shared memory
  { p[3] += 1; }
  return a[3];
}
long critical_shared(void) {
  long c = 0;
#pragma omp parallel // expect: left writes shared memory
  {
#pragma omp critical
    c++;
  }
  return c;
}
long places(void) {
  long t = 0;
#pragma omp parallel for reduction(+: t) // expect: left omp_get_place_num
  for (int i = 0; i < N; i++) t += omp_get_place_num() >= -1;
  return t;
}
long schedule_query(void) {
  long t = 0;
#pragma omp parallel for reduction(+: t) // expect: left omp_get_schedule
  for (int i = 0; i < N; i++) {
    omp_sched_t k; int c;
    omp_get_schedule(&k, &c);
    t += c >= 0;
  }
  return t;
}
int main(void) {
  printf("masked_filter %ld\n", masked_filter());
  printf("firstpriv_ptr %ld\n", firstpriv_ptr());
  printf("critical_shared %ld\n", critical_shared());
  printf("places %ld\n", places());
  printf("schedule_query %ld\n", schedule_query());
  return 0;
}
