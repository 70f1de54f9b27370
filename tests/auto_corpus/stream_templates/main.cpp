// BabelStream-style kernels in a class template (HeCBench babelstream-omp style): each kernel is
// a member function of Stream<T>, instantiated for float and double, mapping its own arrays. A
// templated free function computes the dot product with a reduction. Values are small
// multiples of 1/2 and sizes small enough that every result, float sums included, is exact.
#include <cstdio>
#include <cstdlib>
#include <vector>

template <typename T>
T dot(const T *a, const T *b, int n) {
  T sum = 0;
#pragma omp target teams distribute parallel for map(to: a[0:n], b[0:n]) reduction(+ : sum)
  for (int i = 0; i < n; i++) sum += a[i] * b[i];
  return sum;
}

template <typename T>
class Stream {
 public:
  explicit Stream(int n) : n_(n), a_(n), b_(n), c_(n) {}

  void init() {
    for (int i = 0; i < n_; i++) {
      a_[i] = T(i % 16) * T(0.5);
      b_[i] = T((i * 3) % 8) * T(0.5);
      c_[i] = 0;
    }
  }

  void copy() {
    T *a = a_.data(), *c = c_.data();
    int n = n_;
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: c[0:n])
    for (int i = 0; i < n; i++) c[i] = a[i];
  }

  void mul(T scalar) {
    T *b = b_.data(), *c = c_.data();
    int n = n_;
#pragma omp target teams distribute parallel for map(to: c[0:n]) map(from: b[0:n])
    for (int i = 0; i < n; i++) b[i] = scalar * c[i];
  }

  void add() {
    T *a = a_.data(), *b = b_.data(), *c = c_.data();
    int n = n_;
#pragma omp target teams distribute parallel for map(to: a[0:n], b[0:n]) map(from: c[0:n])
    for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
  }

  void triad(T scalar) {
    T *a = a_.data(), *b = b_.data(), *c = c_.data();
    int n = n_;
#pragma omp target teams distribute parallel for map(to: b[0:n], c[0:n]) map(from: a[0:n])
    for (int i = 0; i < n; i++) a[i] = b[i] + scalar * c[i];
  }

  T run(int iters) {
    T d = 0;
    for (int k = 0; k < iters; k++) {
      copy();
      mul(T(0.5));
      add();
      triad(T(0.5));
      d = dot(a_.data(), b_.data(), n_);
    }
    return d;
  }

  T run_serial(int iters) {
    T d = 0;
    for (int k = 0; k < iters; k++) {
      for (int i = 0; i < n_; i++) c_[i] = a_[i];
      for (int i = 0; i < n_; i++) b_[i] = T(0.5) * c_[i];
      for (int i = 0; i < n_; i++) c_[i] = a_[i] + b_[i];
      for (int i = 0; i < n_; i++) a_[i] = b_[i] + T(0.5) * c_[i];
      d = 0;
      for (int i = 0; i < n_; i++) d += a_[i] * b_[i];
    }
    return d;
  }

  const std::vector<T> &a() const { return a_; }

 private:
  int n_;
  std::vector<T> a_, b_, c_;
};

template <typename T>
bool check(const char *name, int n, int iters) {
  Stream<T> s(n), r(n);
  s.init();
  r.init();
  T d = s.run(iters), rd = r.run_serial(iters);
  bool ok = d == rd && s.a() == r.a();
  double sum = 0;
  for (T x : s.a()) sum += x;
  std::printf("stream<%s> n=%d iters=%d dot=%.6f sum(a)=%.6f\n", name, n, iters, double(d), sum);
  return ok;
}

int main() {
  bool ok = check<float>("float", 1024, 1);
  ok = check<double>("double", 4096, 3) && ok;
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
