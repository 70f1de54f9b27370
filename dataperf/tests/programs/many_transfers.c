/* Millions of small transfers with distinct contents: the analysis must stay under its memory
 * cap (and say it forgot detail), with every transfer counted. */
#include "common.h"
int main(int argc, char **argv) {
  long count = argc > 1 ? atol(argv[1]) : 2000000;
  double x = 0;
  double acc = 0;
#pragma omp target enter data map(to: x) /* @enter */
  for (long i = 0; i < count; i++) {
    x = (double)i;
#pragma omp target update to(x) /* @update */
  }
#pragma omp target map(tofrom: acc) /* @kernel */
  acc = x;
#pragma omp target exit data map(delete: x)
  printf("CHECK acc=%.1f\n", acc);
  return 0;
}
