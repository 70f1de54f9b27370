/* Two launches mapping one array through a pointer to a pointer, map(tofrom: (*pp)[0:3]) (LLVM's
 * offload/test/mapping/target_derefence_array_pointrs.cpp, found by the conformance runs of issue
 * 41 under the runtime's third run). The first offload leaves the pointer's device copy present,
 * holding the pointee's device address, which the second launch attaches anew. When the second
 * launch ran `cpu` after a `gpu` first, its host version read the stale device address from the
 * pointer it brought in, and its write was lost ("1 1" for stock's "1 2"). Checked with every mix
 * of the two launches' variants (tests/tests/observation_holes.rs). */
#include <stdio.h>
#include <stdlib.h>

static void twice(int **pp) {
  *pp = calloc(3, sizeof(int));
#pragma omp target map(tofrom : (*pp)[0 : 3])
  { (*pp)[1] = 1; }
  printf("%d ", (*pp)[1]);
#pragma omp target map(tofrom : (*pp)[0 : 3])
  { (*pp)[1] += 1; }
  printf("%d\n", (*pp)[1]);
}

int main(void) {
  int *p;
  twice(&p);
  return 0;
}
