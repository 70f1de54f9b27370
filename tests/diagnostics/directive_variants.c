// Directive variants are checked before Clang sees them: clauses Clang 19 never gets past
// EXPECT: 12:69: error: 'when' is not a clause of the directive variant 'parallel'
// EXPECT: 14:65: error: 'notinbranch' is not a clause of the directive variant 'simd'
// EXPECT: 16:60: error: 'frobnicate' is not an OpenMP directive
// EXPECT: 18:60: error: 'metadirective' cannot be a directive variant of a metadirective
// EXPECT: 20:69: error: expected an OpenMP clause in this directive variant
// EXPECT: 22:94: error: 'metadirective' takes one 'default'/'otherwise' clause
// EXPECT: 22:78: note: previous clause is here
// (it reports `#pragma omp parallel when` forever), non-directives, nested metadirectives.
void f1(int n) {
#pragma omp begin adaptation model_name(m) features(n) variants(x, y)
#pragma omp metadirective when(user={adaptation(m == x)} : parallel when)
  n++;
#pragma omp metadirective when(user={adaptation(m == x)} : simd notinbranch) default(parallel for)
  for (int i = 0; i < n; ++i) ;
#pragma omp metadirective when(user={adaptation(m == y)} : frobnicate)
  n++;
#pragma omp metadirective when(user={adaptation(m == y)} : metadirective when(user={condition(1)}: simd))
  n++;
#pragma omp metadirective when(user={adaptation(m == y)} : parallel 3)
  n++;
#pragma omp metadirective when(user={adaptation(((((m == y)))))} : parallel) otherwise(simd) default(simd)
  n++;
#pragma omp end adaptation
}
