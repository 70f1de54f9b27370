/* threadprivate data persists between parallel regions only while their teams keep one size:
 * where a parallel region of a translation unit uses it, its parallel regions stay as written. */
#include <omp.h>
#include <stdio.h>

static int counter;
#pragma omp threadprivate(counter)

int main(void) {
  long total = 0;
  for (int r = 0; r < 10; ++r) {
#pragma omp parallel // expect: left threadprivate
    counter += omp_get_thread_num() + 1;
  }
#pragma omp parallel reduction(+ : total) // expect: left threadprivate
  total += counter;
  printf("total=%ld\n", total);
  return 0;
}
