/* Variables with static storage that the device keeps a copy of its own, which the offload
 * entries do not name (issue 41, found by the conformance runs: libgomp's pr90779.c): a `static`
 * local of a target region, or of a function the kernel calls, is device code's storage; the
 * host version would count in the host's copy, so that a run trying both sides splits the count
 * between the two. The launches that use one keep no `cpu` (OMPADAPT155/156), in zero-source-change
 * mode and pass-only (an explicit region naming `cpu`: tests/filecheck/static_storage.c). A static
 * table nothing writes holds the same bytes on both sides: that launch keeps `cpu`. */
#include <stdio.h>

static int next_ticket(void) {
  static int issued = 0;
  return ++issued;
}

static int weight(int i) {
  static int weights[4] = {3, 1, 4, 1}; /* never written: the same on both sides */
  return weights[i & 3];
}

int main(void) {
  int v = 0, t = 0, w[16] = {0};
  for (int r = 0; r < 4; r++) {
#pragma omp target map(from : v)
    {
      static int calls = 0;
      v = ++calls;
    }
#pragma omp target map(from : t)
    { t = next_ticket(); }
#pragma omp target map(tofrom : w)
    for (int i = 0; i < 16; i++) w[i] += weight(i + r);
  }
  int s = 0;
  for (int i = 0; i < 16; i++) s += w[i];
  printf("calls %d tickets %d weights %d\n", v, t, s);
  return 0;
}
