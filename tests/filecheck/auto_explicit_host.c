// Zero-source-change mode handed to the pass beside explicit host regions: the pass makes the
// plain parallel regions adaptive and leaves the code of an explicit region to its own lowering
// (one region, with the directive's variants), also where the explicit region is in a loop with
// plain regions before and after it in the same function.
//
// RUN: cd %S && %clang -O0 -S -emit-llvm -fno-discard-value-names -Xclang -disable-llvm-passes -fplugin=%plugin -fplugin-arg-ompadapt-no-pass -fplugin-arg-ompadapt-auto auto_explicit_host.c -o %t.ll
// RUN: %FileCheck %s --check-prefix=FRONTEND < %t.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -pass-remarks=ompadapt -pass-remarks-missed=ompadapt -S < %t.ll > %t.opt.ll 2> %t.remarks
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// One explicit region: its descriptor, with the directive's variants, once; four regions in all.
// RUN: test "$(grep -c 'model=mine;' %t.opt.ll)" = 1
// RUN: test "$(grep -c 'OMPADAPT150' %t.remarks)" = 3
// At -O2 in clang, the same regions:
// RUN: cd %S && %clang -O2 -c -fplugin=%plugin -fplugin-arg-ompadapt-auto -Rpass=ompadapt auto_explicit_host.c -o %t.o 2> %t.O2.remarks
// RUN: %FileCheck %s --check-prefix=REMARK < %t.O2.remarks

// The frontend's mark carries the default kinds; the plain constructs are as written.
// FRONTEND: @__ompadapt_frontend_mark = internal constant [23 x i8] c"default\0Alocations=pass\00"
// FRONTEND-NOT: __ompadapt_team_invariant

// REMARK-DAG: [OMPADAPT150] region 'plain@auto_explicit_host.c:[[#@LINE+2]]': the parallel region became adaptive with variants serial, threads=0.125, threads=0.25, threads=0.5, threads=1
void plain(double *x, int n) {
  #pragma omp parallel for
  for (int i = 0; i < n; ++i) x[i] += 1;
}

// REMARK-DAG: [OMPADAPT150] region 'steps@auto_explicit_host.c:[[#@LINE+4]]': the parallel region became adaptive
// REMARK-DAG: [OMPADAPT150] region 'steps@auto_explicit_host.c:[[#@LINE+9]]': the parallel region became adaptive
void steps(double *x, int n, int t) {
  for (int s = 0; s < t; ++s) {
    #pragma omp parallel for
    for (int i = 0; i < n; ++i) x[i] *= 0.5;
    #pragma omp adaptation model_name(mine) variants(serial, num_threads[1:2:1])
    #pragma omp parallel for
    for (int i = 0; i < n; ++i) x[i] += 2;
  }
  #pragma omp parallel for
  for (int i = 0; i < n; ++i) x[i] -= 1;
}
