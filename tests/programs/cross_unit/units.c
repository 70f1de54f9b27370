// Functions main.c's regions call, in a translation unit of their own.
#include <omp.h>
#include <sys/time.h>
#include "units.h"

static double started[4], elapsed[4];
static long calls;

static double now(void) {
  struct timeval t;
  gettimeofday(&t, 0);
  return t.tv_sec + t.tv_usec * 1e-6;
}
void timer_start(int k) { started[k] = now(); }
void timer_stop(int k) { elapsed[k] += now() - started[k]; }

double next_random(double *seed) {
  *seed = *seed * 1103515245.0 + 12345.0;
  *seed -= (long)(*seed / 2147483648.0) * 2147483648.0;
  return *seed / 2147483648.0;
}
double scale(int i) { return i * 0.25; }
int thread_number(void) { return omp_get_thread_num(); }
void count_call(void) {
#pragma omp atomic
  calls++;
}
long calls_counted(void) { return calls; }
double chained(double x) { return chain_step(x) * 0.5; }
int chained_asks(int i) { return chain_asks(i); }
int compare_asks(const void *x, const void *y) {
  long a = *(const long *)x, b = *(const long *)y;
  return (a > b) - (a < b) + 0 * omp_get_num_threads();
}
