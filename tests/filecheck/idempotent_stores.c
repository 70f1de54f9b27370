// Idempotent stores: every thread of the team storing the same value into one shared variable
// outside worksharing (ParRes p2p's `t0 = 0` before its wavefront loop) leaves what one thread
// storing it leaves, so the region adapts (pass/src/team/idempotent.rs). Only where the value is
// the same in every thread (a constant, what the fork passes, a variable the region does not
// write, arithmetic on these) and nothing else in the region writes the variable (no other
// store, divided code included, no atomic update, its address nowhere else); otherwise every
// thread's store stays an effect (OMPADAPT145).
//
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O0 -c -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt idempotent_stores.c -o %t.o 2> %t.remarks
// RUN: %FileCheck %s < %t.remarks
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O2 -c -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt idempotent_stores.c -o %t.O2.o 2> %t.O2.remarks
// RUN: %FileCheck %s < %t.O2.remarks

#include <omp.h>

double t0;
static int phase;
static double limit;
static int hits, calls;

// CHECK-DAG: [OMPADAPT150] region 'wavefront@idempotent_stores.c:[[#@LINE+2]]': the parallel region became adaptive
void wavefront(int n, double *grid) {
#pragma omp parallel
  {
    t0 = 0;
    phase = 3;
#pragma omp for
    for (int i = 1; i < n; ++i)
      grid[i] = grid[i] + t0 + phase;
  }
}

// a local of the caller, shared: clang passes its address to the region
// CHECK-DAG: [OMPADAPT150] region 'captured_local@idempotent_stores.c:[[#@LINE+3]]': the parallel region became adaptive
double captured_local(int n, double *grid) {
  double start;
#pragma omp parallel
  {
    start = 1.5;
#pragma omp for
    for (int i = 0; i < n; ++i)
      grid[i] *= 2;
  }
  return start;
}

// the value from what the region only reads: its arguments, a variable it does not write
// CHECK-DAG: [OMPADAPT150] region 'from_inputs@idempotent_stores.c:[[#@LINE+2]]': the parallel region became adaptive
void from_inputs(int n, double scale, double *grid) {
#pragma omp parallel
  {
    limit = n * scale + phase;
#pragma omp for
    for (int i = 0; i < n; ++i)
      grid[i] = grid[i] < limit ? grid[i] : limit;
  }
}

// another store of the variable in the region (in `single`)
// CHECK-DAG: [OMPADAPT145] region 'stored_again@idempotent_stores.c:[[#@LINE+2]]': left as written: every thread of the team writes shared memory 't0'
void stored_again(int n, double *grid) {
#pragma omp parallel
  {
    t0 = 0;
#pragma omp single
    t0 = grid[0];
#pragma omp for
    for (int i = 0; i < n; ++i)
      grid[i] += t0;
  }
}

// an atomic update of the variable in the region
// CHECK-DAG: [OMPADAPT145] region 'updated_atomically@idempotent_stores.c:[[#@LINE+2]]': left as written: every thread of the team writes shared memory 'hits'
void updated_atomically(int n, double *grid) {
#pragma omp parallel
  {
    hits = 0;
#pragma omp for
    for (int i = 0; i < n; ++i) {
#pragma omp atomic
      hits += 1;
    }
  }
}

// the value read from the variable itself
// CHECK-DAG: [OMPADAPT145] region 'counts@idempotent_stores.c:[[#@LINE+2]]': left as written: every thread of the team writes shared memory 'calls'
void counts(void) {
#pragma omp parallel
  calls = calls + 1;
}

// a value each thread computes for itself
// CHECK-DAG: [OMPADAPT145] region 'clock_per_thread@idempotent_stores.c:[[#@LINE+2]]': left as written: every thread of the team writes shared memory 't0'
void clock_per_thread(void) {
#pragma omp parallel
  t0 = omp_get_wtime();
}

// through a pointer the region is given: what it points at is not known
// CHECK-DAG: [OMPADAPT145] region 'through_pointer@idempotent_stores.c:[[#@LINE+2]]': left as written: every thread of the team writes shared memory
void through_pointer(double *flag) {
#pragma omp parallel
  *flag = 1.0;
}

// the local's address also goes elsewhere
// CHECK-DAG: [OMPADAPT145] region 'address_escapes@idempotent_stores.c:[[#@LINE+3]]': left as written: every thread of the team writes shared memory
double address_escapes(double *grid, int n) {
  double start, *alias = &start;
#pragma omp parallel
  {
    start = 2;
#pragma omp for
    for (int i = 0; i < n; ++i)
      grid[i] = *alias;
  }
  return start;
}

// a global whose address another global holds: a store through that pointer writes it
static double watched;
static double *watcher = &watched;
// CHECK-DAG: [OMPADAPT145] region 'address_in_a_global@idempotent_stores.c:[[#@LINE+2]]': left as written: every thread of the team writes shared memory
void address_in_a_global(double *grid, int n) {
#pragma omp parallel
  {
    watched = 0;
#pragma omp single
    *watcher = grid[0];
#pragma omp for
    for (int i = 0; i < n; ++i)
      grid[i] += watched;
  }
}
