/* Plain OpenMP in C, nothing adaptive: the plugin must leave every diagnostic as it is. */
#include <omp.h>
#include <stdio.h>

static int counter;
#pragma omp threadprivate(counter)

#pragma omp declare simd uniform(a) linear(i)
static double lane(const double *a, int i) { return a[i] * 2; }

int main(int argc, char **argv) {
  double a[64], s = 0;
  (void)argv;
  for (int i = 0; i < 64; ++i)
    a[i] = i;
#pragma omp parallel for simd reduction(+: s)
  for (int i = 0; i < 64; ++i)
    s += lane(a, i);
#pragma omp parallel sections
  {
#pragma omp section
    counter = 1;
#pragma omp section
    counter = 2;
  }
#pragma omp parallel
  {
#pragma omp for schedule(dynamic, 4) nowait
    for (int i = 0; i < 64; ++i)
      a[i] += omp_get_thread_num();
#pragma omp barrier
#pragma omp critical(print)
    counter++;
#pragma omp masked
    s += 1;
  }
#pragma omp target teams distribute parallel for map(tofrom: a) if(argc > 5)
  for (int i = 0; i < 64; ++i)
    a[i] -= 1;
#pragma omp taskloop grainsize(8)
  for (int i = 0; i < 64; ++i)
    a[i] *= 1;
#pragma omp metadirective when(device={kind(host)}: parallel for) default(simd)
  for (int i = 0; i < 64; ++i)
    a[i] += 1;
  printf("%g %d\n", s, counter);
  return 0;
}
