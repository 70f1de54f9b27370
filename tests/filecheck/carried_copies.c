// Private copies carried from one iteration of a thread to its next (issue 41; libgomp's
// omp-parallel-for.c and pr26943-1.c): what the loop computes depends on how its iterations are
// divided, so the region keeps its team (OMPADAPT149). Copies written before they are read in
// every iteration, the loop's own counter and reduction copies are not carried.
//
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O2 -c -gline-tables-only -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt carried_copies.c -o %t.o 2> %t.remarks
// RUN: %FileCheck %s < %t.remarks
// Zero-source-change mode decides the same:
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O2 -c -gline-tables-only -fplugin=%plugin -fplugin-arg-ompadapt-auto -Rpass=ompadapt -Rpass-missed=ompadapt carried_copies.c -o %t.auto.o 2> %t.auto.remarks
// RUN: %FileCheck %s < %t.auto.remarks

// CHECK-DAG: [OMPADAPT149] region 'sum_carried@carried_copies.c:[[#@LINE+3]]': left as written: a private copy is read before the iteration writes it
long sum_carried(int n) {
  long a = 30;
#pragma omp parallel for firstprivate(a) lastprivate(a)
  for (int i = 0; i < n; i++) a = a + i;
  return a;
}

// CHECK-DAG: [OMPADAPT149] region 'written_sometimes@carried_copies.c:[[#@LINE+3]]': left as written: a private copy is read after the loop, and an iteration may leave it unwritten
long written_sometimes(const int *c, int n) {
  long x = -1;
#pragma omp parallel for lastprivate(x)
  for (int i = 0; i < n; i++)
    if (c[i]) x = i;
  return x;
}

// CHECK-DAG: [OMPADAPT149] region 'counted@carried_copies.c:[[#@LINE+2]]': left as written: a private copy is read before the iteration writes it
void counted(long *out, int n) {
#pragma omp parallel
  {
    long seen = 0; // private by scope: out[i] is the thread's count so far
#pragma omp for
    for (int i = 0; i < n; i++) out[i] = ++seen;
  }
}

// CHECK-DAG: [OMPADAPT149] region 'array_carried@carried_copies.c:[[#@LINE+3]]': left as written: a private copy is read before the iteration writes it
void array_carried(long *out, int n) {
  long h[2] = {1, 1}; // given a value before the loop: its elements carry from iteration to iteration
#pragma omp parallel for firstprivate(h)
  for (int i = 0; i < n; i++) {
    h[i % 2] += h[(i + 1) % 2];
    out[i] = h[0];
  }
}

// CHECK-DAG: [OMPADAPT150] region 'written_always@carried_copies.c:[[#@LINE+3]]': the parallel region became adaptive with variants serial
long written_always(int n) {
  long x = 0;
#pragma omp parallel for lastprivate(x)
  for (int i = 0; i < n; i++) x = 3 * i;
  return x;
}

// CHECK-DAG: [OMPADAPT150] region 'row_sums@carried_copies.c:[[#@LINE+3]]': the parallel region became adaptive with variants serial
void row_sums(const double *a, double *s, int n, int m) {
  double t[4];
#pragma omp parallel for private(t)
  for (int i = 0; i < n; i++) {
    double acc = 0; // written before the inner loop reads it
    for (int j = 0; j < m; j++) acc += a[i * m + j];
    for (int k = 0; k < 4; k++) t[k] = acc * k; // a private array: nothing read after the loop
    s[i] = t[1] + t[3];
  }
}

// CHECK-DAG: [OMPADAPT150] region 'reduced@carried_copies.c:[[#@LINE+3]]': the parallel region became adaptive with variants serial
long reduced(int n) {
  long s = 0;
#pragma omp parallel for reduction(+ : s) schedule(dynamic, 4)
  for (int i = 0; i < n; i++) s += i;
  return s;
}

// Found by the eligibility tables (NPB's LU and BT): locals of a function with several orphaned
// worksharing loops, reused by a later loop that sets them first, and a scratch array a call
// fills: nothing carried.
double u[64 * 64], w[64 * 5];
static void fill(int k, double t[5]) {
  for (int m = 0; m < 5; m++) t[m] = k + m;
}
static void orphaned(int n) {
  int i, j, k;
  double t[5];
#pragma omp for
  for (k = 0; k < n; k++)
    for (j = 0; j < 1; j++)
      for (i = 0; i < n; i++) u[k * n + i] = 1.0;
  i = 0;
#pragma omp for
  for (k = 0; k < n; k++) {
    u[k * n + i] += 1.0;
    fill(k, t);
    for (int m = 0; m < 5; m++) w[k * 5 + m] = t[m];
  }
#pragma omp for
  for (k = 0; k < n; k++) {
    fill(-k, t);
    for (int m = 0; m < 5; m++) w[k * 5 + m] += t[m];
  }
}

// CHECK-DAG: [OMPADAPT150] region 'reused_locals@carried_copies.c:[[#@LINE+2]]': the parallel region became adaptive with variants serial
void reused_locals(int n) {
#pragma omp parallel
  orphaned(n);
}
