// Markers the pass must leave alone (each with its own warning), next to one it lowers.
#include "ompadapt_marker.h"

// The launch can be reached without passing the marker.
void conditional_marker(int c, int variant, double *X, int N) {
  if (c) __ompadapt_launch_site(variant == 0, 0, 0, "conditional");
#pragma omp target teams distribute parallel for map(tofrom: X[0:N])
  for (int i = 0; i < N; ++i) X[i] += 1.0;
}

// Two markers before one launch: the launch belongs to the second one.
void two_markers_one_launch(int variant, double *X, int N) {
  __ompadapt_launch_site(variant == 0, 0, 0, "first");
  __ompadapt_launch_site(variant == 0, 0, 0, "second");
#pragma omp target teams distribute parallel for map(tofrom: X[0:N])
  for (int i = 0; i < N; ++i) X[i] += 1.0;
}

// A deferred target construct: clang launches it from a task entry function.
void deferred(int variant, double *X, int N) {
  __ompadapt_launch_site(variant == 0, 0, 0, "deferred");
#pragma omp target teams distribute parallel for map(tofrom: X[0:N]) nowait
  for (int i = 0; i < N; ++i) X[i] += 1.0;
#pragma omp taskwait
}

// CHECK-LABEL: define {{.*}}void @conditional_marker(
// CHECK:       call void @__ompadapt_launch_site(i32 {{.*}}, i32 {{.*}}0, i32 {{.*}}0, ptr {{.*}}@[[COND:.str[.0-9]*]])
// CHECK-NOT:   ompadapt.dispatch
// CHECK-LABEL: define {{.*}}void @two_markers_one_launch(
// CHECK:       call void @__ompadapt_launch_site(
// CHECK-NOT:   call void @__ompadapt_launch_site(
// CHECK:       ompadapt.dispatch:
// CHECK:         br i1 %ompadapt.use_host, label %ompadapt.host, label %ompadapt.offload, !ompadapt.dispatch [[SECOND:![0-9]+]]
// CHECK-LABEL: define {{.*}}void @deferred(
// CHECK:       call void @__ompadapt_launch_site(
// CHECK-NOT:   ompadapt.dispatch
// CHECK:       !ompadapt.regions = !{[[R:![0-9]+]]}
// CHECK-DAG:   [[R]] = !{!"second", !".__omp_offloading_{{.*}}_two_markers_one_launch_l{{[0-9]+}}.region_id", !"__omp_offloading_{{.*}}_two_markers_one_launch_l{{[0-9]+}}"}
// CHECK-DAG:   [[SECOND]] = !{!"second"}
