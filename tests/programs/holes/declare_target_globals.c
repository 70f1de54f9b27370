/* Globals a kernel reaches by name (issue 41, hole 1): a `declare target` variable exists twice,
 * the host's copy and the device's. The offload reads and writes the device's; the `cpu` variant
 * must too (the runtime swaps the device's bytes into the host copy around the host version and
 * restores the host's), even when it runs before any offload has loaded the device image. */
#include <stdio.h>

int counter = 0;
int table[4] = {1, 2, 3, 4};
long entered = 7;
double linked[8];
#pragma omp declare target to(counter, table)
#pragma omp declare target to(entered) /* `enter` needs -fopenmp-version=52 */
#pragma omp declare target link(linked)

#pragma omp declare target
static void bump(int k) { counter += k; }
#pragma omp end declare target

int main(void) {
  int out[8] = {0};
  for (int s = 0; s < 3; s++) {
    /* a declare-target function writes the device's counter; the host's stays 0 */
#pragma omp target map(tofrom : out[0 : 8])
    {
      bump(1);
      out[s] = counter + table[s];
      entered += s;
    }
  }
  /* the host changes its copy after start-up: map(to:) of a present variable copies nothing,
   * the kernel still sees the device's 1 */
  table[0] = 100;
#pragma omp target map(tofrom : out[0 : 8]) map(to : table)
  { out[3] = table[0]; }
  for (int i = 0; i < 8; i++) linked[i] = i;
#pragma omp target map(tofrom : linked) map(tofrom : out[0 : 8])
  {
    for (int i = 0; i < 8; i++) linked[i] *= 2;
    out[4] = (int)linked[7];
  }
  printf("host counter %d entered %ld table0 %d linked7 %g\n", counter, entered, table[0], linked[7]);
  printf("device saw %d %d %d %d %d\n", out[0], out[1], out[2], out[3], out[4]);
#pragma omp target update from(counter, entered)
  printf("device counter %d entered %ld\n", counter, entered);
  return 0;
}
