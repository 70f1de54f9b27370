/* threadprivate data persists between parallel regions only while their teams keep one size:
 * where a parallel region of a translation unit uses it, its parallel regions stay as written —
 * also those that do not touch it. */
#include <omp.h>
#include <stdio.h>

static int counter;
#pragma omp threadprivate(counter)

int main(void) {
  long total = 0;
  double x[64];
  for (int r = 0; r < 10; ++r) {
#pragma omp parallel // expect: left omp_get_thread_num
    counter += omp_get_thread_num() + 1;
  }
#pragma omp parallel reduction(+ : total) // expect: left it uses thread-local data 'counter'
  total += counter;
#pragma omp parallel for // expect: left threadprivate (thread-local) data 'counter' is used by a parallel region
  for (int i = 0; i < 64; ++i) x[i] = i * 0.5;
  printf("total=%ld x[63]=%g\n", total, x[63]);
  return 0;
}
