/* Variant kinds of one ordinary offloaded loop: cpu, gpu, thread_limit[64:256:64],
 * num_teams[2:6:2]. Every variant must give the serial loop's result; the launch settings are
 * visible in libomptarget's LIBOMPTARGET_INFO output ("... with N blocks and M threads"). */
#include "../common.h"
#include <omp.h>

double chosen;

static void saxpy(double *x, double *y, double a, int n) {
#pragma omp adaptation model_name(saxpy) features(n) variants(cpu, gpu, thread_limit[64:256:64], num_teams[2:6:2]) model_output(chosen)
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 5000;
  int calls = argc > 2 ? atoi(argv[2]) : 9;
  double *x = filled(n, 1.0), *y = filled(n, 0.5), *ref = filled(n, 0.5);
  for (int c = 0; c < calls; ++c) {
    saxpy(x, y, 1.5, n);
    for (int i = 0; i < n; ++i) ref[i] = 1.5 * x[i] + ref[i];
    for (int i = 0; i < n; ++i)
      if (y[i] != ref[i]) {
        fprintf(stderr, "WRONG call %d (model_output %g): y[%d] = %g, expected %g\n", c, chosen, i, y[i], ref[i]);
        return 2;
      }
    printf("OK call=%d model_output=%g\n", c, chosen);
  }
  return 0;
}
