// Zero-source-change mode's host regions and the pass's team-size analysis. The frontend guards
// each host region's begin and end with __ompadapt_team_invariant("<region>") (0 without the
// pass: the region runs as written); the pass replaces the call by 1 where nothing the region
// runs can observe its team (OMPADAPT140), else by 0 with a remark that names the reason and the
// place (OMPADAPT141-146). With a parallel region of the module using threadprivate data, every
// region stays as written (OMPADAPT142).
// This is the frontend's own lowering of zero-source-change mode, used when the list has a kind
// that rewrites the loop's source (here `schedule(static)`); without one the frontend hands the
// mode to the pass (pass_only.c, auto_mode.c), whose host regions the same analysis decides.
//
// RUN: cd %S && %clang -O0 -gline-tables-only --offload-host-only -S -emit-llvm -fno-discard-value-names -Xclang -disable-llvm-passes -fplugin=%plugin -fplugin-arg-ompadapt-no-pass '-fplugin-arg-ompadapt-auto=serial,threads[0.5:1:0.5],schedule(static)' team_analysis.c -o %t.ll
// RUN: %FileCheck %s --check-prefix=FRONTEND < %t.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -pass-remarks=ompadapt -pass-remarks-missed=ompadapt -pass-remarks-analysis=ompadapt -S < %t.ll > %t.opt.ll 2> %t.remarks
// RUN: %FileCheck %s --check-prefix=PASS < %t.opt.ll
// RUN: %FileCheck %s --check-prefix=DEPENDS < %t.opt.ll
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// Running the pass again changes nothing:
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -S < %t.opt.ll > %t.twice.ll
// RUN: diff %t.opt.ll %t.twice.ll
// At -O2 in clang (the pass at the start of the pipeline), the same verdicts:
// RUN: cd %S && %clang -O2 -c -fplugin=%plugin '-fplugin-arg-ompadapt-auto=serial,threads[0.5:1:0.5],schedule(static)' -Rpass=ompadapt -Rpass-missed=ompadapt -Rpass-analysis=ompadapt team_analysis.c -o %t.o 2> %t.O2.remarks
// RUN: %FileCheck %s --check-prefix=REMARK < %t.O2.remarks
// Threadprivate data used in a parallel region keeps every region of the module as written:
// RUN: cd %S && %clang -O2 -c -DWITH_THREADPRIVATE -fplugin=%plugin '-fplugin-arg-ompadapt-auto=serial,threads[0.5:1:0.5],schedule(static)' -Rpass=ompadapt -Rpass-missed=ompadapt team_analysis.c -o %t.tp.o 2> %t.tp.remarks
// RUN: %FileCheck %s --check-prefix=THREADPRIVATE < %t.tp.remarks
// RUN: ! grep OMPADAPT140 %t.tp.remarks

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

// FRONTEND-LABEL: define {{.*}}@plain_loop(
// FRONTEND: %[[T:_ompadapt_t[0-9]+]] = alloca i32
// FRONTEND: %[[R:.+]] = call i32 @__ompadapt_team_invariant(ptr noundef @{{.+}})
// FRONTEND: store i32 %[[R]], ptr %[[T]]
// FRONTEND: %[[B:.+]] = load i32, ptr %[[T]]
// FRONTEND: %[[C:.+]] = icmp ne i32 %[[B]], 0
// FRONTEND: br i1 %[[C]]
// FRONTEND: call {{.*}}@__kmpc_fork_call(
// FRONTEND: %[[E:.+]] = load i32, ptr %[[T]]
// FRONTEND: icmp ne i32 %[[E]], 0
// PASS-LABEL: define {{.*}}@plain_loop(
// PASS-NOT: __ompadapt_team_invariant
// PASS: store i32 1, ptr %_ompadapt_t
// REMARK-DAG: team_analysis.c:[[#@LINE+2]]:{{.*}}[OMPADAPT140] region 'plain_loop@team_analysis.c:[[#@LINE+2]]': its team-size variants apply
void plain_loop(double *x, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i) x[i] = 2 * x[i] + sqrt((double)i);
}

// PASS-LABEL: define {{.*}}@asks_its_number(
// PASS: store i32 0, ptr %_ompadapt_t
// REMARK-DAG: [OMPADAPT141] region 'asks_its_number@team_analysis.c:[[#@LINE+3]]': left as written: it calls omp_get_thread_num, whose answer depends on the team (at team_analysis.c:[[#@LINE+5]], in 'asks_its_number (parallel region)')
void asks_its_number(double *per_thread, const double *x, int n) {
  (void)n;
#pragma omp parallel
  {
    per_thread[omp_get_thread_num()] = x[0];
  }
}

static int slot(void) { return omp_get_num_threads() - 1; }
// REMARK-DAG: [OMPADAPT141] region 'asks_in_a_helper@team_analysis.c:[[#@LINE+2]]': left as written: it calls omp_get_num_threads, whose answer depends on the team (at team_analysis.c:[[#@LINE-1]], in 'slot', called from 'asks_in_a_helper (parallel region)')
void asks_in_a_helper(double *x, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i) x[i] = slot();
}

void elsewhere(double *x, int i);
// A function of another translation unit: the runtime decides, from the program's summaries.
// The descriptor names it, with how the region runs it (divided: in the loop's iterations), and
// the module carries its own summary in an ELF note:
// DEPENDS-DAG: ompadapt1;model=calls_another_unit@team_analysis.c:[[#@LINE+11]];{{.*}};depends=D:elsewhere
// DEPENDS-DAG: @__ompadapt_summary = internal constant [{{[0-9]+}} x i8] c"{{.*}}ompadapt-summary 1\0A{{.*}}F R exported_helper clean D:elsewhere\0A{{.*}}", section ".note.ompadapt", align 4
// (a function of this unit others may call: called by every thread, its call of 'elsewhere' is
// in the master block, divided work)
void exported_helper(double *x) {
#pragma omp master
  elsewhere(x, 0);
}
// REMARK-DAG: [OMPADAPT158] region 'calls_another_unit@team_analysis.c:[[#@LINE+3]]': its code calls a function of other translation units ('elsewhere'): the runtime runs its variants only where their summaries
// REMARK-DAG: [OMPADAPT140] region 'calls_another_unit@team_analysis.c:[[#@LINE+2]]': its team-size variants apply
void calls_another_unit(double *x, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i) elsewhere(x, i);
}

// REMARK-DAG: [OMPADAPT144] region 'calls_through_a_pointer@team_analysis.c:[[#@LINE+2]]': left as written: it calls through a function pointer
void calls_through_a_pointer(double *x, int n, double (*f)(double)) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i) x[i] = f(x[i]);
}

static int compare(const void *a, const void *b) { return omp_get_thread_num() + (*(const int *)a - *(const int *)b); }
// REMARK-DAG: [OMPADAPT141] region 'callback_asks@team_analysis.c:[[#@LINE+2]]': left as written: it calls omp_get_thread_num{{.*}}in 'compare', called from 'callback_asks (parallel region)'
void callback_asks(int *rows, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i) qsort(rows + 8 * i, 8, sizeof(int), compare);
}

// REMARK-DAG: [OMPADAPT145] region 'counts_threads@team_analysis.c:[[#@LINE+3]]': left as written: every thread of the team atomically updates shared memory
int counts_threads(void) {
  int c = 0;
#pragma omp parallel
  {
#pragma omp atomic
    c++;
  }
  return c;
}

// REMARK-DAG: [OMPADAPT145] region 'prints_per_thread@team_analysis.c:[[#@LINE+2]]': left as written: every thread of the team calls 'puts', which may write memory or do I/O
void prints_per_thread(void) {
#pragma omp parallel
  puts("hello");
}

// REMARK-DAG: [OMPADAPT146] region 'reduction_counts@team_analysis.c:[[#@LINE+3]]': left as written: every thread of the team updates its copy of a reduction variable
double reduction_counts(void) {
  double s = 0;
#pragma omp parallel reduction(+ : s)
  s += 1;
  return s;
}

// REMARK-DAG: [OMPADAPT145] region 'copies_into_shared@team_analysis.c:[[#@LINE+2]]': left as written: every thread of the team calls 'llvm.memcpy
void copies_into_shared(double *dst, const double *src, int n) {
#pragma omp parallel
  memcpy(dst, src, sizeof *dst * n);
}

// REMARK-DAG: [OMPADAPT145] region 'nested_counts@team_analysis.c:[[#@LINE+3]]': left as written: every thread of the team atomically updates shared memory{{.*}}called from 'nested_counts (parallel region)'
int nested_counts(void) {
  int c = 0;
#pragma omp parallel for
  for (int i = 0; i < 4; ++i) {
#pragma omp parallel
    {
#pragma omp atomic
      c++;
    }
  }
  return c;
}

// Work divided among the team, and what one thread does: adaptive.
// REMARK-DAG: [OMPADAPT140] region 'divided_work@team_analysis.c:[[#@LINE+3]]': its team-size variants apply
double divided_work(double *x, int n, double *first, double *last) {
  double s = 0, tail = 0;
#pragma omp parallel
  {
    double scratch[4] = {0, 1, 2, 3};
    double *own = malloc(sizeof *own * 4);
    memcpy(own, scratch, sizeof scratch);
    double root = sqrt(own[3]);
#pragma omp for reduction(+ : s) schedule(dynamic, 16)
    for (int i = 0; i < n; ++i) s += x[i] * root;
#pragma omp for lastprivate(tail)
    for (int i = 0; i < n; ++i) tail = x[i];
#pragma omp single
    *first = x[0];
#pragma omp master
    *last = x[n - 1];
#pragma omp sections
    {
#pragma omp section
      x[0] += 1;
#pragma omp section
      x[1] += 1;
    }
#pragma omp single
    {
#pragma omp task
      x[2] += 1;
    }
    free(own);
  }
  return s + tail;
}

// REMARK-DAG: [OMPADAPT140] region 'ordered_and_copyprivate@team_analysis.c:[[#@LINE+3]]': its team-size variants apply
void ordered_and_copyprivate(double *x, int n) {
  double v = 0;
#pragma omp parallel firstprivate(v)
  {
#pragma omp single copyprivate(v)
    v = x[0];
#pragma omp for ordered
    for (int i = 1; i < n; ++i) {
#pragma omp ordered
      x[i] = x[i - 1] + v;
    }
  }
}

// Tasks created by one thread (XSBench's quicksort): each runs once, whatever the team. Their
// firstprivate copies are reached through the privates map, a function pointer the module shows.
static void visit(int *a, int n) {
  if (n < 2)
    return;
#pragma omp task firstprivate(a, n)
  visit(a, n / 2);
#pragma omp taskwait
  a[0] += a[n - 1];
}
// REMARK-DAG: [OMPADAPT140] region 'tasks_in_single@team_analysis.c:[[#@LINE+2]]': its team-size variants apply
void tasks_in_single(int *a, int n) {
#pragma omp parallel
#pragma omp single
  visit(a, n);
}

#ifdef WITH_THREADPRIVATE
static int counter;
#pragma omp threadprivate(counter)
// THREADPRIVATE-DAG: [OMPADAPT142] region 'uses_threadprivate@team_analysis.c:[[#@LINE+2]]': left as written: it uses thread-local data 'counter'
void uses_threadprivate(void) {
#pragma omp parallel
  counter += 1;
}
#endif
// THREADPRIVATE-DAG: [OMPADAPT142] region 'plain_loop@team_analysis.c:{{[0-9]+}}': left as written: threadprivate (thread-local) data 'counter' is used by a parallel region of this translation unit{{.*}}its values persist between parallel regions only while their teams keep one size
