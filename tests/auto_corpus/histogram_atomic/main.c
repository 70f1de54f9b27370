/* Histogram with atomic updates (HeCBench histogram style), written as a `target teams`
 * region with a nested `distribute parallel for`, repeated over several input sizes; a
 * `target` + `parallel for` kernel normalises the counts into a prefix sum. Integer results,
 * compared exactly with the serial loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BINS 64
#define MAXN 50000

static unsigned hash(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  return x;
}

int main(void) {
  unsigned *data = malloc(MAXN * sizeof *data);
  for (int i = 0; i < MAXN; i++) data[i] = hash((unsigned)i) % 1000;
  int ok = 1;
  for (int n = 10000; n <= MAXN; n += 20000) {
    int hist[BINS], cum[BINS], ref[BINS];
    memset(hist, 0, sizeof hist);
    memset(ref, 0, sizeof ref);
#pragma omp target teams map(to: data[0:n]) map(tofrom: hist[0:BINS])
#pragma omp distribute parallel for
    for (int i = 0; i < n; i++) {
      int b = (int)(data[i] * BINS / 1000);
#pragma omp atomic update
      hist[b]++;
    }
#pragma omp target parallel for map(to: hist[0:BINS]) map(from: cum[0:BINS])
    for (int b = 0; b < BINS; b++) {
      int s = 0;
      for (int k = 0; k <= b; k++) s += hist[k];
      cum[b] = s;
    }
    for (int i = 0; i < n; i++) ref[data[i] * BINS / 1000]++;
    int s = 0;
    for (int b = 0; b < BINS; b++) {
      s += ref[b];
      ok &= hist[b] == ref[b] && cum[b] == s;
    }
    printf("histogram n=%d first=%d last=%d total=%d\n", n, hist[0], hist[BINS - 1], cum[BINS - 1]);
  }
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
