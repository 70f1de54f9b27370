// Running the pass twice changes nothing the second time.
//
// RUN: %clang -O2 --offload-host-only -S -emit-llvm -fno-discard-value-names -Xclang -disable-llvm-passes -fplugin=%plugin -fplugin-arg-ompadapt-no-pass %s -o %t.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt -S < %t.ll > %t.once.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt -S < %t.once.ll > %t.twice.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,ompadapt -S < %t.ll > %t.both.ll
// RUN: diff %t.once.ll %t.twice.ll
// RUN: diff %t.once.ll %t.both.ll
// RUN: %FileCheck %s < %t.twice.ll

void scale(double *x, double a, int n) {
  for (int rep = 0; rep < 2; ++rep) {
#pragma omp adaptation model_name(scale) features(n) variants(gpu, cpu)
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
    for (int i = 0; i < n; ++i)
      x[i] *= a;
  }
}

// Only one dispatch, and the `cpu` variant (index 1 here) selects the host path.
// CHECK-COUNT-1: !ompadapt.dispatch !
// CHECK-NOT: !ompadapt.dispatch !
