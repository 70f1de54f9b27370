// Regions whose code calls functions of other translation units (units.c, chain.c), of a
// shared library built with ompadapt (libsummarised.so: lib.c) and of one built without it
// (libplain.so: lib.c again). tests/tests/cross_unit.rs builds them apart and as one file
// (-DONE_FILE), and checks that the runtime's verdicts from the summaries equal the one-file
// build's, and that every variant prints what stock prints.
// Each region's expected verdict follows `expect:` (adaptive, or held and why).
#include <stdio.h>
#include <stdlib.h>
#include "units.h"

static double a[4096];
static long hits[4096];

// expect: adaptive (timers in master, a generator whose seed is the thread's own)
static void clean_calls(int n) {
#pragma omp parallel
  {
    double mine = 7; // every thread draws from its own generator
    (void)next_random(&mine);
#pragma omp master
    timer_start(0);
#pragma omp for
    for (int i = 0; i < n; i++) {
      double seed = i + 1;
      a[i] = next_random(&seed) + scale(i);
    }
#pragma omp master
    timer_stop(0);
  }
}

// expect: held OMPADAPT141 (the other unit asks for the thread's number)
static void asks_elsewhere(int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) hits[i] = i + (thread_number() >= 0);
}

// expect: held OMPADAPT145 (every thread calls a function that counts its calls)
static void counts_elsewhere(int n) {
#pragma omp parallel
  {
    count_call();
#pragma omp for
    for (int i = 0; i < n; i++) a[i] += 1;
  }
}

// expect: adaptive (through two other units: units.c calls chain.c)
static void through_a_chain(int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = chained(a[i]);
}

// expect: held OMPADAPT141 (chain.c's function deep down asks for the team)
static void through_a_chain_that_asks(int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) hits[i] += chained_asks(i) > 0;
}

// expect: adaptive (a shared library built with ompadapt)
static void in_a_summarised_library(int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = lib_half(a[i]);
}

// expect: held no summary (a shared library built without ompadapt)
static void in_a_plain_library(int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = plain_half(a[i]);
}

// expect: held OMPADAPT141 (a comparator of another unit, called by qsort, asks for the team)
static void sorts_with_another_units_comparator(int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    long v[3] = {i % 3, i % 5, i % 7};
    qsort(v, 3, sizeof v[0], compare_asks);
    hits[i] += v[0];
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  for (int rep = 0; rep < 3; rep++) {
    clean_calls(n);
    asks_elsewhere(n);
    counts_elsewhere(n);
    through_a_chain(n);
    through_a_chain_that_asks(n);
    in_a_summarised_library(n);
    in_a_plain_library(n);
    sorts_with_another_units_comparator(n);
  }
  double s = 0;
  long h = 0;
  for (int i = 0; i < n; i++) {
    s += a[i];
    h += hits[i];
  }
  printf("%.6f %ld %ld\n", s, h, calls_counted());
  return 0;
}
