/* Reductions whose private copies are not updated through the reduction's operator (issue 41,
 * hole 2): their combined value depends on how the iterations were divided, so those regions
 * must stay as written; the correct forms beside them adapt and print the same with any team. */
#include <stdio.h>

int main(void) {
  long top = 0, p = 1, s = 0, m = 0, c = 0;
#pragma omp parallel for reduction(+ : top)
  for (long i = 0; i < 1000; i++)
    if (i * i % 997 > top) top = i * i % 997;
#pragma omp parallel for reduction(* : p)
  for (long i = 1; i < 100; i++) p = p + i;
#pragma omp parallel for reduction(+ : c)
  for (long i = 0; i < 1000; i++)
    if (c < 7) c = c + 1;
#pragma omp parallel for reduction(+ : s)
  for (long i = 0; i < 1000; i++) s += i % 7;
#pragma omp parallel for reduction(max : m)
  for (long i = 0; i < 1000; i++)
    if (i * 31 % 1013 > m) m = i * 31 % 1013;
  printf("top %ld p %ld capped %ld sum %ld max %ld\n", top, p, c, s, m);
  return 0;
}
