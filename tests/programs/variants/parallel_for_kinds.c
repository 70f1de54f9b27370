/* Variant kinds of one ordinary host `parallel for`: serial, num_threads[1:3:1],
 * schedule(static), schedule(dynamic, [1:64:63]), schedule(guided). Every variant must give the
 * serial loop's result; each variant's team size and schedule are observed from inside the
 * loop. The user's own schedule is restored after the region. */
#include "../common.h"
#include <omp.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  int calls = argc > 2 ? atoi(argv[2]) : 8;
  double *x = filled(n, 1.0), *y = (double *)calloc(n, sizeof(double));
  omp_set_schedule(omp_sched_guided, 7);
  for (int c = 0; c < calls; ++c) {
    int team = 0, kind = 0, chunk = 0;
#pragma omp adaptation model_name(pfor) features(n) variants(serial, num_threads[1:3:1], schedule(static), schedule(dynamic, [1:64:63]), schedule(guided))
#pragma omp parallel for shared(team, kind, chunk)
    for (int i = 0; i < n; ++i) {
      y[i] = 2.0 * x[i] + i;
      if (i == 0) {
        omp_sched_t k;
        team = omp_get_num_threads();
        omp_get_schedule(&k, &chunk);
        kind = (int)k & 0xff;
      }
    }
    for (int i = 0; i < n; ++i)
      if (y[i] != 2.0 * x[i] + i) {
        fprintf(stderr, "WRONG call %d: y[%d] = %g\n", c, i, y[i]);
        return 2;
      }
    omp_sched_t after;
    int after_chunk;
    omp_get_schedule(&after, &after_chunk);
    printf("OK call=%d team=%d schedule=%d chunk=%d restored=%d\n", c, team, kind, chunk, after == omp_sched_guided && after_chunk == 7);
  }
  return 0;
}
