// declare adaptation (Liao et al. §4): every misuse at the offending clause or directive.
// EXPECT: 26:13: error: 'declare adaptation' must be followed immediately by a 'metadirective'
// EXPECT: 30:13: error: 'declare adaptation' must be followed immediately by a 'metadirective'
// EXPECT: 35:13: error: 'declare adaptation' must be followed immediately by a 'metadirective'
// EXPECT: 38:47: error: 'model_name' and 'use_model' exclude each other: a region either has its own model or uses the model of a primary region
// EXPECT: 43:43: error: 'variant_mapping' is only valid with 'use_model'
// EXPECT: 48:32: error: 'use_model' requires a 'variant_mapping' clause: the primary's variant each variant of this region runs with
// EXPECT: 53:65: error: 'feature' cannot be given with 'use_model': this region follows the model of 'p7'
// EXPECT: 58:13: error: 'declare adaptation' requires a 'feature' clause
// EXPECT: 63:49: error: model type 'support_vector_machine' is not supported by ompadapt; use 'dtree'/'decision_tree', 'rfc'/'random_forest', 'logistic'/'logistic_regression' or 'auto'
// EXPECT: 68:32: error: unknown clause 'features' in 'declare adaptation'; did you mean 'feature'?
// EXPECT: 68:32: note: 'declare adaptation' takes: model, feature, model_name, use_model, variant_mapping
// EXPECT: 76:67: error: primary region 'primary' has no variant 3: it has 3 (IDs 0 to 2)
// EXPECT: 76:42: note: 'primary' is declared at {{FILE}}:73
// EXPECT: 79:13: error: this metadirective has 1 variant but 'variant_mapping' lists 2
// EXPECT: 78:51: note: 'variant_mapping' is here
// EXPECT: 80:51: error: an associated region cannot have more variants than its primary region 'primary' (3)
// EXPECT: 85:65: error: primary region 'later' has no variant 2: it has 2 (IDs 0 to 1)
// EXPECT: 85:42: note: 'later' is declared at {{FILE}}:87
// EXPECT: 92:40: error: the range's upper bound is smaller than its lower bound
// EXPECT: 98:47: error: 'when' is not a clause of the directive variant 'parallel for'
// EXPECT: 103:13: error: primary region 'primary' is declared again with 2 variants
// EXPECT: 103:13: note: 'primary' was declared at {{FILE}}:73 with 3 variants
// EXPECT: 106:13: error: 'declare adaptation' must appear inside a function body
void f1(int n, double *a) {
#pragma omp declare adaptation feature(n)
  a[0] = 1;
}
void f2(int n, double *a) {
#pragma omp declare adaptation feature(n)
#pragma omp parallel for
  for (int i = 0; i < n; ++i) a[i] = i;
}
void f3(int n) {
#pragma omp declare adaptation feature(n)
}
void f4(int n) {
#pragma omp declare adaptation model_name(p4) use_model(q4) variant_mapping(0)
#pragma omp metadirective when(: parallel for)
  for (int i = 0; i < n; ++i) ;
}
void f5(int n) {
#pragma omp declare adaptation feature(n) variant_mapping(1)
#pragma omp metadirective when(: parallel for)
  for (int i = 0; i < n; ++i) ;
}
void f6(int n) {
#pragma omp declare adaptation use_model(p6)
#pragma omp metadirective when(: parallel for)
  for (int i = 0; i < n; ++i) ;
}
void f7(int n) {
#pragma omp declare adaptation use_model(p7) variant_mapping(0) feature(n)
#pragma omp metadirective when(: parallel for)
  for (int i = 0; i < n; ++i) ;
}
void f8(int n) {
#pragma omp declare adaptation model(decision_tree)
#pragma omp metadirective when(: parallel for)
  for (int i = 0; i < n; ++i) ;
}
void f9(int n) {
#pragma omp declare adaptation feature(n) model(support_vector_machine)
#pragma omp metadirective when(: parallel for)
  for (int i = 0; i < n; ++i) ;
}
void f10(int n) {
#pragma omp declare adaptation features(n)
#pragma omp metadirective when(: parallel for)
  for (int i = 0; i < n; ++i) ;
}
void f11(int n, double *a) {
#pragma omp declare adaptation model_name(primary) feature(n)
#pragma omp metadirective when(:) when(: parallel for) default(target teams distribute parallel for map(tofrom: a[0:n]))
  for (int i = 0; i < n; ++i) a[i] = i;
#pragma omp declare adaptation use_model(primary) variant_mapping(3)
#pragma omp metadirective when(: target exit data map(from: a[0:n]))
#pragma omp declare adaptation use_model(primary) variant_mapping(2, 1)
#pragma omp metadirective when(: target exit data map(from: a[0:n]))
#pragma omp declare adaptation use_model(primary) variant_mapping(0, 1, 2, 0)
#pragma omp metadirective when(:) when(:) when(:) when(:)
  a[0] = 0;
}
void f12(int n, double *a) {
#pragma omp declare adaptation use_model(later) variant_mapping(2)
#pragma omp metadirective when(: target enter data map(to: a[0:n]))
#pragma omp declare adaptation model_name(later) feature(n)
#pragma omp metadirective when(: simd) default(parallel for)
  for (int i = 0; i < n; ++i) a[i] = i;
}
void f13(int n) {
#pragma omp declare adaptation feature(range[10:0]: n) feature(min_sample_points(0): n)
#pragma omp metadirective when(: parallel for)
  for (int i = 0; i < n; ++i) ;
}
void f14(int n) {
#pragma omp declare adaptation feature(n)
#pragma omp metadirective when(: parallel for when) default(simd)
  for (int i = 0; i < n; ++i) ;
}
void f15(int n) {
#pragma omp declare adaptation model_name(primary) feature(n)
#pragma omp metadirective when(: simd) default(parallel for)
  for (int i = 0; i < n; ++i) ;
}
#pragma omp declare adaptation feature(g)
int g;
