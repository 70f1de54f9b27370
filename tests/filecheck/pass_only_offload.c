// Pass-only mode on offload launches (IR of plain clang, no frontend plugin): a launch with a
// host fallback becomes an adaptive region (OMPADAPT154) and then a dispatch with the host guard
// (OMPADAPT100, 101); a kernel that asks where it runs loses `cpu` (OMPADAPT156), one that asks
// for its team's shape keeps only the offload as written and stays so (OMPADAPT155), as does a
// deferred launch.
//
// RUN: cd %S && %clang -O0 -gline-tables-only --offload-host-only -S -emit-llvm -Xclang -disable-llvm-passes pass_only_offload.c -o %t.ll
// RUN: %opt -load-pass-plugin=%passplugin '-passes=ompadapt<auto=cpu;gpu;thread_limit[64:64:1]>,verify' -pass-remarks=ompadapt -pass-remarks-missed=ompadapt -S < %t.ll > %t.opt.ll 2> %t.remarks
// RUN: %FileCheck %s < %t.opt.ll
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt -S < %t.opt.ll > %t.twice.ll
// RUN: %opt -passes=verify -S < %t.opt.ll > %t.once.ll
// RUN: diff <(grep -v ModuleID %t.once.ll) <(grep -v ModuleID %t.twice.ll)
#include <omp.h>

void plain(int n, double *x) {
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; i++)
    x[i] += 1;
}

int where(int n, double *x) {
  int on_host = 0;
#pragma omp target teams distribute parallel for map(tofrom: x[0:n]) map(tofrom: on_host)
  for (int i = 0; i < n; i++) {
    x[i] += 1;
    if (i == 0)
      on_host = omp_is_initial_device();
  }
  return on_host;
}

void shape(int n, double *x) {
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; i++)
    x[i] = omp_get_team_num();
}

void deferred(int n, double *x) {
#pragma omp target teams distribute parallel for map(tofrom: x[0:n]) nowait
  for (int i = 0; i < n; i++)
    x[i] += 2;
#pragma omp taskwait
}

// CHECK: c"ompadapt1;model=plain@pass_only_offload.c:17;loc=pass_only_offload.c:17;features=;variants=cpu,gpu,thread_limit=64;values=0,1,2;
// CHECK: c"ompadapt1;model=where@pass_only_offload.c:24;loc=pass_only_offload.c:24;features=;variants=gpu,thread_limit=64;values=0,1;
// CHECK-LABEL: define dso_local void @plain(
// CHECK: call void @__ompadapt_v6_begin(ptr @plain._ompadapt_o.slot,
// CHECK: call ptr @__ompadapt_host_enter(
// CHECK: call i32 @__tgt_target_kernel({{.*}}){{.*}}, !ompadapt.region
// CHECK: call void @__ompadapt_v6_end(
// CHECK-LABEL: define dso_local void @shape(
// CHECK-NOT: __ompadapt_v6_begin
// CHECK: ret void
// CHECK-LABEL: define dso_local void @deferred(
// CHECK-NOT: __ompadapt_v6_begin
// CHECK: ret void

// REMARK-DAG: [OMPADAPT154] region 'plain@pass_only_offload.c:17': the offload launch became an adaptive region with variants cpu, gpu, thread_limit=64
// REMARK-DAG: [OMPADAPT100] region 'plain@pass_only_offload.c:17'
// REMARK-DAG: [OMPADAPT101] region 'plain@pass_only_offload.c:17'
// REMARK-DAG: [OMPADAPT156] region 'where@pass_only_offload.c:24': variants cpu dropped: the kernel calls omp_is_initial_device, asking where it runs
// REMARK-DAG: [OMPADAPT155] region 'shape@pass_only_offload.c:34': left as written: the kernel calls omp_get_team_num, asking for the shape of its league or team
// REMARK-DAG: [OMPADAPT155] region 'deferred@pass_only_offload.c:40': left as written: a deferred launch
