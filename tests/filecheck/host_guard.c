// The host guard of a region with a `cpu` variant: the frontend passes the sections the cpu
// variant copies (here the construct's own map clauses: A, B, C and the scalar s) to
// __ompadapt_host_guard right before the launch site; the pass deletes it and puts the check on
// the stub's host path, with the launch's device and kernel arguments: `cpu` runs the host
// version only when the check passes, else the launch.
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

void saxpy(double *A, double *B, double *C, double s, int N) {
  ADAPT(KINDS)
#pragma omp target teams distribute parallel for map(to: A[0:N], B[0:N], s) map(from: C[0:N])
  for (int i = 0; i < N; ++i)
    C[i] = s * A[i] + B[i];
}

// FRONTEND-LABEL: define {{.*}}void @saxpy(
// FRONTEND: %_ompadapt_g1 = alloca [8 x ptr]
// FRONTEND: call void @__ompadapt_host_guard(ptr {{.*}}%_ompadapt_c1, i32 {{.*}}2, i32 {{.*}}3, ptr {{.*}}, i32 {{.*}}4, ptr {{.*}}@.str
// FRONTEND: call void @__ompadapt_launch_site(
// FRONTEND: call i32 @__tgt_target_kernel(
// FRONTEND: define internal void @__ompadapt_host_guard(
// FRONTEND: call i32 @__ompadapt_host_guard_check(

// PASS-LABEL: define {{.*}}void @saxpy(
// PASS-NOT: call void @__ompadapt_host_guard(
// PASS: ompadapt.dispatch:
// PASS: br i1 %{{.*}}, label %ompadapt.guard, label %ompadapt.offload, !ompadapt.dispatch
// PASS: ompadapt.guard:
// PASS-NEXT: %ompadapt.host_ok = call i32 @__ompadapt_host_guard_check(ptr %_ompadapt_c1, i32 2, i32 3, ptr %{{.*}}, i32 4, i64 -1, ptr %kernel_args)
// PASS-NEXT: %ompadapt.host_safe = icmp ne i32 %ompadapt.host_ok, 0
// PASS-NEXT: br i1 %ompadapt.host_safe, label %ompadapt.host, label %ompadapt.offload
// PASS: ompadapt.offload:
// PASS: call i32 @__tgt_target_kernel(ptr @{{[0-9]+}}, i64 -1,
// PASS: ompadapt.join:
// PASS-NEXT: %ompadapt.launch = phi i32 [ %{{.*}}, %ompadapt.offload ], [ -1, %ompadapt.host ]
// PASS-NOT: define internal void @__ompadapt_host_guard(
// PASS: define internal i32 @__ompadapt_host_guard_check(
// PASS: call i32 @omp_target_is_present(
// PASS: call void %{{.*}}(ptr {{.*}}, i32 {{.*}})

// (at -O2 the constant operands are propagated into the check)
// INCLANG-NOT: __ompadapt_host_guard{{(P|\()}}
// INCLANG: call fastcc i32 @{{(_ZL27)?}}__ompadapt_host_guard_check{{[^(]*}}(ptr
// INCLANG-NOT: __ompadapt_host_guard{{(P|\()}}
// INCLANG: define internal {{.*}}i32 @{{(_ZL27)?}}__ompadapt_host_guard_check
// INCLANG: call i32 @omp_target_is_present(

// NOCPU-NOT: __ompadapt_host_guard
