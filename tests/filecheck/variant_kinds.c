// Each variant kind in IR. The frontend leaves one launch-site marker (use_host, num_teams,
// thread_limit, model) before the launch, the cpu variant's guard before it (no copies: the
// runtime makes them from the launch's map entries), and for coschedule a second, deferred launch
// plus a host parallel loop; the pass (checked with the verifier) writes num_teams and
// thread_limit into the launch and KernelArgsTy at run time; running it twice changes nothing.
//
// RUN: %clang -O0 --offload-host-only -S -emit-llvm -fno-discard-value-names -Xclang -disable-llvm-passes -fplugin=%plugin -fplugin-arg-ompadapt-no-pass %s -o %t.ll
// RUN: %FileCheck %s --check-prefix=FRONTEND < %t.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -S < %t.ll > %t.opt.ll
// RUN: %FileCheck %s --check-prefix=PASS < %t.opt.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -S < %t.opt.ll > %t.twice.ll
// RUN: diff %t.opt.ll %t.twice.ll
// In clang at every level, each output checked by the verifier:
// RUN: for o in -O0 -O1 -O2 -O3; do %clang $o --offload-host-only -S -emit-llvm -fplugin=%plugin %s -o %t$o.ll; %opt -passes=verify -disable-output %t$o.ll; %FileCheck %s --check-prefix=INCLANG < %t$o.ll; done
// The nvptx64 device compilation has the same kernels (the coschedule split's too) and none of
// the host-side calls:
// RUN: %clang_nvptx -O2 --offload-arch=sm_90 --offload-device-only -S -emit-llvm -fplugin=%plugin %s -o - | %FileCheck %s --check-prefix=NVPTX

void launch(double *x, double *y, int n) {
#pragma omp target data map(tofrom: y[0:n]) map(to: x[0:n])
  {
#pragma omp adaptation model_name(kinds) features(n) variants(cpu, gpu, thread_limit[64:128:64], num_teams[4:8:4])
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; ++i) y[i] += 2 * x[i];
  }
}

void cosched(const double *a, double *c, int n) {
#pragma omp adaptation model_name(split) features(n) variants(gpu, coschedule[0:1:0.5])
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: c[0:n])
  for (int i = 0; i < n; ++i) c[i] = a[i] * 3;
}

void host(double *y, int n) {
#pragma omp adaptation model_name(pfor) features(n) variants(serial, num_threads[2:4:2], schedule(dynamic, 16))
#pragma omp parallel for
  for (int i = 0; i < n; ++i) y[i] = i;
}

// FRONTEND: @.str{{.*}} = private unnamed_addr constant {{.*}} c"ompadapt1;model=kinds;{{.*}};variants=cpu,gpu,thread_limit=64,thread_limit=128,num_teams=4,num_teams=8;values=0,1,64,128,4,8;numeric=0;
// FRONTEND-LABEL: define {{.*}}void @launch(
// FRONTEND: call void @__tgt_target_data_begin_mapper(
// FRONTEND-NOT: call void @__tgt_target_data_update_mapper(
// FRONTEND: call void @__ompadapt_host_guard(
// FRONTEND: call void @__ompadapt_launch_site(i32 {{.*}}, i32 {{.*}}, i32 {{.*}}, ptr {{.*}}@.str
// FRONTEND: call i32 @__tgt_target_kernel(
// FRONTEND-NOT: call void @__tgt_target_data_update_mapper(
// FRONTEND: call void @__tgt_target_data_end_mapper(
// FRONTEND-LABEL: define {{.*}}void @cosched(
// FRONTEND-DAG: call ptr @__kmpc_omp_target_task_alloc(
// FRONTEND-DAG: call void {{.*}}@__kmpc_fork_call(ptr @{{.*}}, ptr @cosched.omp_outlined
// FRONTEND-DAG: call {{.*}}@__kmpc_omp_taskwait(
// FRONTEND-DAG: call void @__ompadapt_launch_site(i32 noundef 0, i32 noundef 0, i32 noundef 0,
// FRONTEND-DAG: call i32 @__tgt_target_kernel(
// FRONTEND-LABEL: define {{.*}}void @host(
// FRONTEND: call void @omp_get_schedule(
// FRONTEND: call void @omp_set_schedule(
// FRONTEND: call void @__kmpc_push_num_threads(
// FRONTEND: call void @__kmpc_serialized_parallel(
// FRONTEND: call void @omp_set_schedule(

// PASS-LABEL: define {{.*}}void @launch(
// PASS-NOT: __ompadapt_launch_site
// PASS: br i1 %{{.*}}, label %ompadapt.guard, label %ompadapt.offload, !ompadapt.dispatch
// PASS: ompadapt.guard:
// PASS: br i1 %ompadapt.host_safe, label %ompadapt.host, label %ompadapt.offload
// PASS: ompadapt.offload:
// PASS: %ompadapt.num_teams.set = icmp ne i32 %{{.*}}, 0
// PASS: %ompadapt.num_teams = select i1 %ompadapt.num_teams.set
// PASS: getelementptr inbounds i8, ptr %{{.*}}, i64 72
// PASS: %ompadapt.thread_limit.set = icmp ne i32 %{{.*}}, 0
// PASS: %ompadapt.thread_limit = select i1 %ompadapt.thread_limit.set
// PASS: getelementptr inbounds i8, ptr %{{.*}}, i64 84
// PASS: call i32 @__tgt_target_kernel(ptr @{{.*}}, i64 -1, i32 %ompadapt.num_teams, i32 %ompadapt.thread_limit,
// PASS-LABEL: define {{.*}}void @cosched(
// PASS: ompadapt.offload:
// PASS-NOT: ompadapt.thread_limit
// PASS: call i32 @__tgt_target_kernel(
// PASS: !ompadapt.regions = !{![[A:[0-9]+]], ![[B:[0-9]+]]}
// PASS: ![[A]] = !{!"kinds",
// PASS: ![[B]] = !{!"split",

// INCLANG-NOT: __ompadapt_launch_site
// INCLANG: !ompadapt.regions

// NVPTX: target triple = "nvptx64-nvidia-cuda"
// NVPTX-DAG: define weak_odr protected void @__omp_offloading_{{.*}}_launch_l
// NVPTX-DAG: define weak_odr protected void @__omp_offloading_{{.*}}_cosched_l29(
// NVPTX-DAG: define weak_odr protected void @__omp_offloading_{{.*}}_cosched_l30(
// NVPTX-NOT: __ompadapt_
