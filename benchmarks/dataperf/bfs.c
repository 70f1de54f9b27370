#include "common.h"
/* Rodinia bfs's structure: a grid graph, one kernel per level, a stop flag mapped both ways
 * around every kernel. */
int main(int argc, char **argv) {
  int w = arg(argc, argv, 1, 500), reps = arg(argc, argv, 2, 2), n = w * w;
  int *cost = malloc(n * sizeof *cost);
  char *mask = malloc(n), *next = malloc(n), *visited = malloc(n);
  long total = 0;
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n; i++) { cost[i] = -1; mask[i] = next[i] = visited[i] = 0; }
    cost[0] = 0; mask[0] = visited[0] = 1;
    int stop;
#pragma omp target data map(tofrom: cost[0:n]) map(to: mask[0:n], next[0:n], visited[0:n])
    do {
      stop = 1;
#pragma omp target teams distribute parallel for map(tofrom: stop)
      for (int v = 0; v < n; v++) {
        if (!mask[v]) continue;
        mask[v] = 0;
        int i = v / w, j = v % w, nb[4] = {v - w, v + w, v - 1, v + 1};
        int ok[4] = {i > 0, i < w - 1, j > 0, j < w - 1};
        for (int k = 0; k < 4; k++)
          if (ok[k] && !visited[nb[k]]) { cost[nb[k]] = cost[v] + 1; next[nb[k]] = 1; }
      }
#pragma omp target teams distribute parallel for map(tofrom: stop)
      for (int v = 0; v < n; v++)
        if (next[v]) { mask[v] = visited[v] = 1; next[v] = 0; stop = 0; }
    } while (!stop);
    for (int i = 0; i < n; i++) total += cost[i];
  }
  printf("CHECK total=%ld\n", total);
  return 0;
}
