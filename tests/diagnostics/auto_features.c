// features(auto): the compiler derives the region's features; 'auto' once, without
// modifiers, with room for at least one automatic feature, and a construct to derive them from.
// EXPECT: 21:57: error: 'auto' is listed twice in 'features'
// EXPECT: 21:48: note: first listed here
// EXPECT: 24:65: error: 'auto' takes no 'range' or 'min_sample_points' modifier: automatic features have no declared range; list 'auto' in a 'features' clause without modifiers
// EXPECT: 27:70: error: 'auto' takes no 'range' or 'min_sample_points' modifier: automatic features have no declared range; list 'auto' in a 'features' clause without modifiers
// EXPECT: 30:96: error: with 'auto', a region has at most 15 explicit features: automatic features need at least one of the 16 slots
// EXPECT: 41:48: warning: no automatic features: the statement has no OpenMP construct whose loops and launch they describe
// EXPECT: 46:61: error: 'auto' features are for 'adaptation' regions: a 'declare adaptation' model is shared with associated regions that evaluate its features where they are, so its features are written out
#define N16 a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a
#define N15 a, a, a, a, a, a, a, a, a, a, a, a, a, a, a

void work(double *x, int n);

void f(double *x, int n, int a) {
  // Fine: alone, after explicit features, 15 explicit ones, in begin/end.
#pragma omp adaptation model_name(ok1) features(auto) variants(cpu, gpu)
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] += 1;

#pragma omp adaptation model_name(m1) features(auto, n, auto) variants(cpu, gpu)
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] += 1;
#pragma omp adaptation model_name(m2) features(range[0:100]: n, auto) variants(cpu, gpu)
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] += 1;
#pragma omp adaptation model_name(m3) features(min_sample_points(4): auto) variants(a, b)
#pragma omp parallel for
  for (int i = 0; i < n; ++i) x[i] += 1;
#pragma omp adaptation model_name(m4) features(a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, auto) variants(cpu, gpu)
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] += 1;
#pragma omp adaptation model_name(ok2) features(N15, auto) variants(cpu, gpu)
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] += 1;
#pragma omp begin adaptation model_name(ok3) features(n, auto) variants(a, b)
#pragma omp parallel for
  for (int i = 0; i < n; ++i) x[i] += 1;
#pragma omp end adaptation

#pragma omp adaptation model_name(m5) features(auto) variants(a, b)
  work(x, n);
}

void g(double *x, int n) {
#pragma omp declare adaptation model(decision_tree) feature(auto) model_name(p)
#pragma omp metadirective when(user={condition(n > 10)}: parallel for) default()
  for (int i = 0; i < n; ++i) x[i] += 1;
}
// No -fopenmp-targets here: target constructs with variant kinds are host code only.
// EXPECT: 17:64: warning: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
// EXPECT: 33:69: warning: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
