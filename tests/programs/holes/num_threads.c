/* The team "the program asked for" (issue 41, hole 3): a region's num_threads clause is the
 * base of the threads=F variants and the team of threads=1 (tests/filecheck/flang_forms.f90
 * checks that flang's push, emitted blocks before the fork, is found). */
#include <stdio.h>

int main(void) {
  int n = 3;
  long a[600];
#pragma omp parallel for num_threads(n)
  for (int i = 0; i < 600; i++) a[i] = (long)i * i;
#pragma omp parallel for num_threads(1)
  for (int i = 0; i < 600; i++) a[i] += i;
  long s = 0;
  for (int i = 0; i < 600; i++) s += a[i];
  printf("sum %ld\n", s);
  return 0;
}
