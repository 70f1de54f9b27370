/* Conformance difference (DataRaceBench DRB190-critical-section2-no.c; this is our own
 * reduction of its shape): two sections of one `parallel sections num_threads(2)` wait on each
 * other (a producer stops at a capacity the consumer frees). Stock always runs them on a team of
 * two (the clause), concurrently, and prints "done 100". Under OMPADAPT_VARIANT=serial (and
 * threads=0.5 with OMP_NUM_THREADS=2: one thread; also the real runtime, whose first
 * execution explores serial) the adaptive build (plugin auto mode and
 * pass-only mode alike) runs the sections one after the other on one thread: the first spins
 * forever (a hang; the suite's 30 s timeout). The team analysis counts code in worksharing as
 * "any team does it once", which holds for its effects but not for forward progress between
 * sections (or between threads synchronising by hand).
 *   clang-19 -O2 -fopenmp -fpass-plugin=target/release/libompadapt_pass.so sections_progress.c
 *   OMP_NUM_THREADS=2 OMPADAPT_VARIANT=serial timeout 10 ./a.out   -> timeout (stock: done 100) */
#include <stdio.h>

int main(void) {
  int level = 0, left = 100;
#pragma omp parallel sections num_threads(2) shared(level, left)
  {
#pragma omp section
    for (int made = 0; made < 100;) {
      int l;
#pragma omp atomic read
      l = level;
      if (l < 4) { /* room: produce */
#pragma omp atomic
        level++;
        made++;
      }
    }
#pragma omp section
    for (int used = 0; used < 100;) {
      int l;
#pragma omp atomic read
      l = level;
      if (l > 0) { /* something to consume */
#pragma omp atomic
        level--;
        used++;
#pragma omp atomic
        left--;
      }
    }
  }
  printf("done %d\n", 100 - left);
  return 0;
}
