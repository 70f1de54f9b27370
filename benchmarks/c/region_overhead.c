/* Overhead of one adaptive region execution as a program compiled with -fplugin sees it: the
 * lowered begin (2 features, through __ompadapt_begin), the variant read by model_output, and
 * end, around an empty body. Trains first (2 variants x 4 feature vectors), then times
 * ITERS executions of the trained region and prints the median of REPEATS batches. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int chosen;
static volatile int sink;

static void region(int a, int b) {
#pragma omp begin adaptation model_name(overhead) features(a, b) variants(x, y) min_train_data(8) \
    model_output(chosen)
  sink += chosen;
#pragma omp end adaptation model_name(overhead)
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *p, const void *q) {
  double a = *(const double *)p, b = *(const double *)q;
  return (a > b) - (a < b);
}

int main(void) {
  enum { ITERS = 200000, REPEATS = 15 };
  for (int rep = 0; rep < 8; ++rep)
    for (int f = 0; f < 4; ++f) region(f, 2 * f);
  /* Empty loop cost, to subtract. */
  double base[REPEATS], t[REPEATS];
  for (int r = 0; r < REPEATS; ++r) {
    double t0 = now_ns();
    for (int i = 0; i < ITERS; ++i) sink += i & 3;
    base[r] = (now_ns() - t0) / ITERS;
    t0 = now_ns();
    for (int i = 0; i < ITERS; ++i) region(i & 3, 2 * (i & 3));
    t[r] = (now_ns() - t0) / ITERS;
  }
  qsort(base, REPEATS, sizeof base[0], cmp);
  qsort(t, REPEATS, sizeof t[0], cmp);
  printf("generated code, trained region (begin + 2 features + model_output + end): "
         "median %.1f ns per execution (loop alone %.1f ns), min %.1f ns\n",
         t[REPEATS / 2] - base[REPEATS / 2], base[REPEATS / 2], t[0] - base[0]);
  return 0;
}
