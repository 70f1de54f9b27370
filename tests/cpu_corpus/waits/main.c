/* Threads that wait for each other (DataRaceBench DRB190's shape, found by
 * the conformance runs of issue 41): two sections of one `parallel sections num_threads(2)`, a
 * producer that stops at a capacity the consumer frees. Stock runs them on a team of two,
 * concurrently; on a team of one (`serial`) the first section would spin forever. An atomic read
 * in a loop is a wait for another thread: the region stays as written (OMPADAPT148). */
#include <stdio.h>

int main(void) {
  int level = 0, left = 100;
#pragma omp parallel sections num_threads(2) shared(level, left) // expect: left reads memory other threads write in a loop
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
