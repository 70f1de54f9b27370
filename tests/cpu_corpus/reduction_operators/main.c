/* Reductions whose private copies are updated through the reduction's operator (they adapt, and
 * print the same with any team) and ones updated otherwise (left as written: their combined
 * value depends on how the iterations were divided, so stock itself prints another number with
 * another team). Issue 41: `reduction(+: top)` with `if (i*i > top) top = i*i` adapted and
 * printed another maximum under `serial`. Integer values only: every order sums alike. */
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

static void combining_forms(long n, long *r) {
  long sum = 0, sub = 0, mn = 1L << 40, mx = -1, mx2 = -1, prod = 1, bits = 0, hist[5] = {0};
  double fmx = 0, fsum = 0;
  unsigned char small = 0;
#pragma omp parallel for reduction(+ : sum, fsum, small) reduction(- : sub) reduction(min : mn) reduction(max : mx, mx2, fmx) reduction(* : prod) reduction(^ : bits) reduction(+ : hist) // expect: adaptive
  for (long i = 0; i < n; i++) {
    sum = i % 13 + sum;
    fsum += (double)(i % 5);
    small += (unsigned char)i;
    sub -= i % 3;
    if ((i * 7919) % 10007 < mn) mn = (i * 7919) % 10007;
    mx = mx > (i * 31) % 977 ? mx : (i * 31) % 977;
    if (mx2 < i % 501) mx2 = i % 501;
    fmx = fmax(fmx, (double)((i * 3) % 41));
    if (i % 500 == 0) prod *= 2;
    bits ^= i * 2654435761L;
    hist[i % 5] = hist[i % 5] + i % 4;
  }
  r[0] = sum + (long)fsum + small + sub;
  r[1] = mn + mx + mx2 + (long)fmx + prod + bits;
  r[2] = hist[0] * 3 + hist[1] * 5 + hist[4];
}

int main(void) {
  static long out[N];
  long r[3] = {0};
  for (int rep = 0; rep < 20; rep++) combining_forms(N, r);
  printf("combining %ld %ld %ld\n", r[0], r[1], r[2]);
  printf("max_through_plus %ld\n", max_through_plus(N));
  printf("product_through_plus %ld\n", product_through_plus(N));
  printf("capped_count %ld\n", capped_count(N));
  printf("prefix_sums %ld %ld\n", prefix_sums(N, out), out[N / 2]);
  return 0;
}
