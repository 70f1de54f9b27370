// Variant names are the user's categorical identifiers except before a construct they fit
// (as in Georgakoudis et al.): `serial` and `cpu` on a structured block, or `serial` before a
// target construct, are plain names. One statement takes one adaptation directive; a second one on
// it (also two `_Pragma`s on one line) is an error at the second.
// EXPECT: 22:13: error: a second adaptation directive on the statement of another: one statement takes one adaptation directive (put this one and its statement in a block of their own, '{ ... }', to nest regions)
// EXPECT: 25:63: error: a second adaptation directive on the statement of another: one statement takes one adaptation directive (put this one and its statement in a block of their own, '{ ... }', to nest regions)
int pick(double *a, int n) {
  int m = 0;
#pragma omp adaptation model_name(c1) features(n) variants(fast, serial) model_output(m)
  {
    for (int i = 0; i < n; ++i) a[i] *= m + 1;
  }
#pragma omp adaptation model_name(c2) features(n) variants(cpu, serial, precise) model_output(m)
  a[0] += m;
#pragma omp adaptation model_name(c3) features(n) variants(fast, serial) model_output(m)
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < n; ++i) a[i] += 1;
  return m;
}
void twice(double *a, int n, int m) {
#pragma omp adaptation model_name(t1) variants(x, y) model_output(m)
#pragma omp adaptation model_name(t2) variants(cpu, gpu)
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < n; ++i) a[i] += m;
  _Pragma("omp adaptation model_name(t3) variants(cpu, gpu)") _Pragma("omp adaptation model_name(t4) variants(cpu, gpu)")
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < n; ++i) a[i] += 1;
#pragma omp adaptation model_name(t5) variants(x, y) model_output(m)
  {
#pragma omp adaptation model_name(t6) variants(cpu, gpu)
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
    for (int i = 0; i < n; ++i) a[i] += m;
  }
}
// No -fopenmp-targets here: target constructs with variant kinds are host code only.
// EXPECT: 25:3: warning: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
// EXPECT: 30:48: warning: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
