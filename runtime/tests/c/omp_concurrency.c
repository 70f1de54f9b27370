/* One region executed concurrently by many OpenMP threads: inside `parallel for`, from tasks,
 * and nested inside another region, each execution with its own context on its stack. The
 * test (tests/openmp.rs) reads the JSON report and checks every execution was counted.
 * Usage: omp_concurrency <iterations per thread> */
#include "ompadapt.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static const char *OUTER = "ompadapt1;model=outer;loc=omp_concurrency.c:11;features=n,t;variants=a,b,c";
static const char *INNER = "ompadapt1;model=inner;loc=omp_concurrency.c:12;features=k;variants=x,y";
static void *outer_slot, *inner_slot;
static volatile double sink;

static void body(long iters) {
  double s = 0;
  for (long i = 0; i < iters; i++) s += (double)i;
  sink = s;
}

static void inner(int k) {
  ompadapt_ctx c;
  double f[1] = {(double)(k % 3)};
  ompadapt_begin(&inner_slot, INNER, 4, -1, -1, f, 1, &c);
  body(20 + 10 * c.variant);
  ompadapt_end(&c);
}

/* an outer execution with a nested inner one every 4th time */
static void outer(int n, int t) {
  ompadapt_ctx c;
  double f[2] = {(double)(n % 5), (double)t};
  ompadapt_begin(&outer_slot, OUTER, 30, -1, -1, f, 2, &c);
  if (c.features[1] != (double)t) abort(); /* the context is this execution's */
  if (n % 4 == 0) inner(n);
  body(50 + 25 * c.variant);
  ompadapt_end(&c);
}

int main(int argc, char **argv) {
  int per = argc > 1 ? atoi(argv[1]) : 1000;
  int threads = 16;
  /* 1. a worksharing loop: every thread runs the region */
#pragma omp parallel for num_threads(threads) schedule(dynamic, 7)
  for (int i = 0; i < per * threads; i++) outer(i, omp_get_thread_num());
  /* 2. tasks: created by one thread, executed by any */
#pragma omp parallel num_threads(threads)
#pragma omp single
  for (int i = 0; i < per * threads; i++) {
#pragma omp task firstprivate(i)
    outer(i, omp_get_thread_num());
  }
  /* 3. nested parallelism: a region inside a parallel region inside a parallel region */
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(4)
  {
#pragma omp parallel num_threads(4)
    for (int i = 0; i < per; i++) outer(i, omp_get_thread_num());
  }
  printf("outer %d inner %d\n", 3 * per * threads, 3 * per * threads / 4);
  return 0;
}
