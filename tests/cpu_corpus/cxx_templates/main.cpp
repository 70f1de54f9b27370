// C++: a template, a lambda in the loop body, a class member, parallel for simd.
#include <cstdio>
#include <cstdlib>
#include <vector>

template <typename T> static T sum_of(const std::vector<T> &v) {
  T s{};
#pragma omp parallel for simd reduction(+ : s) // expect: adaptive
  for (long i = 0; i < (long)v.size(); ++i) s += v[i];
  return s;
}

struct Grid {
  std::vector<double> cells;
  explicit Grid(long n) : cells(n) {}
  void relax(double f) {
    auto damp = [f](double x) { return x * f + 1.0; };
#pragma omp parallel for // expect: adaptive
    for (long i = 0; i < (long)cells.size(); ++i) cells[i] = damp(cells[i]);
  }
};

int main(int argc, char **argv) {
  long n = argc > 1 ? std::atol(argv[1]) : 100000;
  std::vector<long> v(n);
  for (long i = 0; i < n; ++i) v[i] = (i * 7) % 1000;
  Grid g(n / 10);
  long s = 0;
  for (int r = 0; r < 25; ++r) {
    s += sum_of(v);
    g.relax(0.5);
  }
  std::printf("sum=%ld cell=%.17g total=%.17g\n", s, g.cells[3], sum_of(g.cells));
  return 0;
}
