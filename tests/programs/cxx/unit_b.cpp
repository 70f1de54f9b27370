// Second translation unit and main: the same header's kernels with double, a stencil and a
// reduction through a lambda. Every result is checked; prints `RESULT ok`.
#include "kernels.hpp"
#include <cstdio>

int main() {
  int wrong = unit_a(4);
  for (int r = 0; r < 4; ++r)
    for (long n : {64L, 4096L}) {
      std::vector<double> v(n, 2.0);
      kernels::scale(v, 0.25);
      for (double x : v)
        wrong += x != 0.5;
      kernels::Stencil s{std::vector<double>(n, 1.0)};
      s.u[0] = s.u[n - 1] = 0;
      s.relax();
      wrong += s.u[1] != 0.5 || s.u[n / 2] != 1.0 || (s.threads != 1 && s.threads != 2);
      double total = kernels::reduce(v, [](double x) { return 2 * x; }, kernels::Precision::twice);
      wrong += total != static_cast<double>(n);
    }
  std::printf("RESULT %s\n", wrong == 0 ? "ok" : "wrong");
  return wrong != 0;
}
