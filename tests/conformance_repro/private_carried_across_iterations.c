/* FIXED (d1483b2, 5715d4a): both regions stay as written (OMPADAPT149); threads=1 is the clause's team. Tests: tests/filecheck/carried_copies.c, tests/cpu_corpus/spec_model_observers. */
/* Conformance difference (GCC libgomp.c/omp-parallel-for.c and libgomp.c/pr26943-1.c; our own
 * reduction): a private copy that one iteration writes and a later iteration of the same thread
 * reads (firstprivate + lastprivate, no reduction) carries state from iteration to iteration of
 * a thread: the value lastprivate copies out depends on how many iterations the last thread ran,
 * i.e. on the team size. The team analysis lets the region change its team (variants serial,
 * threads=0.125 ... 1): under `serial` / `threads=0.5` (one thread on 2 cores), and under the
 * runtime when it picks them, the program prints another value. (With num_threads(16), as in
 * pr26943-1.c, even `threads=1` differs at OMP_NUM_THREADS=2: it runs min(16, omp_get_max_threads())
 * = 2 threads, not the clause's 16 — see ompt_tool_observes_variants.c, point 3.)
 *   clang-19 -O2 -fopenmp -fpass-plugin=target/release/libompadapt_pass.so -gline-tables-only private_carried_across_iterations.c
 *   OMP_NUM_THREADS=2 OMPADAPT_VARIANT=serial OMPADAPT_PERSIST=0 ./a.out    -> "a 75 b 960"
 *   OMP_NUM_THREADS=2 OMPADAPT_VARIANT=threads=1 OMPADAPT_PERSIST=0 ./a.out -> "a 65 b 512"
 *   stock, at any OMP_NUM_THREADS (the clauses fix the teams at 2 and 16): "a 65 b 120"
 * (the plugin build, -fplugin=libompadapt.so -fplugin-arg-ompadapt-auto, prints the same) */
#include <stdio.h>

int main(void) {
  int a = 30, b = 0;
  /* 10 iterations, 2 threads, static: the last thread adds 5 + 6 + 7 + 8 + 9 to its copy of 30 */
#pragma omp parallel for firstprivate(a) lastprivate(a) num_threads(2) schedule(static)
  for (int i = 0; i < 10; i++)
    a = a + i;
  /* 16 iterations, 16 threads, static: each thread's only iteration sees b's first value */
#pragma omp parallel for firstprivate(b) lastprivate(b) num_threads(16) schedule(static, 1)
  for (int i = 0; i < 16; i++)
    b = b + i * 8;
  printf("a %d b %d\n", a, b);
  return 0;
}
