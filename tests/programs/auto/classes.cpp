// An unmodified C++ offload program, built stock and in zero-source-change mode: a function
// template (two instantiations), member functions defined in and out of their class, lambdas,
// a class template's member, all in a namespace. Values are integers held in doubles: results are exact.
#include <cstdio>
#include <vector>

namespace sim {

template <typename T> void axpy(T a, const T *x, T *y, int n) {
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
}

class Field {
public:
  explicit Field(int n) : n_(n), data_(n) {}
  void fill(double v) {
    double *d = data_.data();
    int n = n_;
#pragma omp target teams distribute parallel for map(from: d[0:n])
    for (int i = 0; i < n; ++i) d[i] = v + i % 5;
  }
  double sum() const;
  double *data() { return data_.data(); }

private:
  int n_;
  std::vector<double> data_;
};

double Field::sum() const {
  const double *d = data_.data();
  int n = n_;
  double s = 0;
#pragma omp target teams distribute parallel for reduction(+: s) map(to: d[0:n])
  for (int i = 0; i < n; ++i) s += d[i];
  return s;
}

// A class template whose member, defined in the class, launches from a lambda.
template <typename T> struct Stencil {
  T w;
  void apply(T *p, int n) const {
    const T c = w;
    auto kernel = [=]() {
#pragma omp target teams distribute parallel for map(tofrom: p[0:n])
      for (int i = 0; i < n; ++i) p[i] = c * p[i] + 1;
    };
    kernel();
  }
};

} // namespace sim

int main() {
  const int n = 3000;
  sim::Field f(n);
  f.fill(2);
  auto twice = [](double *p, int m) {
#pragma omp target teams distribute parallel for map(tofrom: p[0:m])
    for (int i = 0; i < m; ++i) p[i] *= 2;
  };
  std::vector<double> x(n, 1.0), y(n, 0.0);
  std::vector<float> xf(n, 2.0f), yf(n, 1.0f);
  for (int k = 0; k < 4; ++k) {
    sim::axpy(2.0, x.data(), y.data(), n);
    sim::axpy(3.0f, xf.data(), yf.data(), n);
    twice(f.data(), n);
    sim::Stencil<double>{3.0}.apply(y.data(), n);
  }
  double sy = 0, syf = 0;
  for (int i = 0; i < n; ++i) sy += y[i], syf += yf[i];
  std::printf("field=%.0f y=%.0f yf=%.0f\n", f.sum(), sy, syf);
  return 0;
}
