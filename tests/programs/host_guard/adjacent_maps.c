/* The cpu variant writes host memory only where the offload would, byte for byte. Two shapes:
 *
 * 1. A stream kernel (as BabelStream's OpenMP version): three arrays from posix_memalign, a few
 *    MB each, which end up next to each other, mapped whole by an enclosing target data;
 *    libomptarget's host plugin allocates their device copies the same way, so all three have one
 *    host-to-device offset (an extent inferred by sampling spanned two arrays and the allocator's
 *    header between them: "munmap_chunk(): invalid pointer"). The `to` arrays must keep their
 *    host values, every array must free.
 * 2. Sections with canaries: each array has guard words before and after the section that is
 *    mapped, under every map type — to, from, tofrom, alloc, always, present from an enclosing
 *    data region, from another function, from a translation unit built without the plugin
 *    (adjacent_maps_lib.c) — and the guards must never change.
 *
 * The program prints its results and the canaries' state; run with every region's variant
 * pinned, it must print what the stock build prints. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 4 /* guard words on each side of a section */
#define N 3000  /* elements of a section */
static const uint64_t CANARY = 0x0dd5ca1ab1e0c0deULL;

/* adjacent_maps_lib.c, built without the plugin: maps with enter/exit data */
void lib_map_to(double *x, int n);
void lib_unmap(double *x, int n);

/* An array of N doubles between guards. */
static double *guarded(void) {
  uint64_t *p = malloc(sizeof(double) * (N + 2 * GUARD));
  for (int i = 0; i < GUARD; ++i) p[i] = p[GUARD + N + i] = CANARY;
  double *x = (double *)(p + GUARD);
  for (int i = 0; i < N; ++i) x[i] = i % 7;
  return x;
}

static int guards_intact(const double *x) {
  const uint64_t *p = (const uint64_t *)x - GUARD;
  for (int i = 0; i < GUARD; ++i)
    if (p[i] != CANARY || p[GUARD + N + i] != CANARY) return 0;
  return 1;
}

static double sum(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += x[i];
  return s;
}

static void stream(int rounds) {
  /* 3 MiB each: glibc maps each with mmap, the kernel puts the mappings side by side, and the
   * host plugin allocates the device copies the same way. 3 MiB, not a power of two: a search
   * that doubles its step from one array's start lands in the next one. */
  size_t n = 3 << 17;
  double *a, *b, *c;
  if (posix_memalign((void **)&a, 64, n * sizeof(double)) || posix_memalign((void **)&b, 64, n * sizeof(double)) ||
      posix_memalign((void **)&c, 64, n * sizeof(double)))
    abort();
  for (size_t i = 0; i < n; ++i) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.0;
  }
#pragma omp target data map(to : a[0 : n], b[0 : n]) map(from : c[0 : n])
  {
    for (int k = 0; k < rounds; ++k) {
#pragma omp target teams distribute parallel for
      for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
#pragma omp target teams distribute parallel for
      for (size_t i = 0; i < n; ++i) a[i] = 0.5 * c[i];
    }
  }
  /* a and b were mapped `to`: their host copies keep the host's values */
  printf("stream: a=%g b=%g c=%g\n", sum(a, n), sum(b, n), sum(c, n));
  free(a);
  free(b);
  free(c);
}

/* A kernel that uses `x` present from wherever it was mapped. */
static void scale_present(double *x, double f) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < N; ++i) x[i] *= f;
}

static void sections(void) {
  double *to = guarded(), *from = guarded(), *tofrom = guarded(), *alloc = guarded(), *always = guarded();
  double *outer = guarded(), *elsewhere = guarded(), *stock_tu = guarded();
  /* the construct's own maps, every type */
#pragma omp target teams distribute parallel for map(to : to[0 : N]) map(from : from[0 : N]) map(tofrom : tofrom[0 : N]) \
    map(alloc : alloc[0 : N])
  for (int i = 0; i < N; ++i) {
    alloc[i] = i;
    from[i] = to[i] + alloc[i];
    tofrom[i] += from[i];
    to[i] = -1;
  }
  /* present from an enclosing data region, updated with `always` */
#pragma omp target data map(tofrom : outer[0 : N]) map(to : always[0 : N])
  {
    scale_present(outer, 2.0);
#pragma omp target teams distribute parallel for map(always, tofrom : always[0 : N])
    for (int i = 0; i < N; ++i) always[i] += outer[i];
    scale_present(always, 3.0);
  }
  /* present from another function's enter data, and from a translation unit without the plugin */
#pragma omp target enter data map(to : elsewhere[0 : N])
  lib_map_to(stock_tu, N);
  scale_present(elsewhere, 0.5);
  scale_present(stock_tu, 4.0);
#pragma omp target exit data map(from : elsewhere[0 : N])
  lib_unmap(stock_tu, N);
  double *all[] = {to, from, tofrom, alloc, always, outer, elsewhere, stock_tu};
  const char *names[] = {"to", "from", "tofrom", "alloc", "always", "outer", "elsewhere", "stock_tu"};
  for (int k = 0; k < 8; ++k) {
    printf("%s: sum=%g guards=%s\n", names[k], sum(all[k], N), guards_intact(all[k]) ? "intact" : "CHANGED");
    free((uint64_t *)all[k] - GUARD);
  }
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  stream(rounds);
  sections();
  return 0;
}
