// Particles advanced by a class that owns its device copies (HeCBench style): the constructor
// maps the arrays with `target enter data`, the destructor unmaps them with `target exit data`,
// the kernels are member functions that find the arrays present (their own functions do not
// see the data environment), and `target update from` brings the state back for checks.
#include <cstdio>
#include <cstdlib>

class Particles {
 public:
  explicit Particles(int n) : n_(n), x_(new double[n]), v_(new double[n]) {
    for (int i = 0; i < n; i++) {
      x_[i] = (i % 100) * 0.01;
      v_[i] = ((i * 7) % 13 - 6) * 0.001;
    }
    double *x = x_, *v = v_;
#pragma omp target enter data map(to: x[0:n], v[0:n])
  }
  ~Particles() {
    double *x = x_, *v = v_;
    int n = n_;
#pragma omp target exit data map(delete: x[0:n], v[0:n])
    delete[] x_;
    delete[] v_;
  }

  // Reflecting walls at 0 and 1.
  void push(double dt) {
    double *x = x_, *v = v_;
    int n = n_;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) {
      x[i] += dt * v[i];
      if (x[i] < 0.0) x[i] = -x[i], v[i] = -v[i];
      if (x[i] > 1.0) x[i] = 2.0 - x[i], v[i] = -v[i];
    }
  }

  void damp(double f) {
    double *v = v_;
    int n = n_;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) v[i] *= f;
  }

  void fetch() {
    double *x = x_, *v = v_;
    int n = n_;
#pragma omp target update from(x[0:n], v[0:n])
  }

  const double *x() const { return x_; }
  const double *v() const { return v_; }

 private:
  int n_;
  double *x_, *v_;
};

int main() {
  const int n = 5000, steps = 50;
  Particles p(n);
  for (int s = 0; s < steps; s++) {
    p.push(0.5);
    if (s % 10 == 9) p.damp(0.75);
  }
  p.fetch();

  double *x = new double[n], *v = new double[n];
  for (int i = 0; i < n; i++) x[i] = (i % 100) * 0.01, v[i] = ((i * 7) % 13 - 6) * 0.001;
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < n; i++) {
      x[i] += 0.5 * v[i];
      if (x[i] < 0.0) x[i] = -x[i], v[i] = -v[i];
      if (x[i] > 1.0) x[i] = 2.0 - x[i], v[i] = -v[i];
    }
    if (s % 10 == 9)
      for (int i = 0; i < n; i++) v[i] *= 0.75;
  }
  bool ok = true;
  double sx = 0, sv = 0;
  for (int i = 0; i < n; i++) {
    ok = ok && p.x()[i] == x[i] && p.v()[i] == v[i];
    sx += p.x()[i], sv += p.v()[i];
  }
  std::printf("particles n=%d steps=%d sum(x)=%.12e sum(v)=%.12e\n", n, steps, sx, sv);
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  delete[] x;
  delete[] v;
  return ok ? 0 : 1;
}
