// A target construct with an if clause: clang branches on the condition first and calls the
// host fallback directly when it is false; the launch on the other path becomes the dispatch.
#include "ompadapt_marker.h"

void maybe_offload(int variant, double *X, int N) {
  __ompadapt_launch_site(variant == 0, 0, 0, "maybe");
#pragma omp target teams distribute parallel for if(target: N > 1000) map(tofrom: X[0:N])
  for (int i = 0; i < N; ++i) X[i] += 1.0;
}

// CHECK-LABEL: define {{.*}}void @maybe_offload(
// CHECK:       ompadapt.dispatch:
// CHECK:         br i1 %ompadapt.use_host, label %ompadapt.host, label %ompadapt.offload, !ompadapt.dispatch
// CHECK:       ompadapt.offload:
// CHECK-NEXT:    call i32 @__tgt_target_kernel(
// CHECK:       ompadapt.join:
// CHECK-NEXT:    %ompadapt.launch = phi i32
// CHECK-NOT:   __ompadapt_launch_site
