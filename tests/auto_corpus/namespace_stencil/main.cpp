// A stencil of compile-time radius in a namespace (HeCBench stencil1d style): a class template
// over the radius whose static member runs the kernel, a function template over the element
// type that owns the `target data` region and the time steps, and a lambda computing the
// weights on the host. Instantiated for radius 1 and 3, float and double.
#include <cstdio>
#include <vector>

namespace sim {

template <int R>
struct Stencil {
  template <typename T>
  static void apply(const T *in, T *out, const T *w, int n) {
#pragma omp target teams distribute parallel for map(to: in[0:n], w[0:2 * R + 1]) map(tofrom: out[0:n])
    for (int i = R; i < n - R; i++) {
      T s = 0;
      for (int k = -R; k <= R; k++) s += w[k + R] * in[i + k];
      out[i] = s;
    }
  }
};

template <int R, typename T>
std::vector<T> evolve(int n, int steps) {
  std::vector<T> a(n), b(n), w(2 * R + 1);
  auto weight = [](int k) { return T(1) / T(1 << (k < 0 ? -k + 1 : k + 1)); };
  for (int k = -R; k <= R; k++) w[k + R] = weight(k);
  for (int i = 0; i < n; i++) a[i] = b[i] = T(i % 32);
  T *pa = a.data(), *pb = b.data(), *pw = w.data();
#pragma omp target data map(tofrom: pa[0:n], pb[0:n]) map(to: pw[0:2 * R + 1])
  for (int s = 0; s < steps; s++) {
#pragma omp target teams distribute parallel for
    for (int i = R; i < n - R; i++) {
      T acc = 0;
      for (int k = -R; k <= R; k++) acc += pw[k + R] * pa[i + k];
      pb[i] = acc;
    }
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) pa[i] = pb[i];
  }
  return a;
}

template <int R, typename T>
std::vector<T> evolve_serial(int n, int steps) {
  std::vector<T> a(n), b(n), w(2 * R + 1);
  for (int k = -R; k <= R; k++) w[k + R] = T(1) / T(1 << (k < 0 ? -k + 1 : k + 1));
  for (int i = 0; i < n; i++) a[i] = b[i] = T(i % 32);
  for (int s = 0; s < steps; s++) {
    for (int i = R; i < n - R; i++) {
      T acc = 0;
      for (int k = -R; k <= R; k++) acc += w[k + R] * a[i + k];
      b[i] = acc;
    }
    a = b;
  }
  return a;
}

}  // namespace sim

template <int R, typename T>
bool run(const char *type, int n, int steps) {
  std::vector<T> a = sim::evolve<R, T>(n, steps), r = sim::evolve_serial<R, T>(n, steps);
  std::vector<T> w(2 * R + 1), once(n, T(0));
  for (int k = -R; k <= R; k++) w[k + R] = T(0.5);
  sim::Stencil<R>::apply(a.data(), once.data(), w.data(), n);
  double sum = 0, sum1 = 0;
  for (int i = 0; i < n; i++) sum += a[i];
  bool ok = a == r;
  for (int i = R; i < n - R; i++) {
    T e = 0;
    for (int k = -R; k <= R; k++) e += w[k + R] * a[i + k];
    ok = ok && once[i] == e;
    sum1 += once[i];
  }
  std::printf("stencil<%d,%s> n=%d steps=%d checksum=%.9e applied=%.9e\n", R, type, n, steps, sum, sum1);
  return ok;
}

int main() {
  bool ok = run<1, float>("float", 2000, 20);
  ok = run<3, double>("double", 3000, 20) && ok;
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
