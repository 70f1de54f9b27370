// A wavefront sweep (Rodinia's nw without blocking): the score matrix is filled one
// anti-diagonal at a time, each diagonal one parallel loop over its cells, so the trip count
// grows from 1 to n and shrinks back to 1: 2n-1 launches per run on n different sizes, most of
// them too small for a team. The second sweep-shaped code of issue 44 item 1, beside
// lu_sweep.c (which only shrinks). Written as a stock OpenMP program.
//
//   default       a host `parallel for` per diagonal
//   -DOFFLOAD     the matrices in a `target data` around the sweep, one
//                 `target teams distribute parallel for` per diagonal
//
// Usage: wavefront N [REPEATS]   prints the final score and a checksum (the same for every build)
#include <stdio.h>
#include <stdlib.h>

#define PENALTY 10

static int max3(int a, int b, int c) {
  int m = a > b ? a : b;
  return m > c ? m : c;
}

static void init(int *ref, int *score, int n) {
  unsigned s = 4321u;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j) {
      s = s * 1103515245u + 12345u;
      ref[(size_t)i * (n + 1) + j] = (int)((s >> 16) % 21) - 10;
      score[(size_t)i * (n + 1) + j] = 0;
    }
  for (int i = 0; i <= n; ++i) {
    score[(size_t)i * (n + 1)] = -i * PENALTY;
    score[i] = -i * PENALTY;
  }
}

// cell (i, j), 1 <= i, j <= n, lies on diagonal d = i + j - 2 (0 .. 2n-2)
static void sweep(int *ref, int *score, int n) {
  size_t w = (size_t)n + 1, all = w * w;
  (void)all;
#ifdef OFFLOAD
#pragma omp target data map(to : ref[0 : all]) map(tofrom : score[0 : all])
#endif
  for (int d = 0; d < 2 * n - 1; ++d) {
    int lo = d < n ? 0 : d - n + 1, hi = d < n ? d : n - 1;
#ifdef OFFLOAD
#pragma omp target teams distribute parallel for
#else
#pragma omp parallel for
#endif
    for (int t = lo; t <= hi; ++t) {
      size_t i = (size_t)t + 1, j = (size_t)(d - t) + 1;
      score[i * w + j] = max3(score[(i - 1) * w + j - 1] + ref[i * w + j],
                              score[i * w + j - 1] - PENALTY, score[(i - 1) * w + j] - PENALTY);
    }
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  if (n < 1 || reps < 1) {
    fprintf(stderr, "usage: %s N [REPEATS]\n", argv[0]);
    return 2;
  }
  size_t w = (size_t)n + 1;
  int *ref = malloc(sizeof(int) * w * w), *score = malloc(sizeof(int) * w * w);
  long long sum = 0;
  int last = 0;
  for (int r = 0; r < reps; ++r) {
    init(ref, score, n);
    sweep(ref, score, n);
    last = score[w * w - 1];
    for (size_t k = 0; k < w * w; k += 13)
      sum += score[k];
  }
  printf("wavefront n=%d reps=%d score=%d checksum=%lld\n", n, reps, last, sum);
  free(ref);
  free(score);
  return 0;
}
