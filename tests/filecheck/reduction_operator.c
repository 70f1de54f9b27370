// A reduction's combined value is independent of the team only where every update of a thread's
// private copy applies the reduction's operator (OpenMP 5.2 §5.5.8); the operator is read from
// the reduction function handed to __kmpc_reduce. Regions whose private copies are updated
// otherwise, or whose partial values are read, stay as written (OMPADAPT146) in both builds.
//
// RUN: cd %S && %clang -O2 -c -gline-tables-only -fplugin=%plugin -fplugin-arg-ompadapt-auto -Rpass=ompadapt -Rpass-missed=ompadapt reduction_operator.c -o %t.o 2> %t.auto
// RUN: %FileCheck %s < %t.auto
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O2 -c -gline-tables-only -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt reduction_operator.c -o %t.o 2> %t.pass
// RUN: %FileCheck %s < %t.pass
#include <math.h>

#define N 1000
long out[N];

// CHECK-DAG: [OMPADAPT146] region 'max_through_plus@{{.*}}': left as written: it updates its copy of a reduction variable by something other than the reduction's operator (+)
long max_through_plus(void) {
  long top = 0;
#pragma omp parallel for reduction(+ : top)
  for (long i = 0; i < N; i++)
    if (i * i > top) top = i * i;
  return top;
}

// CHECK-DAG: [OMPADAPT146] region 'sum_through_times@{{.*}}': left as written: it updates its copy of a reduction variable by something other than the reduction's operator (*)
long sum_through_times(void) {
  long p = 1;
#pragma omp parallel for reduction(* : p)
  for (long i = 1; i < 10; i++) p = p + i;
  return p;
}

// CHECK-DAG: [OMPADAPT146] region 'min_through_max@{{.*}}': left as written: it updates its copy of a reduction variable by something other than the reduction's operator (max)
long min_through_max(void) {
  long m = 0;
#pragma omp parallel for reduction(max : m)
  for (long i = 1; i < N; i++)
    if (i % 17 < m) m = i % 17;
  return m;
}

// CHECK-DAG: [OMPADAPT146] region 'square@{{.*}}': left as written: it reads the partial value
long square(void) {
  long s = 1;
#pragma omp parallel for reduction(+ : s)
  for (long i = 1; i < 4; i++) s = s + s;
  return s;
}

// CHECK-DAG: [OMPADAPT146] region 'capped@{{.*}}': left as written: it reads the partial value
long capped(void) {
  long c = 0;
#pragma omp parallel for reduction(+ : c)
  for (long i = 0; i < N; i++)
    if (c < 10) c = c + 1;
  return c;
}

// CHECK-DAG: [OMPADAPT146] region 'prefix@{{.*}}': left as written: it reads the partial value
long prefix(void) {
  long s = 0;
#pragma omp parallel for reduction(+ : s)
  for (long i = 0; i < N; i++) {
    s += i;
    out[i] = s;
  }
  return s;
}

// CHECK-DAG: [OMPADAPT146] region 'argmax@{{.*}}': left as written
long argmax(void) {
  long m = -1, k = 0;
#pragma omp parallel for reduction(max : m) reduction(+ : k)
  for (long i = 0; i < N; i++)
    if (i % 37 > m) {
      m = i % 37;
      k += 1;
    }
  return m + k;
}

// CHECK-DAG: [OMPADAPT146] region 'reset@{{.*}}': left as written: it updates its copy of a reduction variable by something other than the reduction's operator (+)
long reset(void) {
  long s = 0;
#pragma omp parallel for reduction(+ : s)
  for (long i = 0; i < N; i++) {
    if (i % 100 == 0) s = 0;
    s += i;
  }
  return s;
}

static void accumulate(long *s, long v) { *s += v; }
// CHECK-DAG: [OMPADAPT146] region 'through_a_call@{{.*}}': left as written: it hands the address of its copy of a reduction variable
long through_a_call(void) {
  long s = 0;
#pragma omp parallel for reduction(+ : s)
  for (long i = 0; i < N; i++) accumulate(&s, i);
  return s;
}

typedef struct { long v; } box;
#pragma omp declare reduction(boxsum : box : omp_out.v += omp_in.v) initializer(omp_priv = {0})
// CHECK-DAG: [OMPADAPT146] region 'user_defined@{{.*}}': left as written:
long user_defined(void) {
  box b = {0};
#pragma omp parallel for reduction(boxsum : b)
  for (long i = 0; i < N; i++) b.v += i;
  return b.v;
}

// The operator's own forms adapt:
// CHECK-DAG: [OMPADAPT150] region 'forms@{{.*}}': the parallel region became adaptive
double forms(long *r) {
  long sum = 0, sub = 0, mn = 1L << 40, mx = -1, mx2 = -1, prod = 1, bits = 0, hist[5] = {0};
  double fmx = 0, fsum = 0;
  float narrow = 0;
  unsigned char small = 0;
#pragma omp parallel for reduction(+ : sum, fsum, small, narrow) reduction(- : sub) reduction(min : mn) reduction(max : mx, mx2, fmx) reduction(* : prod) reduction(^ : bits) reduction(+ : hist)
  for (long i = 0; i < N; i++) {
    sum = i % 13 + sum;
    fsum += (double)(i % 5);
    narrow += 0.5 * i;
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
  r[0] = sum + small + sub + mn + mx + mx2 + prod + bits + hist[2];
  return fsum + fmx + narrow;
}

// An array section through a pointer (clang keeps a pointer to the private copy in a local):
// CHECK-DAG: [OMPADAPT150] region 'section@{{.*}}': the parallel region became adaptive
void section(long *h) {
#pragma omp parallel for reduction(+ : h[0 : 4])
  for (long i = 0; i < N; i++) h[i % 4] += i;
}

// In a kernel the same: `cpu`, `thread_limit` and `num_teams` divide the iterations otherwise, so
// they are dropped and, with `gpu` alone left, the launch stays as written (OMPADAPT155).
// CHECK-DAG: [OMPADAPT155] region 'kernel_max_through_plus@{{.*}}': left as written: in the kernel it updates its copy of a reduction variable by something other than the reduction's operator (+)
long kernel_max_through_plus(void) {
  long top = 0;
#pragma omp target teams distribute parallel for reduction(+ : top) map(tofrom : top)
  for (long i = 0; i < N; i++)
    if (i * i % 4093 > top) top = i * i % 4093;
  return top;
}

// CHECK-DAG: [OMPADAPT154] region 'kernel_sum@{{.*}}': the offload launch became an adaptive region
long kernel_sum(void) {
  long s = 0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(tofrom : s)
  for (long i = 0; i < N; i++) s += i;
  return s;
}

// Chains of the operator are updates through it, `(x + a) + b`; `(x + a) * 2` is not:
// CHECK-DAG: [OMPADAPT150] region 'chains@{{.*}}': the parallel region became adaptive
long chains(void) {
  long s = 0, t = 0, p = 1;
#pragma omp parallel for reduction(+ : s, t) reduction(* : p)
  for (long i = 0; i < N; i++) {
    s = s + i + 2 * i;
    t = t - i - 1;
    if (i % 300 == 0) p = p * 2 * 3;
  }
  return s + t + p;
}

// CHECK-DAG: [OMPADAPT146] region 'doubling@{{.*}}': left as written: it updates its copy of a reduction variable by something other than the reduction's operator (+)
long doubling(void) {
  long s = 0;
#pragma omp parallel for reduction(+ : s)
  for (long i = 0; i < N; i++) s = (s + i) * 2;
  return s;
}

// The choice compares and picks the same computation (`fabs` of one value, twice):
// CHECK-DAG: [OMPADAPT150] region 'largest_magnitude@{{.*}}': the parallel region became adaptive
double largest_magnitude(const double *y) {
  double m = 0;
#pragma omp parallel for reduction(max : m)
  for (long i = 0; i < N; i++) m = fabs(y[i]) > m ? fabs(y[i]) : m;
  return m;
}
