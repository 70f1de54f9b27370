// A kernel asking where it runs gets no `cpu` variant in C++ too: omp.h's `declare variant` of
// omp_is_initial_device is a local function there, mangled
// (`_ZL44omp_is_initial_device$ompvariant$S2$s6$Phostv`), which the pass read as an unknown
// name (LLVM's offload/test/offloading/offloading_success.cpp printed "host" under `cpu`; found
// by the conformance runs of issue 41).
//
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O2 -c -gline-tables-only -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt initial_device.cpp -o %t.o 2> %t.remarks
// RUN: %FileCheck %s < %t.remarks
#include <omp.h>

// CHECK: [OMPADAPT155] region 'where@initial_device.cpp:[[#@LINE+3]]': left as written: the kernel calls omp_is_initial_device, asking where it runs
int where() {
  int on_host = 0;
#pragma omp target map(from : on_host)
  { on_host = omp_is_initial_device(); }
  return on_host;
}
