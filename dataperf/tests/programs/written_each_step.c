/* Issue 43: a loop of steps maps `b` tofrom and its kernel writes `b` in every step. After the
 * first step `b` holds exactly the bytes `a` is sent with (another variable, the same content),
 * and in one step (STEPS / 2) the kernel's writes leave `b` as it was. A tool that matches
 * transfers by content makes a "round trip" of `a`'s transfer and `b`'s copy back and advises
 * `map(to: b[0:n])`, which would lose what the kernel writes: `b` comes back changed in every
 * other step. The one step that leaves `b` unchanged is a true round trip of `b`, and the copy
 * back at that construct still may not go.
 * READONLY: the kernel only reads `b` (its result goes to `c`), so `b` comes back as it was
 * sent in every step and `map(to: b[0:n])` is the right advice. */
#include "common.h"
#ifndef STEPS
#define STEPS 50
#endif
int main(void) {
  int n = 4096;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  for (int i = 0; i < n; i++) { a[i] = i % 101; b[i] = 1 + i % 3; c[i] = 0; }
  for (int s = 0; s < STEPS; s++) { /* @loop */
#ifdef READONLY
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(tofrom: b[0:n]) map(from: c[0:n]) /* @readonly_step */
    for (int i = 0; i < n; i++) c[i] = a[i] + b[i] * s;
#else
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(tofrom: b[0:n]) /* @step */
    for (int i = 0; i < n; i++) b[i] = s == 0 ? a[i] : (s == STEPS / 2 ? b[i] : b[i] + 0.5 * a[i]);
#endif
  }
  PRINT_SUM("b", b, n);
  PRINT_SUM("c", c, n);
  return 0;
}
