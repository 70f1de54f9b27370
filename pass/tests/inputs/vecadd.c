// One adaptive region: the marker is the plugin's lowering of
//   #pragma omp adaptation model_name(vecadd) features(1) variants(cpu, gpu)
#include "ompadapt_marker.h"

void vecadd(int variant, const double *A, const double *B, double *C, int N) {
  __ompadapt_launch_site(variant == 0 /* index of cpu */, 0, 0, "vecadd");
#pragma omp target teams distribute parallel for map(to: A[0:N], B[0:N]) map(from: C[0:N])
  for (int i = 0; i < N; ++i) C[i] = A[i] + B[i];
}

// CHECK-LABEL: define {{.*}}void @vecadd(
// CHECK:       [[USE:%[0-9]+]] = zext i1 {{%[0-9]+}} to i32
// CHECK-NOT:   call {{.*}}@__ompadapt_launch_site
// CHECK:       br label %ompadapt.dispatch
// CHECK:       ompadapt.dispatch:
// CHECK-NEXT:    %ompadapt.use_host = icmp ne i32 [[USE]], 0
// CHECK-NEXT:    br i1 %ompadapt.use_host, label %ompadapt.host, label %ompadapt.offload, !ompadapt.dispatch [[DISPATCH:![0-9]+]]
// CHECK:       ompadapt.offload:
// CHECK-NEXT:    [[R:%[0-9]+]] = call i32 @__tgt_target_kernel(ptr @{{[0-9]+}}, i64 -1, i32 {{.*}}, ptr @.__omp_offloading_[[ID:[0-9a-f]+_[0-9a-f]+_vecadd_l[0-9]+]].region_id, ptr
// CHECK-NEXT:    br label %ompadapt.join
// CHECK:       ompadapt.host:
// CHECK-NEXT:    br label %ompadapt.join
// CHECK:       ompadapt.join:
// CHECK-NEXT:    %ompadapt.launch = phi i32 [ [[R]], %ompadapt.offload ], [ -1, %ompadapt.host ]
// CHECK-NEXT:    [[F:%[0-9]+]] = icmp ne i32 %ompadapt.launch, 0
// CHECK-NEXT:    br i1 [[F]], label %[[FAILED:[0-9]+]], label
// CHECK:       [[FAILED]]:
// CHECK-NEXT:    call void @__omp_offloading_[[ID]](
// CHECK-LABEL: }
// CHECK-NOT:   define {{.*}}@__ompadapt_launch_site
// CHECK:       declare void @ompadapt_unlowered_offload_site(
// CHECK:       !ompadapt.regions = !{[[REGION:![0-9]+]]}
// CHECK-DAG:   [[REGION]] = !{!"vecadd", !".__omp_offloading_[[ID]].region_id", !"__omp_offloading_[[ID]]"}
// CHECK-DAG:   [[DISPATCH]] = !{!"vecadd"}
