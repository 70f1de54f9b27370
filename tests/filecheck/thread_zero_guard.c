// A thread-0 guard: `int tid = omp_get_thread_num(); if (tid == 0) { ... }` in code every
// thread of the team runs (outside worksharing) is `masked` (filter 0): the block runs once per
// execution of the region whatever the team (NPB's bt/sp compute_rhs: `if (timeron &&
// thread_id == 0) timer_start(T_RHS);` in a function every thread calls). The thread number is
// accepted where it only decides such branches, the answer compared with 0 and nothing else;
// the blocks thread 0 alone runs count as one thread's. Elsewhere it stays OMPADAPT141: the
// comparison inside a worksharing loop (NPB's EP: thread 0 runs a team-dependent share of the
// iterations), the number used otherwise, compared with another thread's number, in a task
// (any thread may run it), in a nested region every thread starts. The other side of the
// branch, which every thread but 0 runs, is still code every thread runs.
//
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O0 -c -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt thread_zero_guard.c -o %t.o 2> %t.remarks
// RUN: strings -a %t.o > %t.note
// RUN: %FileCheck %s --check-prefix=NOTE < %t.note
// RUN: %FileCheck %s < %t.remarks
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O2 -c -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt thread_zero_guard.c -o %t.O2.o 2> %t.O2.remarks
// RUN: %FileCheck %s < %t.O2.remarks
// Zero-source-change mode decides the same:
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O0 -c -fplugin=%plugin -fplugin-arg-ompadapt-auto -Rpass=ompadapt -Rpass-missed=ompadapt thread_zero_guard.c -o %t.auto.o 2> %t.auto.remarks
// RUN: %FileCheck %s < %t.auto.remarks

#include <omp.h>

static int timeron = 1;
static double start[8], elapsed[8];

static void timer_start(int n) { start[n] = omp_get_wtime(); }
static void timer_stop(int n) { elapsed[n] += omp_get_wtime() - start[n]; }

// NPB bt.cpp/sp.cpp: compute_rhs, called by every thread of the region
static void compute_rhs(int n, double *rhs, const double *u) {
  int thread_id = omp_get_thread_num();
  if (timeron && thread_id == 0)
    timer_start(1);
#pragma omp for
  for (int i = 0; i < n; ++i)
    rhs[i] = u[i] * 0.5;
  if (timeron && thread_id == 0)
    timer_stop(1);
}

// CHECK-DAG: [OMPADAPT150] region 'adi@thread_zero_guard.c:[[#@LINE+2]]': the parallel region became adaptive
void adi(int n, double *rhs, const double *u) {
#pragma omp parallel
  compute_rhs(n, rhs, u);
}

// A function other units may call (external linkage): called from this region's implicit tasks
// its guard is `masked`, and the region adapts. Another unit may call it from an explicit task,
// which any thread may run (thread 0 would run the block a number of times that depends on the
// team): the unit's summary, which stands for such callers, says it asks for the team.
// NOTE: F R exported_timer left 141
void exported_timer(void) {
  if (omp_get_thread_num() == 0)
    timer_start(2);
}
// CHECK-DAG: [OMPADAPT150] region 'calls_exported@thread_zero_guard.c:[[#@LINE+2]]': the parallel region became adaptive
void calls_exported(void) {
#pragma omp parallel
  exported_timer();
}

// the guard in the region itself, `!=` and an early return
static void report(double *out, int n) {
  if (omp_get_thread_num() != 0)
    return;
  out[n] = 1;
}

// CHECK-DAG: [OMPADAPT150] region 'primary_writes@thread_zero_guard.c:[[#@LINE+2]]': the parallel region became adaptive
void primary_writes(int n, double *out) {
#pragma omp parallel
  {
    if (omp_get_thread_num() == 0)
      out[0] = 42;
#pragma omp for
    for (int i = 1; i < n; ++i)
      out[i] = i;
    report(out, n);
  }
}

// NPB EP: the guard inside the worksharing loop
// CHECK-DAG: [OMPADAPT141] region 'guard_in_loop@thread_zero_guard.c:[[#@LINE+2]]': left as written: it calls omp_get_thread_num
void guard_in_loop(int n, double *out) {
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
#pragma omp for
    for (int i = 0; i < n; ++i)
      if (tid == 0)
        out[i] = i;
  }
}

// the number used otherwise
// CHECK-DAG: [OMPADAPT141] region 'indexes_by_number@thread_zero_guard.c:[[#@LINE+2]]': left as written: it calls omp_get_thread_num
void indexes_by_number(double *out) {
#pragma omp parallel
  {
    int tid = omp_get_thread_num();
    if (tid == 0)
      out[0] = 1;
    out[tid + 1] = 2;
  }
}

// another thread than 0
// CHECK-DAG: [OMPADAPT141] region 'thread_one@thread_zero_guard.c:[[#@LINE+2]]': left as written: it calls omp_get_thread_num
void thread_one(double *out) {
#pragma omp parallel
  if (omp_get_thread_num() == 1)
    out[0] = 1;
}

// what every other thread does still counts
// CHECK-DAG: [OMPADAPT145] region 'others_count@thread_zero_guard.c:[[#@LINE+2]]': left as written: every thread of the team atomically updates shared memory
void others_count(int *count, double *out) {
#pragma omp parallel
  {
    if (omp_get_thread_num() == 0) {
      out[0] = 1;
    } else {
#pragma omp atomic
      (*count)++;
    }
  }
}

// a task: whichever thread runs it answers
// CHECK-DAG: [OMPADAPT141] region 'in_a_task@thread_zero_guard.c:[[#@LINE+2]]': left as written: it calls omp_get_thread_num
void in_a_task(double *out) {
#pragma omp parallel
  {
#pragma omp task
    if (omp_get_thread_num() == 0)
      out[0] += 1;
  }
}

// a nested region every thread starts: its thread 0 runs once per enclosing thread
// CHECK-DAG: [OMPADAPT141] region 'nested_guard@thread_zero_guard.c:[[#@LINE+2]]': left as written: it calls omp_get_thread_num
void nested_guard(double *out) {
#pragma omp parallel
  {
#pragma omp parallel
    if (omp_get_thread_num() == 0)
      out[0] += 1;
  }
}
