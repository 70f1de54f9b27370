// Kernels with static features known by construction.
#include <math.h>
#include "ompadapt_auto_marker.h"

// Per iteration: one fmul, one fadd; loads x[i], y[i], store y[i]; no calls.
void saxpy(float *x, float *y, float a, int n) {
  const char *s = OMPADAPT_SPEC("saxpy");
  double f[16];
  int k = __ompadapt_auto_features(f, 16, &s, "saxpy", "i");
#pragma omp parallel for
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
  use(s, f, k);
}

__attribute__((noinline)) static double weight(double v) { return v > 0 ? v * 0.5 : -v; }

// A call of a module function (its body counted once, the call counted), sqrt as a flop,
// and a loop inside the body: depth 2.
void norms(double *out, const double *m, int rows, int cols) {
  const char *s = OMPADAPT_SPEC("norms");
  double f[16];
  int k = __ompadapt_auto_features(f, 16, &s, "norms", "r");
#pragma omp parallel for
  for (int r = 0; r < rows; ++r) {
    double acc = 0;
    for (int c = 0; c < cols; ++c) acc += m[r * cols + c] * m[r * cols + c];
    out[r] = weight(sqrt(acc));
  }
  use(s, f, k);
}
