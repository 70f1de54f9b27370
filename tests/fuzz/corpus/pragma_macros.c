/* Directives from _Pragma, directly and through macros, clause arguments from macros. */
#define N_ITEMS 4096
#define FEATURE(x) ((x) + 1)
#define ADAPT(name, feat) _Pragma("omp adaptation model_name(name) features(feat) variants(cpu, gpu)")
#define STR(x) #x
#define PRAGMA(x) _Pragma(STR(x))
#define PARALLEL_FOR PRAGMA(omp parallel for)

void k(int n, double *a) {
  _Pragma("omp begin adaptation model_name(m) features(n) variants(a, b)")
  for (int i = 0; i < n; ++i)
    a[i] = i;
  _Pragma("omp end adaptation")
  PRAGMA(omp adaptation model_name(p2) features(FEATURE(n), N_ITEMS) variants([1:8:1]))
  a[0] = 1;
  _Pragma("omp declare adaptation feature(n)") _Pragma("omp metadirective when(: parallel for) default(simd)")
  for (int i = 0; i < n; ++i)
    a[i] += 1;
  PARALLEL_FOR
  for (int i = 0; i < n; ++i)
    a[i] *= 2;
}
