// Several sites: two adaptive regions in one function, one in a loop in another function, and
// a target region without a marker that must stay as it is.
#include "ompadapt_marker.h"

void two_regions(int v1, int v2, double *X, double *Y, int N) {
  __ompadapt_launch_site(v1 == 0, 0, 0, "scale");
#pragma omp target teams distribute parallel for map(tofrom: X[0:N])
  for (int i = 0; i < N; ++i) X[i] *= 2.0;

  __ompadapt_launch_site(v2 == 0, 0, 0, "shift");
#pragma omp target teams distribute parallel for map(tofrom: Y[0:N])
  for (int i = 0; i < N; ++i) Y[i] += 1.0;
}

void in_loop(const int *variants, double *X, int N, int steps) {
  for (int s = 0; s < steps; ++s) {
    __ompadapt_launch_site(variants[s] == 0, 0, 0, "step");
#pragma omp target teams distribute parallel for map(tofrom: X[0:N])
    for (int i = 0; i < N; ++i) X[i] = X[i] * 0.5 + s;
  }
}

void not_adaptive(double *X, int N) {
#pragma omp target teams distribute parallel for map(tofrom: X[0:N])
  for (int i = 0; i < N; ++i) X[i] = -X[i];
}

// CHECK-LABEL: define {{.*}}void @two_regions(
// CHECK:       ompadapt.dispatch:
// CHECK:         br i1 %ompadapt.use_host, label %ompadapt.host, label %ompadapt.offload, !ompadapt.dispatch [[SCALE:![0-9]+]]
// CHECK:       ompadapt.offload:
// CHECK-NEXT:    call i32 @__tgt_target_kernel({{.*}}@.__omp_offloading_[[L1:.*_two_regions_l[0-9]+]].region_id
// CHECK:       ompadapt.dispatch{{[0-9]+}}:
// CHECK-NEXT:    [[UH:%ompadapt.use_host[0-9]+]] = icmp ne i32
// CHECK-NEXT:    br i1 [[UH]], label %[[HOST:ompadapt.host[0-9]+]], label %[[OFF:ompadapt.offload[0-9]+]], !ompadapt.dispatch [[SHIFT:![0-9]+]]
// CHECK:       [[OFF]]:
// CHECK-NEXT:    call i32 @__tgt_target_kernel({{.*}}@.__omp_offloading_[[L2:.*_two_regions_l[0-9]+]].region_id
// CHECK:       [[HOST]]:
// CHECK-LABEL: define {{.*}}void @in_loop(
// CHECK:       ompadapt.dispatch:
// CHECK:         br i1 %ompadapt.use_host, label %ompadapt.host, label %ompadapt.offload, !ompadapt.dispatch [[STEP:![0-9]+]]
// CHECK:       ompadapt.offload:
// CHECK-NEXT:    call i32 @__tgt_target_kernel({{.*}}@.__omp_offloading_[[L3:.*_in_loop_l[0-9]+]].region_id
// CHECK-LABEL: define {{.*}}void @not_adaptive(
// CHECK-NOT:   ompadapt
// CHECK:       call i32 @__tgt_target_kernel({{.*}}_not_adaptive_l{{[0-9]+}}.region_id
// CHECK-NOT:   ompadapt
// CHECK-LABEL: }
// CHECK-NOT:   __ompadapt_launch_site
// CHECK:       !ompadapt.regions = !{[[R1:![0-9]+]], [[R2:![0-9]+]], [[R3:![0-9]+]]}
// CHECK-DAG:   [[R1]] = !{!"scale", !".__omp_offloading_[[L1]].region_id", !"__omp_offloading_[[L1]]"}
// CHECK-DAG:   [[R2]] = !{!"shift", !".__omp_offloading_[[L2]].region_id", !"__omp_offloading_[[L2]]"}
// CHECK-DAG:   [[R3]] = !{!"step", !".__omp_offloading_[[L3]].region_id", !"__omp_offloading_[[L3]]"}
// CHECK-DAG:   [[SCALE]] = !{!"scale"}
// CHECK-DAG:   [[SHIFT]] = !{!"shift"}
// CHECK-DAG:   [[STEP]] = !{!"step"}
