// The host guard of a region with a `cpu` variant: the frontend calls __ompadapt_host_guard
// (ctx, the cpu variant, its replacement) right before the launch site, and no copies of its
// own; the pass deletes it, calls __ompadapt_host_enter with the launch's device and kernel
// arguments and the declare target variables the kernel reaches (as (start, end) pairs) on the
// stub's host path (the host version runs only when it returns non-null, else the launch),
// carries its result through the join, and calls __ompadapt_host_exit with it right after the
// host version on clang's failure path.
//
// RUN: %clang -O0 --offload-host-only -S -emit-llvm -fno-discard-value-names -Xclang -disable-llvm-passes -fplugin=%plugin -fplugin-arg-ompadapt-no-pass %s -o %t.ll
// RUN: %FileCheck %s --check-prefix=FRONTEND < %t.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -S %t.ll -o %t.opt.ll
// RUN: %FileCheck %s --check-prefix=PASS < %t.opt.ll
// Twice: nothing changes the second time.
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -S %t.opt.ll -o %t.twice.ll
// RUN: diff <(tail -n +2 %t.opt.ll) <(tail -n +2 %t.twice.ll)
// Inside clang at -O2, in C and in C++ (the marker and the check are mangled there):
// RUN: %clang -O2 --offload-host-only -S -emit-llvm -fplugin=%plugin %s -o - | %FileCheck %s --check-prefix=INCLANG
// RUN: %clang -x c++ -O2 --offload-host-only -S -emit-llvm -fplugin=%plugin %s -o - | %FileCheck %s --check-prefix=INCLANG
// Without a cpu variant there is no guard:
// RUN: %clang -O0 --offload-host-only -S -emit-llvm -DNO_CPU -fplugin=%plugin %s -o - | %FileCheck %s --check-prefix=NOCPU

#ifdef NO_CPU
#define KINDS variants(gpu, thread_limit[64:128:64])
#else
#define KINDS variants(thread_limit[64:128:64], cpu, gpu)
#endif
#define PRAGMA(x) _Pragma(#x)
#define ADAPT(k) PRAGMA(omp adaptation model_name(saxpy) features(N) k)

#pragma omp declare target
double bias;
#pragma omp end declare target

void saxpy(double *A, double *B, double *C, double s, int N) {
  ADAPT(KINDS)
#pragma omp target teams distribute parallel for map(to: A[0:N], B[0:N], s) map(from: C[0:N])
  for (int i = 0; i < N; ++i)
    C[i] = s * A[i] + B[i] + bias;
}

// FRONTEND-LABEL: define {{.*}}void @saxpy(
// FRONTEND-NOT: __tgt_target_data_update_mapper
// FRONTEND: call void @__ompadapt_host_guard(ptr {{.*}}%_ompadapt_c1, i32 {{.*}}2, i32 {{.*}}3, ptr {{.*}}@.str
// FRONTEND-NOT: __tgt_target_data_update_mapper
// FRONTEND: call void @__ompadapt_launch_site(
// FRONTEND: call i32 @__tgt_target_kernel(
// FRONTEND: define internal void @__ompadapt_host_guard(
// FRONTEND: call ptr @__ompadapt_host_enter(
// FRONTEND: call void @__ompadapt_host_exit(

// the declare target variable the kernel reads, as (start, end):
// PASS: @ompadapt.device_globals = private constant [2 x ptr] [ptr @bias, ptr getelementptr (i8, ptr @bias, i64 8)]
// PASS-LABEL: define {{.*}}void @saxpy(
// PASS-NOT: call void @__ompadapt_host_guard(
// PASS: ompadapt.dispatch:
// PASS: br i1 %{{.*}}, label %ompadapt.guard, label %ompadapt.offload, !ompadapt.dispatch
// PASS: ompadapt.guard:
// PASS-NEXT: %ompadapt.host_run = call ptr @__ompadapt_host_enter(ptr %_ompadapt_c1, i32 2, i32 3, i64 -1, ptr %kernel_args, ptr @ompadapt.device_globals, i32 1)
// PASS-NEXT: %ompadapt.host_safe = icmp ne ptr %ompadapt.host_run, null
// PASS-NEXT: br i1 %ompadapt.host_safe, label %ompadapt.host, label %ompadapt.offload
// PASS: ompadapt.offload:
// PASS: call i32 @__tgt_target_kernel(ptr @{{[0-9]+}}, i64 -1,
// PASS: ompadapt.join:
// PASS-NEXT: %ompadapt.launch = phi i32 [ %{{.*}}, %ompadapt.offload ], [ -1, %ompadapt.host ]
// PASS-NEXT: %[[RUN:ompadapt.host_run[0-9]+]] = phi ptr [ %ompadapt.host_run, %ompadapt.host ], [ null, %ompadapt.offload ]
// PASS: omp_offload.failed:
// PASS-NEXT: call void @__omp_offloading_{{.*}}_saxpy_l{{[0-9]+}}(
// PASS-NEXT: call void @__ompadapt_host_exit(ptr %[[RUN]])
// PASS-NOT: define internal void @__ompadapt_host_guard(
// PASS: define internal void @__ompadapt_host_exit(
// PASS: define internal ptr @__ompadapt_host_enter(

// (at -O2 the constant operands are propagated into the functions)
// INCLANG-NOT: __ompadapt_host_guard{{(P|\()}}
// INCLANG: call fastcc ptr @{{(_ZL21)?}}__ompadapt_host_enter{{[^(]*}}(ptr
// INCLANG: call fastcc void @{{(_ZL20)?}}__ompadapt_host_exit{{[^(]*}}(ptr
// INCLANG-NOT: __ompadapt_host_guard{{(P|\()}}

// NOCPU-NOT: __ompadapt_host_guard
// NOCPU-NOT: __ompadapt_host_enter
