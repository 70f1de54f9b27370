// Kernels in a header included by two translation units: templates, a member function, a
// lambda, a namespace. The unnamed primary region is one region for the whole program (same
// name in both units).
#pragma once
#include <cstddef>
#include <vector>

namespace kernels {

template <typename T> void scale(std::vector<T> &v, T f) {
  T *p = v.data();
  const long n = static_cast<long>(v.size());
#pragma omp declare adaptation model(decision_tree) feature(n)
#pragma omp metadirective when(:) when(: parallel for) \
    default(target teams distribute parallel for map(tofrom: p[0:n]))
  for (long i = 0; i < n; ++i)
    p[i] *= f;
}

struct Stencil {
  std::vector<double> u;
  int threads = 0;

  // Georgakoudis et al.'s adaptation in a member function, model_output into a member
  void relax() {
    std::vector<double> w(u);
    const long n = static_cast<long>(u.size());
#pragma omp adaptation model_name(relax) features(n) variants(1, 2) model_output(threads)
#pragma omp parallel for num_threads(threads)
    for (long i = 1; i < n - 1; ++i)
      u[i] = (w[i - 1] + w[i + 1]) / 2;
  }
};

enum class Precision { single, twice };

// Features of any arithmetic or enumeration type, as written (`v.size()`, `mode`).
template <typename F> double reduce(const std::vector<double> &v, F f, Precision mode) {
  double s = 0;
  auto body = [&](long n) {
#pragma omp adaptation model_name(reduce) features(v.size(), mode) variants(as_is, again)
    for (long i = 0; i < n; ++i)
      s += f(v[i]);
  };
  body(static_cast<long>(v.size()));
  return s;
}

} // namespace kernels

int unit_a(int rounds);
