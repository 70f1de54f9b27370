/* FIXED (5715d4a): a module defining ompt_start_tool keeps every region as written (OMPADAPT157), the program's num_threads push no longer reaches the start-up region, threads=1 is the clause's team. Tests: tests/programs/holes/own_ompt_tool.c, observation_holes.rs (threads_one_is_the_clause_team). */
/* Conformance difference (LLVM openmp/runtime/test/ompt/ ...: the tests whose tool, callback.h,
 * prints the runtime's events; our own reduction): a program that is an OMPT tool itself sees
 * what an adaptive build changes in the runtime's work, where its output (the result) does not.
 * Three things show, in every adaptive build (plugin and pass), under every pin and the runtime:
 *  1. an extra parallel region before the program's first one: the runtime's start-up fork
 *     (runtime/src/openmp_start.rs, an empty region so that libomp's start is not timed) — one
 *     more parallel_begin and a team's implicit tasks, also under `threads=1` ("as written");
 *  2. `serial` / `threads=F` run the region with a smaller team (its parallel_begin asks for 1
 *     thread, not the program's team): by design, but a tool counts it;
 *  3. `threads=1` of a region with num_threads(4) and OMP_NUM_THREADS=2 runs 2 threads, not the
 *     clause's 4 (__ompadapt_team_size caps a share by omp_get_max_threads() as well as by the
 *     clause; docs/soundness.md's §10.1.2 row says threads=1 is the clause's team).
 *   clang-19 -O2 -fopenmp -fpass-plugin=target/release/libompadapt_pass.so -gline-tables-only ompt_tool_observes_variants.c
 *   OMP_NUM_THREADS=2 OMPADAPT_VARIANT=threads=1 OMPADAPT_PERSIST=0 ./a.out
 *     stock:    parallel for: parallel_begin 1, requested 2, implicit tasks 2
 *               parallel for num_threads(4): parallel_begin 1, requested 4, implicit tasks 4
 *     adaptive: parallel for: parallel_begin 2, requested 2, implicit tasks 4
 *               parallel for num_threads(4): parallel_begin 1, requested 2, implicit tasks 2
 *   (OMPADAPT_VARIANT=serial: "parallel_begin 2, requested 1, implicit tasks 3", then
 *   "parallel_begin 1, requested 1, implicit tasks 1"; stock with OMP_NUM_THREADS=1 prints
 *   "1, 1, 1" and "1, 4, 4"). The result line (500.5) is the same everywhere. */
#include <omp-tools.h>
#include <stdio.h>

static int parallel_begins, requested, implicit_tasks;

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int team_size, int flags, const void *codeptr) {
  __atomic_fetch_add(&parallel_begins, 1, __ATOMIC_RELAXED);
  requested = (int)team_size;
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned int team_size, unsigned int index, int flags) {
  if (endpoint == ompt_scope_begin && (flags & ompt_task_implicit))
    __atomic_fetch_add(&implicit_tasks, 1, __ATOMIC_RELAXED);
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  return 1;
}

static void finalize(ompt_data_t *data) {}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime) {
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}

static void report(const char *what) {
  printf("%s: parallel_begin %d, requested %d, implicit tasks %d\n", what, parallel_begins, requested, implicit_tasks);
  parallel_begins = requested = implicit_tasks = 0;
}

int main(void) {
  static double a[1000];
#pragma omp parallel for
  for (int i = 0; i < 1000; i++) a[i] = 0.5 * i;
  report("parallel for");
#pragma omp parallel for num_threads(4)
  for (int i = 0; i < 1000; i++) a[i] += 1.0;
  report("parallel for num_threads(4)");
  printf("%g\n", a[999]);
  return 0;
}
