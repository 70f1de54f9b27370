/* A program that is an OMPT tool itself (LLVM's openmp/runtime/test/ompt and offload/test/ompt
 * tests, found by the conformance runs of issue 41). It is told of every parallel region with
 * its team, of every implicit task and of every target launch: each variant — a smaller team, a
 * kernel's host version — and the runtime's own start-up parallel region would show in what it
 * prints. The pass sees ompt_start_tool defined in the module and leaves every region of it as
 * written (OMPADAPT157): no adaptive region, so the runtime never starts, and the program prints
 * what stock prints under any OMP_NUM_THREADS. (It used not to build at all: the loader's own
 * ompt_start_tool clashed with the program's; the program's tool is kept.)
 * holes: every region left as written */
#include <omp-tools.h>
#include <stdio.h>

static int started, parallel_begins, requested, implicit_tasks;

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int team_size, int flags, const void *codeptr) {
  (void)task, (void)frame, (void)parallel, (void)flags, (void)codeptr;
  __atomic_fetch_add(&parallel_begins, 1, __ATOMIC_RELAXED);
  requested = (int)team_size;
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned int team_size, unsigned int index, int flags) {
  (void)parallel, (void)task, (void)team_size, (void)index;
  if (endpoint == ompt_scope_begin && (flags & ompt_task_implicit))
    __atomic_fetch_add(&implicit_tasks, 1, __ATOMIC_RELAXED);
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data) {
  (void)device, (void)data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  started = 1;
  return 1;
}
static void finalize(ompt_data_t *data) { (void)data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime_version) {
  (void)version, (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}

static void report(const char *what) {
  printf("%s: parallel_begin %d, requested %d, implicit tasks %d\n", what, parallel_begins, requested, implicit_tasks);
  parallel_begins = requested = implicit_tasks = 0;
}

int main(void) {
  long a[256], s = 0;
  for (int i = 0; i < 256; i++) a[i] = i;
#pragma omp target map(tofrom : a)
  for (int i = 0; i < 256; i++) a[i] *= 3;
  report("target");
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < 256; i++) s += a[i];
  report("parallel for");
#pragma omp parallel for num_threads(4)
  for (int i = 0; i < 256; i++) a[i] += 1;
  report("parallel for num_threads(4)");
  printf("tool started %d sum %ld a7 %ld\n", started, s, a[7]);
  return 0;
}
