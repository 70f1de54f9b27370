/* Reductions (HeCBench dot/reduce style): sum, max, min and a count in one construct, a sum in
 * a loop over growing sizes (one kernel, many trip counts). The data are multiples of 1/8 with
 * small magnitudes, so every sum is exact in double whatever the order of the reduction, and the
 * results are compared for equality with the serial loop. */
#include <stdio.h>
#include <stdlib.h>

#define N 20000

static double dot(const double *a, const double *b, int n) {
  double sum = 0.0;
#pragma omp target teams distribute parallel for map(to: a[0:n], b[0:n]) reduction(+: sum)
  for (int i = 0; i < n; i++) sum += a[i] * b[i];
  return sum;
}

static void stats(const double *a, int n, double *sum, double *mx, double *mn, int *negative) {
  double s = 0.0, hi = -1e300, lo = 1e300;
  int cnt = 0;
#pragma omp target teams distribute parallel for map(to: a[0:n]) reduction(+: s, cnt) reduction(max: hi) reduction(min: lo)
  for (int i = 0; i < n; i++) {
    s += a[i];
    hi = a[i] > hi ? a[i] : hi;
    lo = a[i] < lo ? a[i] : lo;
    if (a[i] < 0) cnt++;
  }
  *sum = s, *mx = hi, *mn = lo, *negative = cnt;
}

int main(void) {
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  for (int i = 0; i < N; i++) {
    a[i] = ((i * 7) % 101 - 50) * 0.125;
    b[i] = ((i * 13) % 37) * 0.5;
  }
  int ok = 1;
  double total = 0.0;
  for (int n = 1000; n <= N; n += 1900) {
    double d = dot(a, b, n), r = 0.0;
    for (int i = 0; i < n; i++) r += a[i] * b[i];
    ok &= d == r;
    total += d;
    printf("dot n=%d value=%.6f\n", n, d);
  }
  double s, mx, mn;
  int neg;
  stats(a, N, &s, &mx, &mn, &neg);
  double rs = 0.0, rmx = -1e300, rmn = 1e300;
  int rneg = 0;
  for (int i = 0; i < N; i++) {
    rs += a[i];
    rmx = a[i] > rmx ? a[i] : rmx;
    rmn = a[i] < rmn ? a[i] : rmn;
    rneg += a[i] < 0;
  }
  ok &= s == rs && mx == rmx && mn == rmn && neg == rneg;
  printf("reductions sum=%.6f max=%.6f min=%.6f negative=%d dots=%.6f\n", s, mx, mn, neg, total);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
