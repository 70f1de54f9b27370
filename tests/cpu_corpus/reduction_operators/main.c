/* team-size invariant. Reductions whose private copies are updated through the reduction's
 * operator, in every form clang emits for it (`x = e + x`, `x -= e`, `x op= e`, conversions,
 * `if (e < m) m = e`, `m = m > e ? m : e`, `fmax`, array sections): they adapt and print the same
 * with any team. Integer values only: every order sums alike. The forms that are not updates
 * through the operator are in ../reduction_operators_left. */
#include <math.h>
#include <stdio.h>

#define N 3000

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
  long r[3] = {0};
  for (int rep = 0; rep < 20; rep++) combining_forms(N, r);
  printf("combining %ld %ld %ld\n", r[0], r[1], r[2]);
  return 0;
}
