// Plain OpenMP in C++, nothing adaptive: the plugin must leave every diagnostic as it is.
#include <vector>

template <typename T> T sum(const std::vector<T> &v) {
  T s{};
#pragma omp parallel for reduction(+ : s)
  for (std::size_t i = 0; i < v.size(); ++i)
    s += v[i];
  return s;
}

struct Body {
  std::vector<double> x;
  void step(double dt) {
#pragma omp parallel for
    for (auto &e : x)
      e += dt;
    auto f = [this](int n) {
#pragma omp simd
      for (int i = 0; i < n; ++i)
        x[i] *= 2;
    };
    f(static_cast<int>(x.size()));
  }
};

int main() {
  Body b{std::vector<double>(100, 1.0)};
  b.step(0.5);
  double total = 0;
#pragma omp target map(tofrom : total)
  { total = 3; }
  try {
#pragma omp parallel for
    for (int i = 0; i < 10; ++i)
      b.x[i] = i;
  } catch (...) {
  }
  return static_cast<int>(sum(b.x) + total) % 2;
}
