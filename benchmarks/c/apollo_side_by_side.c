/* Cost of one trained region execution, side by side in one process, alternating, on the same
 * loop: code the plugin generates (begin + features + model_output + end), ompadapt through
 * Apollo's C ABI, and LLNL Apollo 2.0 itself through the same ABI, each with 1 and 4 features.
 * Both libraries export the same __apollo_* symbols, so each is dlopen'ed privately
 * (RTLD_LOCAL) and called through its own function pointers.
 * Usage: apollo_side_by_side LIBOMPADAPT_RT [LIBAPOLLO]; prints medians over ROUNDS rounds of
 * the per-execution time (ns, empty loop subtracted) and their ratios. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

typedef void *(*create_fn)(int, const char *, int, int, const char *);
typedef void (*region_fn)(void *);
typedef void (*feature_fn)(void *, float);
typedef int (*policy_fn)(void *);
typedef void (*train_fn)(void *, int);

struct abi {
  const char *name;
  create_fn create;
  region_fn begin, end;
  feature_fn set_feature;
  policy_fn get_policy;
  train_fn train;
  void *r1, *r4;
};

static volatile int sink;
static int chosen1, chosen4;

/* What -fplugin generates around a region body, with 1 and with 4 features. */
static void generated1(int a) {
#pragma omp begin adaptation model_name(side_by_side_1) features(a) variants(x, y) \
    min_train_data(8) model_output(chosen1)
  sink += chosen1;
#pragma omp end adaptation model_name(side_by_side_1)
}

static void generated4(int a, int b, int c, int d) {
#pragma omp begin adaptation model_name(side_by_side_4) features(a, b, c, d) variants(x, y) \
    min_train_data(8) model_output(chosen4)
  sink += chosen4;
#pragma omp end adaptation model_name(side_by_side_4)
}

static int load(struct abi *a, const char *name, const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    return 0;
  }
  a->name = name;
  a->create = (create_fn)dlsym(h, "__apollo_region_create");
  a->begin = (region_fn)dlsym(h, "__apollo_region_begin");
  a->end = (region_fn)dlsym(h, "__apollo_region_end");
  a->set_feature = (feature_fn)dlsym(h, "__apollo_region_set_feature");
  a->get_policy = (policy_fn)dlsym(h, "__apollo_region_get_policy");
  a->train = (train_fn)dlsym(h, "__apollo_region_train");
  if (!a->create || !a->begin || !a->end || !a->set_feature || !a->get_policy || !a->train) {
    fprintf(stderr, "%s lacks Apollo's C ABI\n", path);
    return 0;
  }
  return 1;
}

static inline void through_abi(const struct abi *a, void *r, int nf, int i) {
  a->begin(r);
  for (int f = 0; f < nf; ++f) a->set_feature(r, (float)((i + f) & 3));
  sink += a->get_policy(r);
  a->end(r);
}

/* Explores 4 feature vectors x 2 policies several times over, then trains. */
static void train_abi(struct abi *a) {
  a->r1 = a->create(1, "abi_1", 2, 0, "DecisionTree,max_depth=2");
  a->r4 = a->create(4, "abi_4", 2, 0, "DecisionTree,max_depth=2");
  for (int i = 0; i < 64; ++i) {
    through_abi(a, a->r1, 1, i);
    through_abi(a, a->r4, 4, i);
  }
  a->train(a->r1, 0);
  a->train(a->r4, 0);
}

/* The loop runs on one thread: its CPU time leaves out preemption, which on a shared machine
 * swings wall-clock medians by up to 2x while CPU time repeats within a few percent.
 * BENCH_CLOCK=wall times elapsed time instead. */
static clockid_t bench_clock = CLOCK_THREAD_CPUTIME_ID;

static double now_ns(void) {
  struct timespec t;
  clock_gettime(bench_clock, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *p, const void *q) {
  double a = *(const double *)p, b = *(const double *)q;
  return (a > b) - (a < b);
}

/* -DITERS_N=... -DROUNDS_N=...: a shorter run under callgrind (scripts/callgrind-trained-path.sh) */
#ifndef ITERS_N
#define ITERS_N 200000
#endif
#ifndef ROUNDS_N
#define ROUNDS_N 7
#endif
enum { ITERS = ITERS_N, ROUNDS = ROUNDS_N, MAXC = 6 };

/* Each timed loop is a function of its own, never inlined, so that callgrind's
 * --toggle-collect=loop_* counts the instructions of each case apart. */
__attribute__((noinline)) static void loop_empty(void) {
  for (int i = 0; i < ITERS; ++i) sink += i & 3;
}
__attribute__((noinline)) static void loop_generated1(void) {
  for (int i = 0; i < ITERS; ++i) generated1(i & 3);
}
__attribute__((noinline)) static void loop_generated4(void) {
  for (int i = 0; i < ITERS; ++i) generated4(i & 3, (i + 1) & 3, (i + 2) & 3, (i + 3) & 3);
}
#define ABI_LOOP(name, nf)                                                                         \
  __attribute__((noinline)) static void name(const struct abi *a, void *r) {                      \
    for (int i = 0; i < ITERS; ++i) through_abi(a, r, nf, i);                                      \
  }
ABI_LOOP(loop_ompadapt_abi1, 1)
ABI_LOOP(loop_ompadapt_abi4, 4)
ABI_LOOP(loop_apollo_abi1, 1)
ABI_LOOP(loop_apollo_abi4, 4)

int main(int argc, char **argv) {
  const char *which = getenv("BENCH_CLOCK");
  if (which && strcmp(which, "wall") == 0)
    bench_clock = CLOCK_MONOTONIC;
  printf("clock: %s\n", bench_clock == CLOCK_MONOTONIC ? "wall (CLOCK_MONOTONIC)" : "thread CPU time (CLOCK_THREAD_CPUTIME_ID)");
  if (argc < 2) {
    fprintf(stderr, "usage: %s LIBOMPADAPT_RT [LIBAPOLLO]\n", argv[0]);
    return 1;
  }
  struct abi abis[2];
  int nabi = 0;
  if (!load(&abis[nabi++], "ompadapt (Apollo ABI)", argv[1]))
    return 1;
  if (argc > 2 && load(&abis[nabi], "Apollo 2.0", argv[2]))
    nabi++;
  for (int k = 0; k < nabi; ++k) train_abi(&abis[k]);
  /* one round's worth untimed: every region is trained (and warm) before the first timed
   * round, so no loop below contains training (callgrind counts every round) */
  for (int i = 0; i < ITERS; ++i) {
    generated1(i & 3);
    generated4(i & 3, (i + 1) & 3, (i + 2) & 3, (i + 3) & 3);
    for (int k = 0; k < nabi; ++k) {
      through_abi(&abis[k], abis[k].r1, 1, i);
      through_abi(&abis[k], abis[k].r4, 4, i);
    }
  }

  const char *names[MAXC];
  double t[MAXC][ROUNDS];
  int nc = 0;
  for (int round = 0; round < ROUNDS; ++round) {
    double t0 = now_ns();
    loop_empty();
    double base = (now_ns() - t0) / ITERS;
    int c = 0;
    names[c] = "generated code, 1 feature";
    t0 = now_ns();
    loop_generated1();
    t[c++][round] = (now_ns() - t0) / ITERS - base;
    names[c] = "generated code, 4 features";
    t0 = now_ns();
    loop_generated4();
    t[c++][round] = (now_ns() - t0) / ITERS - base;
    for (int k = 0; k < nabi; ++k) {
      for (int nf = 1; nf <= 4; nf += 3) {
        void *r = nf == 1 ? abis[k].r1 : abis[k].r4;
        static char label[2][2][64];
        snprintf(label[k][nf == 4], sizeof label[0][0], "%s, %d feature%s", abis[k].name, nf, nf > 1 ? "s" : "");
        names[c] = label[k][nf == 4];
        t0 = now_ns();
        if (k == 0)
          (nf == 1 ? loop_ompadapt_abi1 : loop_ompadapt_abi4)(&abis[k], r);
        else
          (nf == 1 ? loop_apollo_abi1 : loop_apollo_abi4)(&abis[k], r);
        t[c++][round] = (now_ns() - t0) / ITERS - base;
      }
    }
    nc = c;
  }
  double med[MAXC];
  for (int c = 0; c < nc; ++c) {
    qsort(t[c], ROUNDS, sizeof t[c][0], cmp);
    med[c] = t[c][ROUNDS / 2];
  }
  /* columns: 0 gen1, 1 gen4, 2 ompadapt-ABI 1, 3 ompadapt-ABI 4, 4 Apollo 1, 5 Apollo 4 */
  printf("trained region execution, medians of %d alternating rounds of %d executions (empty loop subtracted):\n", ROUNDS, ITERS);
  for (int c = 0; c < nc; ++c) printf("  %-36s %8.1f ns\n", names[c], med[c]);
  if (nc == 6) {
    printf("ratios to Apollo 2.0 (same features):\n");
    printf("  RATIO generated/apollo features=1 %.3f (goal <= 0.15, issue 44)\n", med[0] / med[4]);
    printf("  RATIO generated/apollo features=4 %.3f (goal <= 0.15, issue 44)\n", med[1] / med[5]);
    printf("  RATIO abi/apollo features=1 %.3f (goal <= 0.3, issue 44)\n", med[2] / med[4]);
    printf("  RATIO abi/apollo features=4 %.3f (goal <= 0.3, issue 44)\n", med[3] / med[5]);
  } else {
    printf("Apollo 2.0 not measured (give its libapollo.so as the second argument)\n");
  }
  return 0;
}
