// What the frontend lowering puts in the IR: one static handle per region, the region
// descriptor, the begin/end calls through the runtime's API table, model_output, and a
// metadirective that became a run-time chain over its variants (parallel for vs. offload).
//
// RUN: %clang -O0 -S -emit-llvm -fno-discard-value-names --offload-host-only -fplugin=%plugin %s -o - | %FileCheck %s

int chosen;
void vecAdd(double *A, double *B, double *C, int N) {
#pragma omp begin adaptation model_name(by_len) features(N, N * 2) variants([64:256:64]) \
    min_train_data(8) model_type(rfc, 5, 3) model_output(chosen)
#pragma omp metadirective \
    when(user={adaptation(by_len <= 128)} : parallel for) \
    when(user={adaptation(by_len == 192)} : target teams distribute parallel for map(to: A[0:N], B[0:N]) map(from: C[0:N]))
  for (int i = 0; i < N; ++i)
    C[i] = A[i] + B[i];
#pragma omp end adaptation model_name(by_len)
}

// CHECK: @vecAdd._ompadapt_h1 = internal global ptr null
// The features as written in the source.
// CHECK: c"ompadapt1;model=by_len;loc={{.*}}lowering.c:9;features=N,N * 2;variants=64,128,192,256;values=64,128,192,256;numeric=1;model_type=rfc\00"
// CHECK-LABEL: define {{.*}}void @vecAdd(
// The runtime's begin(slot, spec, min_train=8, trees=5, depth=3, features, 2, &ctx), through
// the precompiled support code (the pass runs):
// CHECK: call void @__ompadapt_v6_begin(ptr noundef @vecAdd._ompadapt_h1, ptr noundef @.str{{.*}}, i64 noundef 8, i64 noundef 5, i64 noundef 3, ptr noundef %{{.*}}, i32 noundef 2, ptr noundef %_ompadapt_c1)
// model_output: chosen = (int) ctx.value
// CHECK: fptosi double %{{.*}} to i32
// CHECK: store i32 %{{.*}}, ptr @chosen
// The metadirective: variant index <= 1 runs the parallel loop, == 2 offloads, else serial.
// CHECK: icmp sle i32 %{{.*}}, 1
// CHECK: call void {{.*}}@__kmpc_fork_call(
// CHECK: icmp eq i32 %{{.*}}, 2
// CHECK: call i32 @__tgt_target_kernel(
// CHECK: call void @__ompadapt_v6_end(ptr noundef %_ompadapt_c1)
