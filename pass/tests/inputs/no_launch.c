// A marker with no offload launch after it (the target construct is missing): the pass leaves
// the module unchanged and warns; the runtime warns again at run time.
#include "ompadapt_marker.h"

void lonely(int variant, double *X, int N) {
  __ompadapt_launch_site(variant == 0, 0, 0, "lonely");
  for (int i = 0; i < N; ++i) X[i] = 0;
}

// CHECK-LABEL: define {{.*}}void @lonely(
// CHECK:       call void @__ompadapt_launch_site(
// CHECK-NOT:   ompadapt.dispatch
// CHECK:       define internal void @__ompadapt_launch_site(
// CHECK-NOT:   !ompadapt.regions
