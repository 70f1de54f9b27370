// Pass-only mode: the pass on the IR of plain clang (no frontend plugin) makes each host parallel
// region that cannot observe its team adaptive (OMPADAPT150), with the runtime calls of
// zero-source-change mode around the fork: one support call (begin, then the variant's team pushed
// for the fork: serial is a team of one, which libomp runs serialized, as it runs `if(0)`), the
// fork as written, end. A region that counts its threads and one nested in
// another stay as written, and so does the region around that one: every thread of it runs the
// nested loop, whose stores then happen once per thread. A second run changes nothing; the kinds come from the pass parameter
// (';' between kinds), OMPADAPT_AUTO or the default; a bad list is an error naming the kind.
//
// RUN: cd %S && %clang -O0 -gline-tables-only --offload-host-only -S -emit-llvm -Xclang -disable-llvm-passes pass_only.c -o %t.ll
// RUN: env -u OMPADAPT_AUTO %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -pass-remarks=ompadapt -pass-remarks-missed=ompadapt -pass-remarks-analysis=ompadapt -S < %t.ll > %t.opt.ll 2> %t.remarks
// RUN: %FileCheck %s < %t.opt.ll
// RUN: %FileCheck %s --check-prefix=LOADER < %t.opt.ll
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt -S < %t.opt.ll > %t.twice.ll
// RUN: %opt -passes=verify -S < %t.opt.ll > %t.once.ll
// RUN: diff <(grep -v ModuleID %t.once.ll) <(grep -v ModuleID %t.twice.ll)
// RUN: %opt -load-pass-plugin=%passplugin '-passes=ompadapt<auto=serial;num_threads[2:4:2]>' -S < %t.ll | %FileCheck %s --check-prefix=LIST
// RUN: %opt -load-pass-plugin=%passplugin '-passes=ompadapt<no-auto>' -S < %t.ll | %FileCheck %s --check-prefix=OFF
// RUN: OMPADAPT_AUTO=off %opt -load-pass-plugin=%passplugin -passes=ompadapt -S < %t.ll | %FileCheck %s --check-prefix=OFF
// RUN: OMPADAPT_AUTO=serial,threads[0.5:1:0.5] %opt -load-pass-plugin=%passplugin -passes=ompadapt -S < %t.ll | %FileCheck %s --check-prefix=ENV
// RUN: ! %opt -load-pass-plugin=%passplugin '-passes=ompadapt<auto=serail>' -disable-output < %t.ll 2>&1 | %FileCheck %s --check-prefix=BAD
// RUN: env -u OMPADAPT_AUTO %opt -load-pass-plugin=%passplugin '-passes=ompadapt,default<O2>' -S < %t.ll | %FileCheck %s --check-prefix=O2

void saxpy(int n, float a, float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] += a * x[i];
}

int count_threads(void) {
  int t = 0;
#pragma omp parallel
  {
#pragma omp atomic
    t++;
  }
  return t;
}

void nested(int n, double *v) {
#pragma omp parallel
  {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      v[i] = i;
  }
}

// CHECK: @saxpy._ompadapt_p.spec = private unnamed_addr constant {{.*}} c"ompadapt1;model=saxpy@pass_only.c:26;loc=pass_only.c:26;features=;variants=serial,threads=0.125,threads=0.25,threads=0.5,threads=1;values=0,0.125,0.25,0.5,1;numeric=0;model_type=auto;in_parallel=as_written\00"
// CHECK: @saxpy._ompadapt_p.slot = internal global ptr null
// The region's table: its slot, its constant features (the static ones; bit 0 of the mask: the
// trip count, which its code passes), the team per variant (serial: one thread, -1; shares of the
// program's team), then as written (0):
// CHECK: @saxpy._ompadapt_p.teams = private unnamed_addr constant { ptr, ptr, i32, i32, [6 x double] } { ptr @saxpy._ompadapt_p.slot, ptr @saxpy._ompadapt_p.teams.constants, i32 1, i32 5, [6 x double] [double -1.000000e+00, double 1.250000e-01, double 2.500000e-01, double 5.000000e-01, double 1.000000e+00, double 0.000000e+00] }
// CHECK: @__ompadapt_v6_default_runtime = weak hidden constant ptr @ompadapt.default_runtime
// CHECK: c"ompadapt1;model=saxpy@pass_only.c:26;loc=pass_only.c:26;features=;{{.*}};in_parallel=as_written;auto_features=trip_count(loop1),ops,flops,comparisons,memory_accesses,loop_depth,calls\00"
// CHECK: @saxpy._ompadapt_p.teams.constants = private unnamed_addr constant [7 x double] [double 0.000000e+00, double {{[1-9][0-9.e+]*}}, double {{[1-9][0-9.e+]*}}, double {{[1-9][0-9.e+]*}}, double {{[1-9][0-9.e+]*}}, double 1.000000e+00, double 0.000000e+00]

// CHECK-LABEL: define dso_local void @saxpy(
// CHECK: %ompadapt.ctx = alloca { ptr, i64, i32, i32, double, [16 x double], ptr, ptr }
// One support call before the fork (begin, the variant's team, its push), the fork as written
// (no second copy of the region: serial is a team of one), end right after it.
// CHECK-NOT: __kmpc_serialized_parallel
// CHECK-NOT: __kmpc_push_num_threads
// No feature is stored: the trip count, which changes, is an argument of the support call (the
// features array null), the static features are in the table.
// CHECK-NOT: store double
// CHECK-NOT: %ompadapt.features
// CHECK: call void (ptr, ptr, ptr, i32, ptr, ptr, i32, ...) @__ompadapt_v6_enter_team(ptr @saxpy._ompadapt_p.teams, ptr %{{.*}}, ptr null, i32 7, ptr %ompadapt.ctx, ptr @{{[0-9]+}}, i32 -2147483648, double %ompadapt.trip_count)
// CHECK-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{.*}}, i32 4, ptr @saxpy.omp_outlined, {{.*}}), !dbg !{{[0-9]+}}, !ompadapt.region
// CHECK-NEXT: call void @__ompadapt_v6_end(ptr %ompadapt.ctx)
// CHECK-NOT: __kmpc_serialized_parallel
// CHECK: ret void
// CHECK-LABEL: define dso_local i32 @count_threads(
// CHECK-NOT: __ompadapt_v6_begin
// CHECK: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(
// CHECK-NOT: __ompadapt_v6_begin
// CHECK-LABEL: define dso_local void @nested(
// CHECK-NOT: __ompadapt_v6_begin
// CHECK: define internal void @nested.omp_outlined(
// CHECK-NOT: __ompadapt_v6_begin
// CHECK: ret void

// LOADER: module asm "__ompadapt_v6_load_runtime:{{.*}}"

// REMARK-DAG: remark: pass_only.c:26:1: [OMPADAPT150] region 'saxpy@pass_only.c:26': the parallel region became adaptive with variants serial, threads=0.125, threads=0.25, threads=0.5, threads=1
// REMARK-DAG: remark: pass_only.c:26:1: [OMPADAPT120] region 'saxpy@pass_only.c:26': automatic features: trip_count(loop1), ops, flops, comparisons, memory_accesses, loop_depth, calls
// REMARK-DAG: remark: pass_only.c:33:1: [OMPADAPT145] region 'count_threads@pass_only.c:33': left as written:
// REMARK-DAG: remark: pass_only.c:44:1: [OMPADAPT153] region 'nested@pass_only.c:44': left as written: nested in the parallel region of 'nested (parallel region)'
// REMARK-DAG: remark: pass_only.c:42:1: [OMPADAPT145] region 'nested@pass_only.c:42': left as written: every thread of the team writes shared memory

// LIST: c"ompadapt1;model=saxpy@pass_only.c:26;loc=pass_only.c:26;features=;variants=serial,num_threads=2,num_threads=4;values=0,2,4;
// ENV: c"ompadapt1;model=saxpy@pass_only.c:26;loc=pass_only.c:26;features=;variants=serial,threads=0.5,threads=1;values=0,0.5,1;
// OFF-NOT: ompadapt
// BAD: ompadapt: error: 'serail' is not a variant kind; did you mean 'serial'?
// O2: call void (ptr, ptr, ptr, i32, ptr, ptr, i32, ...) @__ompadapt_v6_enter_team(
// O2: call void @__ompadapt_v6_end(
