/* A region whose two variants have known costs as a function of the feature n: variant `lin`
 * costs 50 µs below n = 500 and 1000 µs above, variant `rev` the reverse. The right choice is
 * `lin` below n = 500 and `rev` above, 20 times cheaper everywhere: a measurement stretched by
 * a loaded machine (a spin is wall time) cannot make the slower variant look faster. Usage: controlled_cost [train|query] [STORE]
 *   train: explore on sizes 100..900, then print the decision for trained and unseen sizes;
 *   query: print decisions straight away (for a run that starts from persisted data);
 *   STORE: built with -DSET_DIR (and -lompadapt_rt), the program names its store with
 *          ompadapt_set_dir(STORE) first and prints `SET_DIR rc=<result>`. */
#include "common.h"
#include <string.h>

static int choice;

static void region(int n) {
#pragma omp begin adaptation model_name(cost) features(n) variants(lin, rev) min_train_data(12) \
    model_output(choice)
  spin_us((choice == 0) == (n < 500) ? 50 : 1000);
#pragma omp end adaptation model_name(cost)
}

int main(int argc, char **argv) {
  const int trained[] = {100, 200, 300, 700, 800, 900};
  const int unseen[] = {150, 850};
  int train = argc < 2 || strcmp(argv[1], "train") == 0;
#ifdef SET_DIR
  if (argc > 2)
    printf("SET_DIR rc=%d\n", ompadapt_set_dir(argv[2]));
#endif
  if (train)
    for (int rep = 0; rep < 6; ++rep)
      for (int i = 0; i < 6; ++i) region(trained[i]);
  for (int i = 0; i < 6; ++i) {
    region(trained[i]);
    printf("DECISION n=%d variant=%d kind=trained\n", trained[i], choice);
  }
  for (int i = 0; i < 2; ++i) {
    region(unseen[i]);
    printf("DECISION n=%d variant=%d kind=unseen\n", unseen[i], choice);
  }
  return 0;
}
