// C++: adaptive regions in templates, lambdas, member functions and namespaces.
#include <vector>

namespace physics {

template <typename T> struct Grid {
  std::vector<T> y;
  int threads = 0;

  void relax(int sweeps) {
    for (int s = 0; s < sweeps; ++s) {
#pragma omp begin adaptation model_name(relax) features(y.size(), sweeps) variants(serial, cpu) model_output(threads)
#pragma omp metadirective when(user={adaptation(relax == cpu)}: parallel for) default()
      for (long i = 1; i < (long)y.size() - 1; ++i)
        y[i] = (y[i - 1] + y[i + 1]) / 2;
#pragma omp end adaptation
    }
  }
};

enum class Mode { fast, safe };

template <typename F> void apply(std::vector<double> &v, F f, Mode mode) {
#pragma omp declare adaptation feature(v.size(), mode) model(logistic_regression)
#pragma omp metadirective when(: parallel for) default(simd)
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = f(v[i]);
}

} // namespace physics

double run(int n) {
  physics::Grid<double> g;
  g.y.assign(n, 1.0);
  g.relax(3);
  std::vector<double> v(n, 2.0);
  physics::apply(v, [](double x) { return x * x; }, physics::Mode::fast);
  auto lambda = [&](int m) {
    double s = 0;
#pragma omp adaptation model_name(lam) features(m) variants(a, b)
    for (int i = 0; i < m; ++i)
      s += v[i];
    return s;
  };
  return lambda(n) + g.y[0];
}
