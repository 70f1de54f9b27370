// Zero-source-change mode without -g: clang tracks locations for the pass's region names and
// writes each construct's place into its ident_t; once the regions are named, the pass gives
// every ident stock's ";unknown;unknown;0;0;;" back (pass/src/stock_idents.rs), so the program
// passes libomp and libomptarget what the stock build passes (libomptarget parses the string
// at every launch). The region keeps its name from the place. With -g both builds keep places.
//
// RUN: cd %S && %clang -O2 -fopenmp -S -emit-llvm -fplugin=%plugin -fplugin-arg-ompadapt-auto stock_idents.c -o %t.ll
// RUN: %FileCheck %s < %t.ll
// RUN: ! grep -E 'c";stock_idents\.c;' %t.ll
// and the length field beside the string is stock's too (22):
// RUN: ! grep 'struct.ident_t {' %t.ll | grep -v ', i32 22, ptr'
// RUN: cd %S && %clang -O2 -g -fopenmp -S -emit-llvm -fplugin=%plugin -fplugin-arg-ompadapt-auto stock_idents.c -o %t.g.ll
// RUN: grep -q 'c";stock_idents.c;scale;22;' %t.g.ll
//
// CHECK-DAG: c";unknown;unknown;0;0;;\00"
// CHECK-DAG: scale@stock_idents.c:22
#include <stdio.h>

static double a[4096];

static void scale(int n, double f) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i)
    a[i] = a[i] * f + i;
}

int main(void) {
  scale(4096, 0.5);
  printf("%f\n", a[4095]);
  return 0;
}
