// features(auto) in C++: the marker is mangled (static in extern "C"), regions in a class
// member and a template; a call that may throw makes the marker an invoke in a function with
// cleanups. The module verifies and the marker is gone.
//
// RUN: %clang -x c++ -O0 --offload-host-only -S -emit-llvm -fno-discard-value-names -fexceptions -Xclang -disable-llvm-passes -fplugin=%plugin -fplugin-arg-ompadapt-no-pass %s -o %t.ll
// RUN: %FileCheck %s --check-prefix=FRONTEND < %t.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -S < %t.ll > %t.opt.ll
// RUN: %FileCheck %s --check-prefix=PASS < %t.opt.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -S < %t.opt.ll | diff %t.opt.ll -

#define SPEC(m) "ompadapt1;model=" m ";loc=a.cpp:1;features=;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto"
void use(const char *, const double *, int);

struct Guard {
  ~Guard();
};

struct Field {
  double *u;
  long n;
  void scale(double s) {
    Guard g;
    const char *spec = SPEC("Field::scale");
    double f[16];
    int k = __ompadapt_auto_features(f, 16, &spec, "Field::scale", "i");
    double *v = u;
#pragma omp target teams distribute parallel for map(tofrom: v[0:n])
    for (long i = 0; i < n; ++i) v[i] *= s;
    use(spec, f, k);
  }
};

template <class T> void fill(T *a, int n, T x) {
  const char *spec = SPEC("fill");
  double f[16];
  int k = __ompadapt_auto_features(f, 16, &spec, "fill", "i");
#pragma omp parallel for
  for (int i = 0; i < n; ++i) a[i] = x;
  use(spec, f, k);
}

void run(Field &f, float *a, int n) {
  f.scale(2.0);
  fill(a, n, 1.0f);
}

// FRONTEND: invoke {{.*}}i32 @_ZL24__ompadapt_auto_features
// PASS-NOT: @_ZL24__ompadapt_auto_features
// PASS: !ompadapt.auto_features = !{[[A:![0-9]+]], [[B:![0-9]+]]}
// PASS-DAG: [[A]] = !{!"Field::scale", !"trip_count(i)", !"bytes_mapped", !"ops",
// PASS-DAG: [[B]] = !{!"fill", !"trip_count(i)", !"ops",
