/* corpus: team-size invariant (prints the same for every team size of every region) */
// C++ with objects to destroy around the regions (Mantevo HPCCG's main): every call there may
// throw, so clang emits invokes, the markers' calls among them.
#include <cstdio>
#include <string>
#include <vector>

static double norm(const std::vector<double> &v) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) // expect: adaptive
  for (long i = 0; i < (long)v.size(); ++i) s += v[i] * v[i];
  return s;
}

int main(int argc, char **argv) {
  std::string name = argc > 1 ? argv[1] : "cleanups";
  std::vector<double> x(20000), y(20000);
  for (int r = 0; r < 20; ++r) {
    std::vector<double> scratch(x.size());
#pragma omp parallel for // expect: adaptive
    for (long i = 0; i < (long)x.size(); ++i) {
      scratch[i] = (i % 7) * 0.5 + r;
      x[i] = scratch[i] * 2;
    }
#pragma omp parallel // expect: adaptive
    {
#pragma omp for
      for (long i = 0; i < (long)y.size(); ++i) y[i] = x[i] + 1;
    }
  }
  /* integer-valued halves: the sum is exact in any order */
  std::printf("%s: %.17g %.17g\n", name.c_str(), norm(x), norm(y));
  return 0;
}
