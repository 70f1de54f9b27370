// Clause errors of begin adaptation / adaptation, each at the offending clause.
// EXPECT: 10:13: error: 'begin adaptation' requires a 'model_name' clause
// EXPECT: 14:57: error: duplicate 'features' clause
// EXPECT: 14:45: note: previous clause is here
// EXPECT: 18:60: error: unknown clause 'explore' in 'begin adaptation'
// EXPECT: 22:45: error: 'variants' clause needs at least one variant
// EXPECT: 26:13: error: 'adaptation' requires a 'model_name' clause
// EXPECT: 26:13: error: 'adaptation' requires a 'variants' clause
void f1(int n) {
#pragma omp begin adaptation features(n) variants(a, b)
#pragma omp end adaptation
}
void f2(int n) {
#pragma omp begin adaptation model_name(m2) features(n) features(n) variants(a, b)
#pragma omp end adaptation
}
void f3(int n) {
#pragma omp begin adaptation model_name(m3) variants(a, b) explore(rr)
#pragma omp end adaptation
}
void f4(int n) {
#pragma omp begin adaptation model_name(m4) variants()
#pragma omp end adaptation
}
void f5(int n) {
#pragma omp adaptation features(n)
  n++;
}
void f6(int n) {
#pragma omp begin adaptation model_name(m6) features(n) varients(a, b)
#pragma omp end adaptation model_name(m6)
}
// EXPECT: 30:57: error: unknown clause 'varients' in 'begin adaptation'; did you mean 'variants'?
