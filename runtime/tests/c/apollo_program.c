/* A program written against Apollo's C API (the paper's Listing 2 and a controlled-cost
 * region), linked against libompadapt_rt. Driven by tests/apollo_abi.rs; prints one line per
 * check and exits non-zero on the first failure. Modes:
 *   listing2  the vecAdd region of Georgakoudis et al.'s Listing 2 (serial loop or `parallel for`)
 *   learn     4 policies, feature f in {0..3}, policy p costs (1 + |p - f|) units: after
 *             training, every feature gets policy f (tree, forest, logistic regression, and
 *             a tree that trains only on __apollo_region_train)
 *   static    Static,policy=2 always returns 2; Static,policy=9 of 4 policies returns 0
 *   threads   8 OpenMP threads run one region (plus a nested one) 500 times each: every
 *             execution is counted, and no thread sees another's features
 */
#define _POSIX_C_SOURCE 199309L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apollo.h"

#define CHECK(cond, ...)                                                                         \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                              \
      printf(__VA_ARGS__);                                                                     \
      printf("\n");                                                                            \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void spin_us(double us) {
  double end = now_us() + us;
  while (now_us() < end) {
  }
}

static ompadapt_apollo_stats stats(void *r) {
  ompadapt_apollo_stats s;
  memset(&s, 0, sizeof s);
  CHECK(ompadapt_apollo_region_stats(r, &s) == 0, "stats of a handle");
  return s;
}

/* ---- Listing 2 --------------------------------------------------------------------------- */

static void vecAdd(double *A, double *B, double *C, size_t N) {
  static void *region = NULL;
  enum { CPU = 0, GPU = 1 }; /* policy indices */

  if (region == NULL)
    region = __apollo_region_create(/* num_features */ 1, /* id */ "vecAdd", /* num_policies */ 2,
                                    /* min_training_data */ 10, "DecisionTree,explore=RoundRobin");

  __apollo_region_begin(region);
  __apollo_region_set_feature(region, (float)N);
  int policy = __apollo_region_get_policy(region);
  CHECK(policy == CPU || policy == GPU, "policy %d", policy);
  if (policy == CPU) {
    for (size_t i = 0; i < N; ++i) C[i] = A[i] + B[i];
  } else { /* "GPU": a parallel loop here (no device needed for the test) */
#pragma omp parallel for
    for (size_t i = 0; i < N; ++i) C[i] = A[i] + B[i];
  }
  __apollo_region_end(region);
}

static int listing2(void) {
  size_t sizes[] = {1000, 100000, 1000000};
  size_t max = 1000000;
  double *A = malloc(max * sizeof *A), *B = malloc(max * sizeof *B), *C = malloc(max * sizeof *C);
  for (size_t i = 0; i < max; ++i) A[i] = (double)i, B[i] = 2.0 * i;
  int runs = 0;
  for (int it = 0; it < 20; ++it)
    for (int s = 0; s < 3; ++s) {
      memset(C, 0, sizes[s] * sizeof *C);
      vecAdd(A, B, C, sizes[s]);
      runs++;
      for (size_t i = 0; i < sizes[s]; i += sizes[s] / 7 + 1) CHECK(C[i] == 3.0 * i, "C[%zu]", i);
    }
  void *r = __apollo_region_create(1, "vecAdd", 2, 10, "DecisionTree,explore=RoundRobin");
  ompadapt_apollo_stats st = stats(r);
  CHECK(st.executions == (unsigned long long)runs, "executions %llu, expected %d", st.executions, runs);
  CHECK(st.training_samples == 6, "3 sizes x 2 policies measured: %llu", st.training_samples);
  CHECK(st.trained == 0, "6 < min_training_data 10: not trained");
  printf("listing2: %d executions, %llu training samples\n", runs, st.training_samples);
  free(A), free(B), free(C);
  return 0;
}

/* ---- controlled cost ----------------------------------------------------------------------- */

/* One execution of `r` with feature f; policy p costs (1 + |p - f|) units. Returns p. */
static int run_cost(void *r, int f, double unit_us) {
  __apollo_region_begin(r);
  __apollo_region_set_feature(r, (float)f);
  int p = __apollo_region_get_policy(r);
  spin_us(unit_us * (1 + abs(p - f)));
  __apollo_region_end(r);
  return p;
}

/* min_training_data 16 (4 vectors x 4 policies): trains by itself; 0: trains when told. */
static int learn_one(const char *id, const char *model_info, int min_training_data) {
  const double unit = 300.0; /* us */
  void *r = __apollo_region_create(1, id, 4, min_training_data, model_info);
  int execs = 0;
  while (!stats(r).trained && execs < 400) {
    run_cost(r, execs % 4, unit);
    execs++;
    if (min_training_data <= 0 && execs == 64) {
      CHECK(!stats(r).trained, "%s: min_training_data 0 does not train by itself", model_info);
      __apollo_region_train(r, 0);
      CHECK(stats(r).trained, "%s: trained when told", model_info);
    }
  }
  ompadapt_apollo_stats st = stats(r);
  CHECK(st.trained, "%s: trained after %d executions (%llu samples)", model_info, execs, st.training_samples);
  for (int rep = 0; rep < 3; ++rep)
    for (int f = 0; f < 4; ++f) {
      int p = run_cost(r, f, unit);
      CHECK(p == f, "%s: feature %d decided policy %d (expected %d)", model_info, f, p, f);
    }
  printf("learn: %s trained after %d executions; feature f -> policy f for f = 0..3\n", model_info, execs);
  return 0;
}

static int learn(void) {
  learn_one("cost_tree", "DecisionTree,max_depth=2,explore=RoundRobin", 16);
  learn_one("cost_forest", "RandomForest,num_trees=10,max_depth=2", 16);
  learn_one("cost_logistic", "LogisticRegression", 16);
  learn_one("cost_told", "DecisionTree", 0);
  return 0;
}

/* ---- Static ------------------------------------------------------------------------------- */

static int static_policy(void) {
  void *r = __apollo_region_create(1, "static2", 4, 1, "Static,policy=2");
  for (int i = 0; i < 100; ++i) {
    __apollo_region_begin(r);
    __apollo_region_set_feature(r, (float)(i % 7));
    int p = __apollo_region_get_policy(r);
    CHECK(p == 2, "Static,policy=2 returned %d", p);
    CHECK(__apollo_region_get_policy(r) == 2, "second get_policy");
    __apollo_region_end(r);
  }
  ompadapt_apollo_stats st = stats(r);
  CHECK(st.executions == 100 && st.mode == 1, "static: %llu executions, mode %d", st.executions, st.mode);
  void *bad = __apollo_region_create(1, "static9", 4, 1, "Static,policy=9");
  __apollo_region_begin(bad);
  CHECK(__apollo_region_get_policy(bad) == 0, "policy 9 of 4 runs policy 0");
  __apollo_region_end(bad);
  /* robustness: NULL and foreign pointers run policy 0 and do not crash */
  int junk;
  __apollo_region_begin(NULL);
  CHECK(__apollo_region_get_policy(NULL) == 0, "NULL handle");
  CHECK(__apollo_region_get_policy(&junk) == 0, "foreign pointer");
  __apollo_region_end(&junk);
  printf("static: policy 2 x 100, out-of-range policy -> 0, bad handles -> 0\n");
  return 0;
}

/* ---- threads ------------------------------------------------------------------------------- */

static int threads(void) {
  enum { T = 8, PER = 500 };
  omp_set_dynamic(0);
  int seen_threads = 0;
  int bad = 0;
#pragma omp parallel num_threads(T) reduction(+ : seen_threads, bad)
  {
    int tid = omp_get_thread_num();
    seen_threads += 1;
    for (int i = 0; i < PER; ++i) {
      /* every thread creates the region on every execution: create is idempotent */
      void *outer = __apollo_region_create(2, "mt_outer", 2, 0, "RoundRobin");
      __apollo_region_begin(outer);
      __apollo_region_set_feature(outer, (float)tid);
      /* a nested region between the features of the outer one */
      void *inner = __apollo_region_create(1, "mt_inner", 3, 0, "Static,policy=1");
      __apollo_region_begin(inner);
      __apollo_region_set_feature(inner, (float)(100 + tid));
      bad += __apollo_region_get_policy(inner) != 1;
      __apollo_region_end(inner);
      __apollo_region_set_feature(outer, (float)(10 * tid));
      int p = __apollo_region_get_policy(outer);
      bad += p < 0 || p > 1;
      __apollo_region_end(outer);
    }
  }
  CHECK(seen_threads == T, "%d threads ran", seen_threads);
  CHECK(bad == 0, "%d bad policies", bad);
  ompadapt_apollo_stats o = stats(__apollo_region_create(2, "mt_outer", 2, 0, "RoundRobin"));
  ompadapt_apollo_stats in = stats(__apollo_region_create(1, "mt_inner", 3, 0, "Static,policy=1"));
  CHECK(o.executions == T * PER, "outer: %llu executions, expected %d", o.executions, T * PER);
  CHECK(in.executions == T * PER, "inner: %llu executions, expected %d", in.executions, T * PER);
  /* each thread's features are (tid, 10 tid): 8 vectors x 2 policies. A feature that leaked
   * between threads (or between the nested regions) would make more vectors. */
  CHECK(o.training_samples == 2 * T, "outer: %llu training samples, expected %d", o.training_samples, 2 * T);
  CHECK(o.trained == 0, "RoundRobin never trains");
  printf("threads: %d threads x %d, outer %llu executions / %llu samples, inner %llu executions\n", T, PER,
         o.executions, o.training_samples, in.executions);
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "listing2")) return listing2();
  if (!strcmp(mode, "learn")) return learn();
  if (!strcmp(mode, "static")) return static_policy();
  if (!strcmp(mode, "threads")) return threads();
  fprintf(stderr, "usage: %s listing2|learn|static|threads\n", argv[0]);
  return 2;
}
