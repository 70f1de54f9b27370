// C++ with a destructor in scope: the marker (which may throw, as far as clang knows) becomes
// an invoke with a cleanup landing pad.
#include "ompadapt_marker.h"

struct Guard {
  int *count;
  ~Guard() { ++*count; }
};

void with_cleanup(int variant, double *X, int N, int *count) {
  Guard g{count};
  __ompadapt_launch_site(variant == 0, 0, 0, "guarded");
#pragma omp target teams distribute parallel for map(tofrom: X[0:N])
  for (int i = 0; i < N; ++i) X[i] += 1.0;
}

// CHECK-LABEL: define {{.*}}void @_Z12with_cleanupiPdiPi(
// CHECK-NOT:   invoke void @_ZL22__ompadapt_launch_siteiiiPKc
// CHECK-NOT:   invoke void @__ompadapt_launch_site
// CHECK:       ompadapt.dispatch:
// CHECK:         br i1 %ompadapt.use_host, label %ompadapt.host, label %ompadapt.offload, !ompadapt.dispatch
// CHECK:       ompadapt.offload:
// CHECK-NEXT:    call i32 @__tgt_target_kernel(
