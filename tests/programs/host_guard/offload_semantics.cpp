// The shapes of real offload code (HeCBench's lulesh-omp and others) whose `cpu` variant once
// printed wrong results, each printing what the host copy holds afterwards: the host version
// must end in exactly the state the offload leaves (device data changes on the device only;
// the host copy only through `from` maps of storage the construct maps itself, or `target
// update from`). Unmodified OpenMP: built stock and in zero-source-change mode, every region
// pinned to each variant, one at a time and all together, the output must be the stock build's.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#pragma omp declare target
// writes through a pointer argument (lulesh's CalcElemShapeFunctionDerivatives and friends)
static void bump(double *out, const double *in, int i) { out[i] = in[i] * 2.0 + 1.0; }
// a global with a device copy of its own, written by a kernel through a helper
double table[64];
static void twice(int i) { table[i] = table[i] * 2 + 1; }
#pragma omp end declare target

static double sum(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * (i % 7 + 1);
  return s;
}

// kernels with no map clause of their own, in a caller's data environment (alloc and to)
static void step(double *a, double *b, double *c, int n) {
#pragma omp target teams distribute parallel for thread_limit(64)
  for (int i = 0; i < n; i++) bump(b, a, i);
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++) c[i] = b[i] + a[i];
}

// a class that maps its data in the constructor (target enter data) and launches in methods
class Field {
public:
  explicit Field(int n) : n_(n), u_(new double[n]), v_(new double[n]) {
    for (int i = 0; i < n; i++) u_[i] = (i * 37 % 101) / 101.0, v_[i] = 0;
    double *u = u_, *v = v_;
#pragma omp target enter data map(to: u[0:n]) map(alloc: v[0:n])
  }
  ~Field() {
    double *u = u_, *v = v_;
    int n = n_;
#pragma omp target exit data map(delete: u[0:n], v[0:n])
    delete[] u_;
    delete[] v_;
  }
  void smooth(int t) {
    double *u = u_, *v = v_;
    int n = n_;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) {
      double l = i > 0 ? u[i - 1] : u[i], r = i + 1 < n ? u[i + 1] : u[i];
      v[i] = 0.25 * l + 0.5 * u[i] + 0.25 * r + 0.001 * t;
    }
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) u[i] = v[i];
  }
  double host_sum() const { return sum(u_, n_); }
  double device_sum() {
    double *u = u_;
    int n = n_;
#pragma omp target update from(u[0:n])
    return sum(u_, n_);
  }

private:
  int n_;
  double *u_, *v_;
};

// a kernel that calls a lambda capturing pointers to data an enclosing `target data` maps
// (HeCBench's unfold-omp): the captures reach the kernel as PTR_AND_OBJ literals
template <typename F> static void launch(int n, F f) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++) f(i);
}
static void accumulate(double *out, const double *in, int n) {
  launch(n, [=](int i) { out[i] += in[i] * 0.5; });
}

// a struct whose pointer member is attached on the device
struct Mesh {
  int n;
  double *x;
};

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  double *a = (double *)malloc(n * sizeof *a), *b = (double *)calloc(n, sizeof *b), *c = (double *)calloc(n, sizeof *c);
  double *z = (double *)calloc(n, sizeof *z), *snap = (double *)calloc(n, sizeof *snap);
  for (int i = 0; i < n; i++) a[i] = i * 0.5;
#pragma omp target data map(to: a [0:n]) map(alloc: b[0:n], \
                                                c[0:n]) map(to: z[0:n])
  {
    for (int t = 0; t < 3; t++) {
      step(a, b, c, n);
      // z is re-sent every step and must stay zero on the host
#pragma omp target teams distribute parallel for
      for (int i = 0; i < n; i++) z[i] += c[i];
#pragma omp target update to(z[0:n])
    }
    // b was written only on the device: the host copy is still zero
    memcpy(snap, b, n * sizeof *b);
#pragma omp target update from(c[0:n])
    printf("b host %.1f snap %.1f c %.1f z %.1f\n", sum(b, n), sum(snap, n), sum(c, n), sum(z, n));
    // a sub-section and an offset section of enclosing mappings
#pragma omp target teams distribute parallel for map(tofrom: c[0:n / 2])
    for (int i = 0; i < n / 2; i++) c[i] += 1;
#pragma omp target teams distribute parallel for map(c[1:n - 2])
    for (int i = 1; i < n - 1; i++) c[i] *= 3;
    printf("c host before update %.1f\n", sum(c, n));
#pragma omp target update from(c[0:n])
    printf("c %.1f\n", sum(c, n));
    // lambda captures: c changes on the device only
    for (int t = 0; t < 2; t++) accumulate(c, a, n);
    printf("c host after lambda %.1f\n", sum(c, n));
#pragma omp target update from(c[0:n])
    printf("c lambda %.1f\n", sum(c, n));
    // always from: the host gets the device copy at the end
#pragma omp target teams distribute parallel for map(always, from: b[0:n])
    for (int i = 0; i < n; i++) b[i] = c[i] - 1;
    printf("b always %.1f\n", sum(b, n));
  }
  // the construct's own maps: `to` and `alloc` storage is restored on the host, `from` kept
  double *d = (double *)calloc(n, sizeof *d), *e = (double *)calloc(n, sizeof *e);
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: d[0:n]) map(alloc: e[0:n])
  for (int i = 0; i < n; i++) {
    e[i] = a[i] * 3;
    d[i] = a[i] + 1 + e[i];
    a[i] = -1;
  }
  printf("a %.1f d %.1f e %.1f\n", sum(a, n), sum(d, n), sum(e, n));

  Field f(n);
  for (int t = 0; t < 4; t++) f.smooth(t);
  printf("field host %.6f device %.6f\n", f.host_sum(), f.device_sum());

  Mesh m = {n, (double *)calloc(n, sizeof(double))};
#pragma omp target enter data map(to: m) map(to: m.x[0:n])
#pragma omp target teams distribute parallel for
  for (int i = 0; i < m.n; i++) m.x[i] = i * 0.25;
  printf("mesh host %.1f\n", sum(m.x, n));
#pragma omp target update from(m.x[0:n])
  printf("mesh %.1f\n", sum(m.x, n));
#pragma omp target exit data map(delete: m.x[0:n], m)
  for (int i = 0; i < 64; i++) table[i] = i;
#pragma omp target update to(table)
  for (int i = 0; i < 64; i++) table[i] = 5;
#pragma omp target teams distribute parallel for
  for (int i = 0; i < 64; i++) twice(i);
  printf("table host %.1f\n", sum(table, 64));
#pragma omp target update from(table)
  printf("table %.1f\n", sum(table, 64));
  free(a), free(b), free(c), free(z), free(snap), free(d), free(e), free(m.x);
  return 0;
}
