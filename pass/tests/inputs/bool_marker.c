// A marker whose use_host parameter is a _Bool: the operand is an i1 and becomes the branch
// condition directly.
#include <stdbool.h>
void ompadapt_unlowered_offload_site(const char *model);
static inline __attribute__((noinline)) void __ompadapt_launch_site(bool use_host, int num_teams, int thread_limit,
                                                                    const char *model) {
  if (use_host || num_teams || thread_limit) ompadapt_unlowered_offload_site(model);
}

void bool_site(int variant, double *X, int N) {
  __ompadapt_launch_site(variant == 0, 0, 0, "flag");
#pragma omp target teams distribute parallel for map(tofrom: X[0:N])
  for (int i = 0; i < N; ++i) X[i] += 1.0;
}

// CHECK-LABEL: define {{.*}}void @bool_site(
// CHECK-NOT:   %ompadapt.use_host = icmp
// CHECK:       ompadapt.dispatch:
// CHECK-NEXT:    br i1 {{%[0-9a-z.]+}}, label %ompadapt.host, label %ompadapt.offload, !ompadapt.dispatch
