/* Conformance difference (LLVM openmp/runtime/test/ompt/tasks/task_memory.c; our own reduction):
 * an OMPT tool that calls ompt_get_task_memory() in its implicit-task callback crashes (SIGSEGV
 * in libomp, on the worker thread) when a serialized parallel region follows a region that had a
 * worker. The crash is libomp 19's, not ompadapt's: -DSTOCK_SHAPE writes the same sequence by
 * hand and crashes stock too. An adaptive build produces that sequence by itself: the runtime's
 * start-up fork (runtime/src/openmp_start.rs) is a region with a worker, and `serial` /
 * `threads=0.5` (one thread on 2 cores) run the program's region serialized.
 *   clang-19 -O2 -fopenmp ompt_task_memory_serialized.c && OMP_NUM_THREADS=2 ./a.out   -> exit 0
 *   clang-19 -O2 -fopenmp -DSTOCK_SHAPE ompt_task_memory_serialized.c && ./a.out      -> SIGSEGV
 *   clang-19 -O2 -fopenmp -fpass-plugin=target/release/libompadapt_pass.so -gline-tables-only ompt_task_memory_serialized.c
 *   OMP_NUM_THREADS=2 OMPADAPT_VARIANT=serial OMPADAPT_PERSIST=0 ./a.out                -> SIGSEGV
 *   (stock's answer with one thread is exit 0: num_threads(2) keeps two threads) */
#include <omp-tools.h>
#include <stdio.h>

static ompt_get_task_memory_t get_task_memory;
static int implicit_tasks;

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned int team_size, unsigned int index, int flags) {
  void *addr = NULL;
  size_t size = 0;
  get_task_memory(&addr, &size, 0);
  __atomic_fetch_add(&implicit_tasks, 1, __ATOMIC_RELAXED);
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_task_memory = (ompt_get_task_memory_t)lookup("ompt_get_task_memory");
  set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  return 1;
}

static void finalize(ompt_data_t *data) {}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime) {
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}

int main(void) {
  int x = 0;
#ifdef STOCK_SHAPE
#pragma omp parallel num_threads(2)
  { __asm__ volatile(""); } /* a region with a worker (an empty one is optimised away) */
#pragma omp parallel num_threads(2) if(0)
#else
#pragma omp parallel num_threads(2)
#endif
  {
#pragma omp master
    {
#pragma omp task
      { x++; }
    }
  }
  printf("x %d\n", x);
  return 0;
}
