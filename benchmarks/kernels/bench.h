/* Shared by the evaluation kernels (benchmarks/kernels/): arguments, timing, the result line
 * the harness reads, and counting the variants the adaptive regions chose.
 *
 * Every kernel: `kernel N [STEPS]` (N: the input size, the region's feature), keeps its data in
 * `target data` around the time-step loop as HeCBench codes do, times that loop, recomputes the
 * result with a serial reference and compares: a wrong result prints `check=FAILED` and exits
 * with status 1. Output:
 *   RESULT kernel=<name> n=<N> steps=<S> time_s=<loop time> steady_s=<all but the first step>
 *          check=ok err=<max error>
 *   DECISIONS region=<model> <variant>=<executions> ...
 *
 * Mutable state (arrays every step reads and writes) is mapped per launch by default, as the
 * results in RESULTS.md were measured. Built with -DRESIDENT_STATE=1 (the harness's --resident)
 * the state lives in the enclosing `target data` too, as in HeCBench: the `cpu` variant then
 * brings the present device copies to the host before the host version and sends back what it
 * wrote, inside its measured time. Read-only inputs are in `target data` either way. */
#ifndef OMPADAPT_BENCH_H
#define OMPADAPT_BENCH_H
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef RESIDENT_STATE
#define RESIDENT_STATE 0
#endif
/* STATE_DATA(...) goes on the `target data` construct, STATE_LAUNCH(...) on each launch. */
#if RESIDENT_STATE
#define STATE_DATA(...) map(__VA_ARGS__)
#define STATE_LAUNCH(...)
#else
#define STATE_DATA(...)
#define STATE_LAUNCH(...) map(__VA_ARGS__)
#endif

static long bench_arg(int argc, char **argv, int i, long def) {
  if (argc <= i) return def;
  char *end;
  long v = strtol(argv[i], &end, 10);
  if (*end || v <= 0) {
    fprintf(stderr, "%s: argument %d ('%s') must be a positive integer\n", argv[0], i, argv[i]);
    exit(2);
  }
  return v;
}

/* Deterministic pseudo-random numbers (the same in the parallel and the serial code). */
static inline uint64_t bench_hash(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
static inline double bench_unit(uint64_t x) { return (double)(bench_hash(x) >> 11) * (1.0 / 9007199254740992.0); }

/* The use-cases of Georgakoudis et al.'s Table 3, one per build, selected by a flag (the harness
 * builds each kernel once per use-case it has). BENCH_KINDS goes into each region's `variants(...)`:
 *   default          CPU/GPU:  variants(cpu, gpu)                 baseline `gpu`
 *   -DUSE_THREADS    GPU threads per team: thread_limit 64..256    baseline `thread_limit=256`
 *                    (Georgakoudis et al. §4.2: 256, the offloading implementation's default)
 *   -DUSE_COSCHED    co-scheduling: fraction f of the iterations on the device, the rest on
 *                    the host meanwhile, f = 0, 0.25, ..., 1     baseline `coschedule=1`
 *                    (GPU only, Georgakoudis et al. §4.3)
 *   -DUSE_HOST       host loops (kernels whose regions are `parallel for`, BENCH_HOST_ONLY):
 *                    serial, threads=0.5, threads=1, schedule(dynamic, 16)
 *                    baseline `threads=1` (the program as written)
 * A kernel names the use-cases Table 3 marks for it (BENCH_HAS_THREADS / BENCH_HAS_COSCHED
 * before including this file); asking for another one is a compile error. A host kernel
 * (BENCH_HOST_ONLY) has the host use-case only, an offloading kernel every use-case but it. model_output
 * receives the variant's number for numeric kinds and the index for cpu/gpu: BENCH_VALUES
 * maps it back to the variant. */
#if defined(USE_THREADS) + defined(USE_COSCHED) + defined(USE_HOST) > 1
#error "USE_THREADS, USE_COSCHED, USE_HOST: one use-case per build"
#elif defined(BENCH_HOST_ONLY) && !defined(USE_HOST)
#error "this kernel's regions are host parallel loops: build it with -DUSE_HOST"
#elif defined(USE_HOST)
#ifndef BENCH_HOST_ONLY
#error "this kernel offloads: its regions take no host kinds (see benchmarks/kernels/README.md)"
#endif
/* serial (one thread, no team), half the team, the whole team as written (its own schedule:
 * the baseline), the whole team with a dynamic schedule; model_output gets the number of
 * threads=F and the index of the others. On 2 cores threads=0.5 is the same team as serial:
 * the runtime makes it unavailable there. */
#define BENCH_KINDS serial, threads[0.5:1:0.5], schedule(dynamic, 16)
static const char *const BENCH_VARIANTS[] = {"serial", "threads=0.5", "threads=1", "schedule=dynamic,16"};
static const double BENCH_VALUES[] = {0, 0.5, 1, 3};
#elif defined(USE_THREADS)
#ifndef BENCH_HAS_THREADS
#error "this kernel has no GPU-threads use-case (see benchmarks/kernels/README.md)"
#endif
#define BENCH_KINDS thread_limit[64:256:64]
static const char *const BENCH_VARIANTS[] = {"thread_limit=64", "thread_limit=128", "thread_limit=192", "thread_limit=256"};
static const double BENCH_VALUES[] = {64, 128, 192, 256};
#elif defined(USE_COSCHED)
#ifndef BENCH_HAS_COSCHED
#error "this kernel has no co-scheduling use-case (see benchmarks/kernels/README.md)"
#endif
#define BENCH_KINDS coschedule[0:1:0.25]
static const char *const BENCH_VARIANTS[] = {"coschedule=0", "coschedule=0.25", "coschedule=0.5", "coschedule=0.75", "coschedule=1"};
static const double BENCH_VALUES[] = {0, 0.25, 0.5, 0.75, 1};
#else
#define BENCH_KINDS cpu, gpu
static const char *const BENCH_VARIANTS[] = {"cpu", "gpu"};
static const double BENCH_VALUES[] = {0, 1};
#endif
#define BENCH_NVARIANTS ((int)(sizeof BENCH_VALUES / sizeof BENCH_VALUES[0]))

/* Up to 4 regions per kernel, up to 8 variants each: executions per chosen variant. */
typedef struct {
  const char *model;
  long count[8];
} bench_region;

/* `chosen`: the region's model_output after an execution (a variant's value, BENCH_VALUES). */
static inline void bench_count(bench_region *r, double chosen) {
  for (int v = 0; v < BENCH_NVARIANTS; ++v)
    if (chosen == BENCH_VALUES[v]) r->count[v]++;
}

/* The time-step loop's clock. `steady` leaves out the first step, which pays one-off costs
 * (the first offload initialises the device; the runtime loads what it stored and trains). */
typedef struct {
  double start, first, end;
  long steps;
} bench_clock;
static inline void bench_start(bench_clock *c) { c->start = omp_get_wtime(), c->first = 0, c->steps = 0; }
static inline void bench_step(bench_clock *c) {
  if (c->steps++ == 0) c->first = omp_get_wtime();
}
static inline void bench_stop(bench_clock *c) { c->end = omp_get_wtime(); }

static inline void bench_report(const char *kernel, long n, long steps, const bench_clock *c, double err, double tol,
                                bench_region *regions, int nregions) {
  int ok = err <= tol && !isnan(err);
  double total = c->end - c->start, steady = c->steps > 1 ? c->end - c->first : total;
  printf("RESULT kernel=%s n=%ld steps=%ld time_s=%.9f steady_s=%.9f check=%s err=%.3g\n", kernel, n, steps, total, steady,
         ok ? "ok" : "FAILED", err);
  for (int i = 0; i < nregions; ++i) {
    printf("DECISIONS region=%s", regions[i].model);
    for (int v = 0; v < BENCH_NVARIANTS; ++v) printf(" %s=%ld", BENCH_VARIANTS[v], regions[i].count[v]);
    printf("\n");
  }
  fflush(stdout);
  if (!ok) {
    fprintf(stderr, "%s: WRONG RESULT for n=%ld: max error %.3g > %.3g\n", kernel, n, err, tol);
    exit(1);
  }
}

#endif
