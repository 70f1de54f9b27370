/* corpus: team-size invariant (prints the same for every team size of every region) */
/* The shape of PolyBench's OpenMP kernels: one parallel region with several worksharing loops,
 * some with nowait and private clauses. */
#include <stdio.h>
#include <stdlib.h>

#define N 600
static double A[N][N], x[N], y[N], tmp[N];

static void atax(int m, int n) {
  int i, j;
#pragma omp parallel // expect: adaptive
  {
#pragma omp for nowait
    for (i = 0; i < n; i++) y[i] = 0;
#pragma omp for private(j)
    for (i = 0; i < m; i++) {
      tmp[i] = 0.0;
      for (j = 0; j < n; j++) tmp[i] = tmp[i] + A[i][j] * x[j];
    }
#pragma omp for private(i)
    for (j = 0; j < n; j++)
      for (i = 0; i < m; i++) y[j] = y[j] + A[i][j] * tmp[i];
  }
}

int main(int argc, char **argv) {
  int m = argc > 1 ? atoi(argv[1]) : N;
  for (int i = 0; i < N; i++) {
    x[i] = 1 + (i / (double)N);
    for (int j = 0; j < N; j++) A[i][j] = (double)((i + j) % N) / (5 * N);
  }
  for (int r = 0; r < 3; ++r) atax(m, m);
  double s = 0;
  for (int i = 0; i < N; i++) s += y[i] * (i % 7 + 1);
  printf("checksum=%.17g\n", s);
  return 0;
}
