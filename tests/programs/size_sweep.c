/* A region whose two variants have known costs as a function of the size n: up to n = 1000,
 * `lin` costs 50 µs below n = 500 and 500 µs above, `rev` the reverse (`lin` is right below 500,
 * `rev` above); beyond n = 1000 `lin` costs 2n µs and `rev` 10n µs: sizes the cost model never
 * saw are far slower than it extrapolates. The variants are 5 to 10 times apart everywhere, so
 * that a measurement stretched by a loaded machine cannot flip a label.
 * Usage: size_sweep REPS N...  -> executes the region REPS times on each N in turn, then once
 * more on each and prints `DECISION n=N variant=V` for that last execution. */
#include "common.h"

static int choice;

static double cost_us(int n, int v) {
  if (n > 1000)
    return v == 0 ? 2.0 * n : 10.0 * n;
  return (v == 0) == (n < 500) ? 50 : 500;
}

static void region(int n) {
#pragma omp begin adaptation model_name(sweep) features(n) variants(lin, rev) min_train_data(8) \
    model_output(choice)
  spin_us(cost_us(n, choice));
#pragma omp end adaptation model_name(sweep)
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  for (int r = 0; r < reps; ++r)
    for (int i = 2; i < argc; ++i) region(atoi(argv[i]));
  for (int i = 2; i < argc; ++i) {
    region(atoi(argv[i]));
    printf("DECISION n=%d variant=%d\n", atoi(argv[i]), choice);
  }
  return 0;
}
