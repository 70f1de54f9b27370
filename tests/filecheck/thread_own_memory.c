// Memory a thread allocates in the region is its own: every thread allocating, writing and
// freeing its own buffer outside worksharing has no effect a smaller team would have fewer
// times (the region adapts). Freeing or publishing a pointer other threads can see stays an
// effect of every thread (OMPADAPT145). Fortran's private allocatables: thread_own_memory.f90.
//
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O0 -c -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt thread_own_memory.c -o %t.o 2> %t.remarks
// RUN: %FileCheck %s < %t.remarks
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O2 -c -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt thread_own_memory.c -o %t.O2.o 2> %t.O2.remarks
// RUN: %FileCheck %s < %t.O2.remarks

#include <stdlib.h>
#include <string.h>

// CHECK-DAG: [OMPADAPT150] region 'own_buffer@thread_own_memory.c:[[#@LINE+2]]': the parallel region became adaptive
void own_buffer(int n, double *out) {
#pragma omp parallel
  {
    double *tmp = malloc(n * sizeof(double));
    memset(tmp, 0, n * sizeof(double));
    tmp[0] = 1;
#pragma omp for
    for (int i = 0; i < n; ++i)
      out[i] = tmp[i] + i;
    free(tmp);
  }
}

// CHECK-DAG: [OMPADAPT150] region 'grown_buffer@thread_own_memory.c:[[#@LINE+2]]': the parallel region became adaptive
void grown_buffer(int n, double *out) {
#pragma omp parallel
  {
    double *tmp = calloc(4, sizeof(double));
    tmp = realloc(tmp, n * sizeof(double));
    for (int k = 0; k < n; ++k)
      tmp[k] = 2 * k;
#pragma omp for
    for (int i = 0; i < n; ++i)
      out[i] += tmp[i];
    free(tmp);
  }
}

// Every thread frees the one shared buffer.
// CHECK-DAG: [OMPADAPT145] region 'frees_shared@thread_own_memory.c:[[#@LINE+2]]': left as written: every thread of the team calls 'free'
void frees_shared(int n, double *out, double *shared) {
#pragma omp parallel
  {
#pragma omp for
    for (int i = 0; i < n; ++i)
      out[i] = shared[i];
    free(shared);
  }
}

// Every thread publishes its buffer in shared memory.
// CHECK-DAG: [OMPADAPT145] region 'publishes_own@thread_own_memory.c:[[#@LINE+2]]': left as written: every thread of the team writes shared memory
void publishes_own(int n, double **slot) {
#pragma omp parallel
  {
    double *tmp = malloc(n * sizeof(double));
    *slot = tmp;
  }
}
