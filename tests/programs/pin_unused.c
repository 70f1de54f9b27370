/* An offloading program whose adaptive region runs only when asked (`pin_unused run`): a plain
 * target region always runs, so the OpenMP start loads the runtime (its OMPT tool) even when
 * the adaptive one never does. For OMPADAPT_VARIANT's word at exit when it pinned nothing.
 * Usage: pin_unused [run]  -> prints `DONE sum=S adaptive=0|1`. */
#include <stdio.h>
#include <string.h>

#define N 1000

static void saxpy(int n, float a, const float *x, float *y) {
#pragma omp adaptation model_name(saxpy) features(n) variants(cpu, gpu)
#pragma omp target teams distribute parallel for map(to : x[0 : n]) map(tofrom : y[0 : n])
  for (int i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv) {
  static float x[N], y[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  int sum = 0;
#pragma omp target map(tofrom : sum)
  sum += 1;
  int adaptive = argc > 1 && strcmp(argv[1], "run") == 0;
  if (adaptive)
    saxpy(N, 2.0f, x, y);
  printf("DONE sum=%d adaptive=%d y1=%g\n", sum, adaptive, (double)y[1]);
  return 0;
}
