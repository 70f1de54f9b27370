// HeCBench-style C++: a templated kernel launched through a macro with _Pragma, a time-step
// loop inside `target data`, and a helper that maps its input again on every call (the
// duplicate the tool should find, attributed to the macro's use in the template).
#include <cstdio>
#include <vector>

#define OFFLOAD(clauses) _Pragma(clauses)

template <typename T>
static void scale(T *out, const T *in, int n, T f) {
  OFFLOAD("omp target teams distribute parallel for map(to: in[0:n]) map(tofrom: out[0:n])") /* @macro */
  for (int i = 0; i < n; i++) out[i] += f * in[i];
}

int main() {
  const int n = 1 << 14, steps = 4;
  std::vector<float> in(n), out(n, 0.0f);
  for (int i = 0; i < n; i++) in[i] = 0.001f * i;
  float *o = out.data();
#pragma omp target data map(tofrom: o[0:n]) /* @data */
  {
    for (int s = 0; s < steps; s++) scale(o, in.data(), n, 1.0f + s); /* @loop */
  }
  double sum = 0;
  for (int i = 0; i < n; i++) sum += out[i];
  std::printf("CHECK sum=%.3f\n", sum);
  return 0;
}
