/* Two regions with controlled costs, for the timeline (OMPADAPT_TRACE): `scale` on the main
 * thread (variants lin and rev: n µs and 400 - n µs), and `mix` run by two OpenMP threads at
 * once (variants a, b, c: 20/50/80 µs for k = 0, the reverse for k = 1). Both train within the
 * first repetitions; later executions are decided.
 * Usage: timeline [REPS]  -> prints `DONE reps=REPS`. */
#include "common.h"

static int choice;

static void scale(int n) {
#pragma omp begin adaptation model_name(scale) features(n) variants(lin, rev) min_train_data(4) \
    model_output(choice)
  spin_us(choice == 0 ? n : 400 - n);
#pragma omp end adaptation model_name(scale)
}

static void mix(int k) {
  int v = 0;
#pragma omp begin adaptation model_name(mix) features(k) variants(a, b, c) min_train_data(6) \
    model_output(v)
  spin_us(k == 0 ? 20 + 30 * v : 80 - 30 * v);
#pragma omp end adaptation model_name(mix)
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 10;
  const int sizes[] = {50, 100, 300, 350};
  for (int r = 0; r < reps; ++r) {
    for (int i = 0; i < 4; ++i) scale(sizes[i]);
#pragma omp parallel for num_threads(2) schedule(static)
    for (int k = 0; k < 8; ++k) mix(k % 2);
  }
  printf("DONE reps=%d\n", reps);
  return 0;
}
