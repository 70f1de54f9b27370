/* Host threads offloading concurrently to different devices (the host plugin has 4): the
 * tool's state is shared by callbacks on every thread. Each thread maps its own input twice. */
#include "common.h"
#define T 4
int main(void) {
  int n = 1000, ndev = omp_get_num_devices();
  double out[T];
#pragma omp parallel num_threads(T)
  {
    int t = omp_get_thread_num(), dev = t % (ndev > 0 ? ndev : 1);
    double *a = malloc(n * sizeof *a), s = 0;
    for (int i = 0; i < n; i++) a[i] = t * 1000 + i;
    for (int rep = 0; rep < 2; rep++) {
#pragma omp target teams distribute parallel for reduction(+: s) map(to: a[0:n]) device(dev) /* @kernel */
      for (int i = 0; i < n; i++) s += a[i];
    }
    out[t] = s;
    free(a);
  }
  PRINT_SUM("out", out, T);
  return 0;
}
