/* A data region mapping one member, `target data map(from: d.c)`, around a kernel that uses the
 * whole structure (LLVM's offload/test/mapping/target_map_for_member_data.cpp, found by the
 * conformance runs of issue 41). The kernel's section of `d` is not present as a whole, but its
 * member is: the offload writes the device's d.c, which the data region's end copies back. The
 * `cpu` variant wrote only the host's d.c, and the end of the data region overwrote it with the
 * device's, never written: the runtime now takes present storage inside a section too (and
 * refuses `cpu` where the section is explicit: libomptarget's "explicit extension" error). */
#include <stdio.h>

struct pair {
  int a;
  int c;
};

struct pair d = {3, 0};

static void set(int v) {
#pragma omp target data map(from : d.c)
  {
#pragma omp target
    d.c = 10 * v; /* (d.a is not on the device: libomptarget extends the member's mapping) */
  }
}

int main(void) {
  for (int k = 1; k <= 3; k++) set(k);
  printf("a %d c %d\n", d.a, d.c);
  return 0;
}
