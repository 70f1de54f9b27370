// An LU-like sweep (Rodinia's lud without blocking): at step k one kernel updates the rows
// below the pivot, over a trip count that shrinks by one per step (n-1, n-2, ..., 1), so a run
// launches n-1 kernels on n-1 different sizes. Written as a stock OpenMP program; the
// benchmark (run.sh) builds it as is and rebuilt with -fplugin-arg-ompadapt-auto.
//
//   default       one `target teams distribute parallel for` per step, each mapping the whole
//                 matrix tofrom (Rodinia's offload style: no data environment around the sweep)
//   -DRESIDENT    the matrix in a `target data` around the sweep; the kernels find it present
//   -DHOST_LOOP   a host `parallel for` per step instead of an offload
//
// Usage: lu_sweep N [REPEATS]   prints a checksum of the factors (the same for every build)
#include <stdio.h>
#include <stdlib.h>

static void init(double *a, int n) {
  unsigned s = 12345u;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      s = s * 1103515245u + 12345u;
      // diagonally dominant: no pivoting needed
      a[(size_t)i * n + j] = (double)(s >> 16 & 0x7fff) / 32768.0 + (i == j ? n : 0);
    }
}

static void sweep(double *a, int n) {
#ifdef RESIDENT
#pragma omp target data map(tofrom : a[0 : (size_t)n * n])
#endif
  for (int k = 0; k < n - 1; ++k) {
#if defined(HOST_LOOP)
#pragma omp parallel for
#elif defined(RESIDENT)
#pragma omp target teams distribute parallel for
#else
#pragma omp target teams distribute parallel for map(tofrom : a[0 : (size_t)n * n])
#endif
    for (int i = k + 1; i < n; ++i) {
      double l = a[(size_t)i * n + k] / a[(size_t)k * n + k];
      a[(size_t)i * n + k] = l;
      for (int j = k + 1; j < n; ++j)
        a[(size_t)i * n + j] -= l * a[(size_t)k * n + j];
    }
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 512;
  int reps = argc > 2 ? atoi(argv[2]) : 1;
  if (n < 2 || reps < 1) {
    fprintf(stderr, "usage: %s N [REPEATS]\n", argv[0]);
    return 2;
  }
  double *a = malloc(sizeof(double) * (size_t)n * n);
  double sum = 0;
  for (int r = 0; r < reps; ++r) {
    init(a, n);
    sweep(a, n);
    for (size_t i = 0; i < (size_t)n * n; i += 7)
      sum += a[i];
  }
  printf("lu_sweep n=%d reps=%d checksum=%.6e\n", n, reps, sum);
  free(a);
  return 0;
}
