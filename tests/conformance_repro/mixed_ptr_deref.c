/* Conformance difference (LLVM offload/test/mapping/target_derefence_array_pointrs.cpp, under the
 * real runtime's third run; this is our own reduction): two launches map the same array through a
 * pointer to a pointer, map(tofrom: (*pp)[0:3]). Each prints stock's value when every launch runs
 * one variant (all cpu, all gpu), but when the first runs gpu and the second cpu (a mix the
 * runtime's exploration makes), the second launch's write is lost:
 *   stock / all cpu / all gpu: "1 2";  OMPADAPT_VARIANT='gpu;f@<path>/mixed_ptr_deref.c:LINE2:cpu'
 *   (LINE2: the line of the second target directive; the run's report names both regions)
 *   prints "1 1".
 *   clang-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -gline-tables-only \
 *     -fpass-plugin=target/release/libompadapt_pass.so mixed_ptr_deref.c
 * (plugin zero-source-change mode alike). */
#include <stdio.h>
#include <stdlib.h>

void f(int **pp) {
  *pp = calloc(3, sizeof(int));
#pragma omp target map(tofrom : (*pp)[0 : 3])
  { (*pp)[1] = 1; }
  printf("%d ", (*pp)[1]);
#pragma omp target map(tofrom : (*pp)[0 : 3])
  { (*pp)[1] = 2; }
  printf("%d\n", (*pp)[1]);
}

int main(void) {
  int *p;
  f(&p);
  return 0;
}
