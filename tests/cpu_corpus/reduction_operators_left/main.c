/* Reductions whose private copies are updated otherwise than through the reduction's operator,
 * or whose partial values are read: the combined value depends on how the iterations were
 * divided (stock itself prints another number with another team), so each stays as written.
 * Issue 41: `reduction(+: top)` with `if (i*i > top) top = i*i` adapted and printed another
 * maximum under `serial`. */
#include <math.h>
#include <stdio.h>

#define N 3000

static long max_through_plus(long n) {
  long top = 0;
#pragma omp parallel for reduction(+ : top) // expect: left other than the reduction's operator (+)
  for (long i = 0; i < n; i++)
    if (i * i % 1009 > top) top = i * i % 1009;
  return top;
}

static long product_through_plus(long n) {
  long p = 1;
#pragma omp parallel for reduction(* : p) // expect: left other than the reduction's operator (*)
  for (long i = 1; i < n; i++)
    p = p + i % 7;
  return p;
}

static long capped_count(long n) {
  long c = 0;
#pragma omp parallel for reduction(+ : c) // expect: left reads the partial value
  for (long i = 0; i < n; i++)
    if (c < 100) c = c + 1;
  return c;
}

static long prefix_sums(long n, long *out) {
  long s = 0;
#pragma omp parallel for reduction(+ : s) // expect: left reads the partial value
  for (long i = 0; i < n; i++) {
    s += i % 11;
    out[i] = s;
  }
  return s;
}

int main(void) {
  static long out[N];
  printf("max_through_plus %ld\n", max_through_plus(N));
  printf("product_through_plus %ld\n", product_through_plus(N));
  printf("capped_count %ld\n", capped_count(N));
  printf("prefix_sums %ld %ld\n", prefix_sums(N, out), out[N / 2]);
  return 0;
}
