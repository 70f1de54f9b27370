/* Automatic features computed by the pass at a region's marker, checked against the true trip
 * counts and map sizes. The marker is called by hand the way the lowering of
 * `features(auto)` calls it (the plugin's injected header defines it); each region is a plain
 * OpenMP construct after it. Prints, per region and size:
 *   AUTO model=<m> k=<K> spec=<descriptor> <name>=<value> ...
 *   TRUE model=<m> <name>=<value> ...
 *   SUM model=<m> value=<checksum of the results>
 * The test compares AUTO against TRUE and SUM against a build without the plugin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEC(m) "ompadapt1;model=" m ";loc=auto_features.c:1;features=;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto"

#ifdef __OMPADAPT_DEFAULT_RUNTIME
#define AUTO(m, loops) \
  const char *spec_ = SPEC(m); \
  double f_[16]; \
  int k_ = __ompadapt_auto_features(f_, 16, &spec_, m, loops)
#else
/* Stock build: no marker, no features. */
#define AUTO(m, loops) const char *spec_ = SPEC(m); double f_[16]; int k_ = 0
#endif

struct Grid { int n; int m; double *u; };
int G_N;
static double checksum(const double *a, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += a[i] * (double)((i % 7) + 1);
  return s;
}
static void show(const char *model, const char *spec, const double *f, int k) {
  printf("AUTO model=%s k=%d spec=%s", model, k, spec);
  /* names from the field the pass appends to the descriptor (features= is empty here) */
  const char *p = strstr(spec, ";auto_features=");
  p = p ? p + 15 : "";
  for (int i = 0; i < k; ++i) {
    char name[128]; int n = 0;
    while (*p && *p != ',' && *p != ';' && n < 127) name[n++] = *p++;
    name[n] = 0;
    if (*p == ',') ++p;
    printf(" %s=%.0f", name, f[i]);
  }
  printf("\n");
}

/* Bound from a function argument; combined construct. */
void from_arg(double *a, int n) {
  AUTO("from_arg", "i");
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < n; ++i) a[i] = a[i] * 2 + i;
  show("from_arg", spec_, f_, k_);
  printf("TRUE model=from_arg trip_count(i)=%d bytes_mapped=%ld\n", n > 0 ? n : 0, (long)(n > 0 ? n : 0) * 8);
}

/* Strided loop with bounds from locals. */
void strided(double *a, int n) {
  int lo = 2, hi = n - 1;
  AUTO("strided", "i");
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = lo; i < hi; i += 3) a[i] += 1;
  show("strided", spec_, f_, k_);
  int t = 0;
  for (int i = lo; i < hi; i += 3) ++t;
  printf("TRUE model=strided trip_count(i)=%d bytes_mapped=%ld\n", t, (long)(n > 0 ? n : 0) * 8);
}

/* Bound from a global. */
void from_global(double *a) {
  AUTO("from_global", "i");
#pragma omp target teams distribute parallel for map(tofrom: a[0:G_N])
  for (int i = 0; i < G_N; ++i) a[i] -= 0.5;
  show("from_global", spec_, f_, k_);
  printf("TRUE model=from_global trip_count(i)=%d bytes_mapped=%ld\n", G_N, (long)G_N * 8);
}

/* Bounds from struct fields: s.n (a local struct) and p->m (through a pointer). */
void from_struct(struct Grid *p) {
  struct Grid s = *p;
  double *u = s.u;
  AUTO("from_struct", "i,j");
#pragma omp target teams distribute parallel for collapse(2) map(tofrom: u[0:s.n * p->m]) map(to: p[0:1])
  for (int i = 0; i < s.n; ++i)
    for (int j = 0; j < p->m; ++j) u[i * p->m + j] += i - j;
  show("from_struct", spec_, f_, k_);
  /* u, p[0:1], and s (mapped tofrom implicitly: it is used in the region) */
  printf("TRUE model=from_struct trip_count(i,j)=%ld bytes_mapped=%ld\n", (long)s.n * p->m, (long)s.n * p->m * 8 + 2 * (long)sizeof s);
}

/* target + teams distribute + nested parallel for: two loops. */
void nested(double *a, int n, int m) {
  AUTO("nested", "i;j");
#pragma omp target map(tofrom: a[0:n * m])
#pragma omp teams distribute
  for (int i = 0; i < n; ++i) {
#pragma omp parallel for
    for (int j = 0; j < m; ++j) a[i * m + j] = a[i * m + j] * 0.5 + j;
  }
  show("nested", spec_, f_, k_);
  printf("TRUE model=nested trip_count(i)=%d trip_count(j)=%d bytes_mapped=%ld\n", n, m, (long)n * m * 8);
}

/* Host parallel for (fork_call); bound passed by reference to the outlined function. */
void host_for(double *a, long n) {
  AUTO("host_for", "i");
#pragma omp parallel for
  for (long i = 0; i < n; ++i) a[i] += 3;
  show("host_for", spec_, f_, k_);
  printf("TRUE model=host_for trip_count(i)=%ld\n", n);
}

/* Inside a time-step loop (HeCBench style): the bound changes after each launch. */
void time_steps(double *a, int n0) {
  int n = n0;
  for (int step = 0; step < 3; ++step) {
    AUTO("time_steps", "i");
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
    for (int i = 0; i < n; ++i) a[i] += 0.25;
    show("time_steps", spec_, f_, k_);
    printf("TRUE model=time_steps trip_count(i)=%d bytes_mapped=%ld\n", n > 0 ? n : 0, (long)(n > 0 ? n : 0) * 8);
    n = n / 2 + 1;
  }
}

/* Dynamic schedule (__kmpc_dispatch_init: bounds by value), unsigned bounds, a step of 2. */
void dynamic(double *a, unsigned n) {
  AUTO("dynamic", "i");
#pragma omp parallel for schedule(dynamic, 4)
  for (unsigned i = 1; i < n; i += 2) a[i] -= 1;
  show("dynamic", spec_, f_, k_);
  printf("TRUE model=dynamic trip_count(i)=%u\n", n > 1 ? (n - 1 + 1) / 2 : 0);
}

/* No slice: the bound is written between the marker and the launch. */
void written_after(double *a, int n) {
  AUTO("written_after", "i");
  G_N = n - 1;
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < G_N; ++i) a[i] += 2;
  show("written_after", spec_, f_, k_);
  printf("TRUE model=written_after\n");
}

/* No slice: the bound comes from an opaque call after the marker. */
__attribute__((noinline)) int opaque_bound(int n) { return n > 3 ? n - 3 : n; }
void opaque(double *a, int n) {
  AUTO("opaque", "i");
  int hi = opaque_bound(n);
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < hi; ++i) a[i] *= 1.5;
  show("opaque", spec_, f_, k_);
  printf("TRUE model=opaque bytes_mapped=%ld\n", (long)n * 8);
}

/* Before an adaptation region (the pass form: the runtime's begin, the cpu variant's copies
 * and the launch-site marker lie between the marker and the launch). */
void adaptive(double *a, int n) {
  int len = n / 2;
  AUTO("adaptive", "i");
#ifdef __OMPADAPT_DEFAULT_RUNTIME /* stock clang does not know the directive */
#pragma omp adaptation model_name(adaptive) features(n) variants(cpu, gpu)
#endif
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < len; ++i) a[i] = a[i] * 0.75 + 1;
  show("adaptive", spec_, f_, k_);
  printf("TRUE model=adaptive trip_count(i)=%d bytes_mapped=%ld\n", len, (long)n * 8);
}

int main(int argc, char **argv) {
  int sizes[] = {0, 1, 7, 1000};
  int first = argc > 1 ? atoi(argv[1]) : 0;
  for (int s = first; s < 4; ++s) {
    int n = sizes[s], m = s + 2;
    double *a = calloc((size_t)(n * m + 8), sizeof(double));
    for (int i = 0; i < n * m + 8; ++i) a[i] = i % 11;
    from_arg(a, n);
    strided(a, n);
    G_N = n;
    from_global(a);
    struct Grid g = {n, m, a};
    from_struct(&g);
    nested(a, n, m);
    host_for(a, n);
    dynamic(a, (unsigned)n);
    time_steps(a, n);
    written_after(a, n);
    opaque(a, n);
    adaptive(a, n);
    printf("SUM size=%d value=%.6f\n", n, checksum(a, n * m + 8));
    free(a);
  }
  return 0;
}
