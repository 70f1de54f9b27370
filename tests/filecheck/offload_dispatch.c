// The single-region form, through the standalone pass: clang-19 + the plugin lower the directive
// and leave a marker before the target construct (-fplugin-arg-ompadapt-no-pass keeps the pass
// out of clang); opt-19 -passes=ompadapt turns the launch into a dispatch stub.
//
// RUN: %clang -O0 --offload-host-only -S -emit-llvm -fno-discard-value-names -Xclang -disable-llvm-passes -fplugin=%plugin -fplugin-arg-ompadapt-no-pass %s -o %t.ll
// RUN: %FileCheck %s --check-prefix=FRONTEND < %t.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt -S %t.ll -o %t.opt.ll
// RUN: %FileCheck %s --check-prefix=PASS < %t.opt.ll
// Inside clang (no -fplugin-arg-ompadapt-no-pass) the same rewrite happens at -O2:
// RUN: %clang -O2 --offload-host-only -S -emit-llvm -fplugin=%plugin %s -o - | %FileCheck %s --check-prefix=INCLANG

void vecadd(double *A, double *B, double *C, int N) {
#pragma omp adaptation model_name(by_len) features(N) variants(cpu, gpu)
#pragma omp target teams distribute parallel for map(to: A[0:N], B[0:N]) map(from: C[0:N])
  for (int i = 0; i < N; ++i)
    C[i] = A[i] + B[i];
}

// FRONTEND: @.str{{.*}} = private unnamed_addr constant {{.*}} c"ompadapt1;model=by_len;loc={{.*}}offload_dispatch.c:13;features=N;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto\00"
// FRONTEND-LABEL: define {{.*}}void @vecadd(
// FRONTEND: call void @__ompadapt_launch_site(i32 {{.*}}, i32 {{.*}}, i32 {{.*}}, ptr {{.*}}@.str
// FRONTEND: call i32 @__tgt_target_kernel(
// FRONTEND: call void @__omp_offloading_{{.*}}_vecadd_l14(
// FRONTEND: call void @__ompadapt_end(ptr {{.*}}%_ompadapt_c1)

// PASS-LABEL: define {{.*}}void @vecadd(
// PASS-NOT: __ompadapt_launch_site
// PASS: ompadapt.dispatch:
// PASS: br i1 %{{.*}}, label %ompadapt.guard, label %ompadapt.offload, !ompadapt.dispatch ![[SITE:[0-9]+]]
// PASS: ompadapt.guard:
// PASS: br i1 %ompadapt.host_safe, label %ompadapt.host, label %ompadapt.offload
// PASS: ompadapt.offload:
// PASS-NEXT: %[[RET:.*]] = call i32 @__tgt_target_kernel(
// PASS: ompadapt.join:
// PASS-NEXT: %ompadapt.launch = phi i32 [ %[[RET]], %ompadapt.offload ], [ -1, %ompadapt.host ]
// PASS-NEXT: %[[RUN:.*]] = phi ptr [ %ompadapt.host_run, %ompadapt.host ], [ null, %ompadapt.offload ]
// PASS-NEXT: icmp ne i32 %ompadapt.launch, 0
// PASS: call void @__omp_offloading_{{.*}}_vecadd_l14(
// PASS-NEXT: call void @__ompadapt_host_exit(ptr %[[RUN]])
// PASS-NOT: define internal void @__ompadapt_launch_site
// PASS: !ompadapt.regions = !{![[REGION:[0-9]+]]}
// PASS: ![[REGION]] = !{!"by_len", !".__omp_offloading_{{.*}}_vecadd_l14.region_id", !"__omp_offloading_{{.*}}_vecadd_l14"}
// PASS: ![[SITE]] = !{!"by_len"}

// INCLANG-NOT: __ompadapt_launch_site
// INCLANG: !ompadapt.dispatch
// INCLANG: !ompadapt.regions
