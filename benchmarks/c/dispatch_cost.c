/* Cost of the variants ompadapt generates from one construct, against the same launch written
 * by hand. Run with the forced-sequence runtime (tests/programs/variants/forced_runtime.c,
 * OMPADAPT_TEST_SEQUENCE=<v>, OMPADAPT_TEST_QUIET=1), which pins variant v at a fixed cost that
 * the empty region measures and that is subtracted. Prints one line per comparison:
 *   KIND <name> adaptive_ns=.. hand_ns=.. stub_ns=.. ratio=..
 * where stub_ns = adaptive - hand - (empty region). `copies` compares the cpu variant inside
 * `target data` (its copies made by the generated `target update`s) with the same host version
 * reached by hand (`target update from`, `target ... if(0)`, `target update to`). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

#define N 64
static double x[N], y[N];

/* Median over batches of the per-call time of `body`. */
#define MEASURE(result, reps, body)                                                            \
  do {                                                                                         \
    double b_[15];                                                                             \
    for (int k_ = 0; k_ < 15; ++k_) {                                                          \
      double t0_ = now_ns();                                                                   \
      for (int r_ = 0; r_ < (reps); ++r_) { body; }                                            \
      b_[k_] = (now_ns() - t0_) / (reps);                                                      \
    }                                                                                          \
    for (int i_ = 0; i_ < 15; ++i_)                                                            \
      for (int j_ = i_ + 1; j_ < 15; ++j_)                                                     \
        if (b_[j_] < b_[i_]) { double s_ = b_[i_]; b_[i_] = b_[j_]; b_[j_] = s_; }             \
    result = b_[7];                                                                            \
  } while (0)

static int n = N;

static void empty(void) {
#pragma omp adaptation model_name(empty) features(n) variants(cpu, gpu)
  { __asm__ volatile("" ::: "memory"); }
}

static void gpu_adaptive(void) {
#pragma omp adaptation model_name(gpu) features(n) variants(gpu, cpu)
#pragma omp target teams distribute parallel for map(tofrom: y[0:N]) map(to: x[0:N])
  for (int i = 0; i < n; ++i) y[i] += x[i];
}
static void gpu_hand(void) {
#pragma omp target teams distribute parallel for map(tofrom: y[0:N]) map(to: x[0:N])
  for (int i = 0; i < n; ++i) y[i] += x[i];
}
static void tl_adaptive(void) {
#pragma omp adaptation model_name(tl) features(n) variants(thread_limit[4:4:1], gpu)
#pragma omp target teams distribute parallel for map(tofrom: y[0:N]) map(to: x[0:N])
  for (int i = 0; i < n; ++i) y[i] += x[i];
}
static void tl_hand(void) {
#pragma omp target teams distribute parallel for map(tofrom: y[0:N]) map(to: x[0:N]) thread_limit(4)
  for (int i = 0; i < n; ++i) y[i] += x[i];
}
static void nt_adaptive(void) {
#pragma omp adaptation model_name(nt) features(n) variants(num_teams[2:2:1], gpu)
#pragma omp target teams distribute parallel for map(tofrom: y[0:N]) map(to: x[0:N])
  for (int i = 0; i < n; ++i) y[i] += x[i];
}
static void nt_hand(void) {
#pragma omp target teams distribute parallel for map(tofrom: y[0:N]) map(to: x[0:N]) num_teams(2)
  for (int i = 0; i < n; ++i) y[i] += x[i];
}
static void cs_adaptive(void) {
#pragma omp adaptation model_name(cs) features(n) variants(coschedule[0.5:0.5:1], gpu)
#pragma omp target teams distribute parallel for map(tofrom: y[0:N]) map(to: x[0:N])
  for (int i = 0; i < n; ++i) y[i] += x[i];
}
static void cs_hand(void) {
#pragma omp target teams distribute parallel for map(tofrom: y[0:N / 2]) map(to: x[0:N / 2]) nowait
  for (int i = 0; i < N / 2; ++i) y[i] += x[i];
#pragma omp parallel for
  for (int i = N / 2; i < n; ++i) y[i] += x[i];
#pragma omp taskwait
}
static void nth_adaptive(void) {
#pragma omp adaptation model_name(nth) features(n) variants(num_threads[2:2:1], serial)
#pragma omp parallel for
  for (int i = 0; i < n; ++i) y[i] += x[i];
}
static void nth_hand(void) {
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < n; ++i) y[i] += x[i];
}
static void sched_adaptive(void) {
#pragma omp adaptation model_name(sched) features(n) variants(schedule(dynamic, 16), serial)
#pragma omp parallel for
  for (int i = 0; i < n; ++i) y[i] += x[i];
}
static void sched_hand(void) {
#pragma omp parallel for schedule(dynamic, 16)
  for (int i = 0; i < n; ++i) y[i] += x[i];
}

/* The cpu variant inside target data: generated copies vs hand-written updates; per-call
 * times of each batch into `a` and `h` (interleaved). */
static void copies(double *u, double *v, int m, int reps, double *a, double *h) {
#pragma omp target data map(tofrom: u[0:m], v[0:m])
  {
    for (int k = 0; k < 15; ++k) {
      double t0 = now_ns();
      for (int r = 0; r < reps; ++r) {
#pragma omp adaptation model_name(copies) features(m) variants(cpu, gpu)
#pragma omp target teams distribute parallel for
        for (int i = 1; i < m - 1; ++i) v[i] = 0.5 * (u[i - 1] + u[i + 1]);
      }
      double t1 = now_ns();
      for (int r = 0; r < reps; ++r) {
#pragma omp target update from(u[0:m], v[0:m])
#pragma omp target teams distribute parallel for if(0)
        for (int i = 1; i < m - 1; ++i) v[i] = 0.5 * (u[i - 1] + u[i + 1]);
#pragma omp target update to(v[0:m])
      }
      double t2 = now_ns();
      a[k] = (t1 - t0) / reps, h[k] = (t2 - t1) / reps;
    }
  }
}

static double median15(double *b) {
  for (int i = 0; i < 15; ++i)
    for (int j = i + 1; j < 15; ++j)
      if (b[j] < b[i]) { double s = b[i]; b[i] = b[j]; b[j] = s; }
  return b[7];
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 400;
  int m = argc > 2 ? atoi(argv[2]) : 1 << 20;
  for (int i = 0; i < N; ++i) x[i] = i, y[i] = 0;
  gpu_hand(); /* initialises the device */
  double e;
  MEASURE(e, reps * 20, empty());
  printf("EMPTY region_ns=%.1f\n", e);
  if (argc > 3) /* only the empty region (the real runtime's trained decision) */
    return 0;
  struct { const char *name; void (*a)(void), (*h)(void); } k[] = {
      {"gpu", gpu_adaptive, gpu_hand},          {"thread_limit", tl_adaptive, tl_hand},
      {"num_teams", nt_adaptive, nt_hand},      {"coschedule", cs_adaptive, cs_hand},
      {"num_threads", nth_adaptive, nth_hand},  {"schedule", sched_adaptive, sched_hand},
  };
  for (unsigned j = 0; j < sizeof k / sizeof k[0]; ++j) {
    double a, h;
    k[j].a(), k[j].h();
    /* Interleaved halves so that drift on a loaded machine hits both alike. */
    MEASURE(a, reps, k[j].a());
    MEASURE(h, reps, k[j].h());
    double a2, h2;
    MEASURE(h2, reps, k[j].h());
    MEASURE(a2, reps, k[j].a());
    a = (a + a2) / 2, h = (h + h2) / 2;
    printf("KIND %s adaptive_ns=%.0f hand_ns=%.0f stub_ns=%.0f ratio=%.3f\n", k[j].name, a, h, a - h - e, a / h);
  }
  double *u = calloc(m, sizeof(double)), *v = calloc(m, sizeof(double));
  for (int i = 0; i < m; ++i) u[i] = i % 7;
  double ab[15], hb[15];
  copies(u, v, m, reps / 100 + 1, ab, hb);
  double ca = median15(ab), ch = median15(hb);
  printf("COPIES n=%d adaptive_us=%.1f hand_us=%.1f ratio=%.3f\n", m, ca / 1e3, ch / 1e3, ca / ch);
  return 0;
}
