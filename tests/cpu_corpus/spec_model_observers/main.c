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
/* a firstprivate pointer still points at shared memory: every thread's update lands in a[3]
 * (atomic: a plain `p[3] += 1` from two threads is a data race, and under load it printed 1
 * where stock usually prints 2, in stock's builds as in ours) */
long firstpriv_ptr(void) {
  long *p = a;
#pragma omp parallel firstprivate(p) // expect: left atomically updates shared memory
  {
#pragma omp atomic
    p[3] += 1;
  }
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
/* a private copy carried from iteration to iteration of a thread (libgomp's
 * omp-parallel-for.c): lastprivate copies out the last thread's own sum */
long carried_sum(void) {
  long a = 30;
#pragma omp parallel for firstprivate(a) lastprivate(a) schedule(static) // expect: left carries what the thread's previous iteration left
  for (int i = 0; i < N; i++) a = a + i;
  return a;
}
/* the same with one iteration per chunk (libgomp's pr26943-1.c) */
long carried_chunks(void) {
  long b = 0;
#pragma omp parallel for firstprivate(b) lastprivate(b) schedule(static, 1) // expect: left carries what the thread's previous iteration left
  for (int i = 0; i < N; i++) b = b + i * 8;
  return b;
}
/* a running value written into shared memory: out[i] is the thread's count so far */
long carried_into_shared(void) {
  long k = 0;
#pragma omp parallel for firstprivate(k) // expect: left carries what the thread's previous iteration left
  for (int i = 0; i < N; i++) { k += 1; b[i] = k; }
  long t = 0;
  for (int i = 0; i < N; i++) t = t * 3 + b[i];
  return t;
}
int main(void) {
  printf("carried_sum %ld\n", carried_sum());
  printf("carried_chunks %ld\n", carried_chunks());
  printf("carried_into_shared %ld\n", carried_into_shared());
  printf("masked_filter %ld\n", masked_filter());
  printf("firstpriv_ptr %ld\n", firstpriv_ptr());
  printf("critical_shared %ld\n", critical_shared());
  printf("places %ld\n", places());
  printf("schedule_query %ld\n", schedule_query());
  return 0;
}
