// Templates instantiated with types of their own: in zero-source-change mode each instantiation
// is a region of its own, named after its template arguments (a float sum and a double sum do
// not share measurements or a model); an explicit model_name keeps its meaning (one region).
#include <cstdio>
#include <vector>

template <typename T> T sum_of(const std::vector<T> &v) {
  T s{};
#pragma omp parallel for reduction(+ : s)
  for (long i = 0; i < (long)v.size(); ++i) s += v[i];
  return s;
}

template <typename T, int N> struct Stencil {
  std::vector<T> cells = std::vector<T>(4096, T(1));
  void relax() {
#pragma omp parallel for
    for (long i = 1; i < (long)cells.size() - 1; ++i) cells[i] = (cells[i] * (N - 1) + T(1)) / T(N);
  }
};

template <typename T> void scale(std::vector<T> &v, T f) {
#ifdef OMPADAPT_API_VERSION /* with the plugin */
#pragma omp adaptation model_name(scale_all) variants(serial, threads[1:1:1])
#endif
#pragma omp parallel for
  for (long i = 0; i < (long)v.size(); ++i) v[i] *= f;
}

int main() {
  std::vector<float> f(3000, 1.5f);
  std::vector<double> d(5000, 2.5);
  Stencil<float, 2> a;
  Stencil<double, 3> b;
  auto count = [](const auto &v) {
    long n = 0;
#pragma omp parallel for reduction(+ : n)
    for (long i = 0; i < (long)v.size(); ++i) n += v[i] > 0;
    return n;
  };
  double t = 0;
  for (int r = 0; r < 12; ++r) {
    t += sum_of(f) + sum_of(d);
    a.relax();
    b.relax();
    scale(f, 1.0f);
    scale(d, 1.0);
    t += count(f) + count(d);
  }
  std::printf("%.17g %.9g %.17g\n", t, a.cells[7], b.cells[7]);
  return 0;
}
