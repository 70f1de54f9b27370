// An associated region evaluates its primary's features at its own entry (Liao et al.): a name
// EXPECT: 6:42: error: use of undeclared identifier 'nDiag'
// not in scope there is reported at the associated region's use_model, not at the primary.
void g(double *H, long asz);
void f(double *H, long asz) {
#pragma omp declare adaptation use_model(p) variant_mapping(1)
#pragma omp metadirective when(: target enter data map(to: H[0:asz]))
  g(H, asz);
}
void g(double *H, long asz) {
  long nDiag = asz / 2;
#pragma omp declare adaptation model_name(p) feature(nDiag)
#pragma omp metadirective when(:) default(parallel for)
  for (long i = 0; i < nDiag; ++i) H[i] = i;
}
