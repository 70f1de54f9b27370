// The adaptation selector of metadirective: known model, known variant, valid operator,
// no static selector sets beside it.
// EXPECT: 11:57: error: 'tpu' is not a variant of model 'by_len'
// EXPECT: 11:57: note: its variants are: cpu, gpu
// EXPECT: 17:49: error: no adaptation region named 'nope' is open here
// EXPECT: 23:55: error: expected one of ==, !=, <, <=, >, >= after the model name
// EXPECT: 29:32: error: the 'device' selector set cannot be combined with adaptation selectors: a metadirective using 'adaptation' is decided at run time
// EXPECT: 36:92: warning: 'teams distribute parallel for' follows the clauses of this directive variant; read as part of its name
void f1(double *a, int n) {
#pragma omp begin adaptation model_name(by_len) features(n) variants(cpu, gpu)
#pragma omp metadirective when(user={adaptation(by_len==tpu)} : parallel for)
  for (int i = 0; i < n; ++i) a[i] = i;
#pragma omp end adaptation model_name(by_len)
}
void f2(double *a, int n) {
#pragma omp begin adaptation model_name(by_len) features(n) variants(cpu, gpu)
#pragma omp metadirective when(user={adaptation(nope==cpu)} : parallel for)
  for (int i = 0; i < n; ++i) a[i] = i;
#pragma omp end adaptation model_name(by_len)
}
void f3(double *a, int n) {
#pragma omp begin adaptation model_name(by_len) features(n) variants(cpu, gpu)
#pragma omp metadirective when(user={adaptation(by_len=cpu)} : parallel for)
  for (int i = 0; i < n; ++i) a[i] = i;
#pragma omp end adaptation model_name(by_len)
}
void f4(double *a, int n) {
#pragma omp begin adaptation model_name(by_len) features(n) variants(cpu, gpu)
#pragma omp metadirective when(device={kind(gpu)} : parallel for) \
                          when(user={adaptation(by_len==gpu)} : simd)
  for (int i = 0; i < n; ++i) a[i] = i;
#pragma omp end adaptation model_name(by_len)
}
void f5(double *a, int n) {
#pragma omp begin adaptation model_name(by_len) features(n) variants(cpu, gpu)
#pragma omp metadirective when(user={adaptation(by_len==gpu)} : target map(tofrom: a[0:n]) teams distribute parallel for)
  for (int i = 0; i < n; ++i) a[i] = i;
#pragma omp end adaptation model_name(by_len)
}
