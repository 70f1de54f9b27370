/* HeCBench style: the time-step loop and its `target data` are in main; the adaptive kernel is
 * in a function of its own, so the frontend cannot see that u and v live on the device. With
 * -DVISIBLE the data environment is in the kernel's function. With -DENTER_DATA the arrays are
 * mapped by `target enter data` in another function. With -DDEVICE_ALLOC they are device
 * memory from omp_target_alloc, which the host version cannot read (the cpu variant is
 * refused). Prints a checksum and, per step, where the kernel ran (H: the host version, D: the
 * device). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* the stock build (-DSTOCK) has no adaptation directive */
#ifdef STOCK
#define ADAPTIVE_STENCIL
#else
#define ADAPTIVE_STENCIL _Pragma("omp adaptation model_name(stencil) features(n) variants(cpu, gpu)")
#endif

#define N 4096
#define STEPS 12

static char where[STEPS + 1];

static void step(double *u, double *v, int n, int t) {
  int on_host = 0;
  ADAPTIVE_STENCIL
#pragma omp target teams distribute parallel for map(tofrom: on_host)
  for (int i = 0; i < n; ++i) {
    if (i == 0) on_host = omp_is_initial_device();
    double l = i > 0 ? u[i - 1] : u[i], r = i + 1 < n ? u[i + 1] : u[i];
    v[i] = 0.25 * l + 0.5 * u[i] + 0.25 * r + 0.001 * t;
  }
  where[t] = on_host ? 'H' : 'D';
}

static void swap_copy(double *u, double *v, int n) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) u[i] = v[i];
}

#ifdef VISIBLE
static void run(double *u, double *v, int n) {
#pragma omp target data map(tofrom: u[0:n]) map(alloc: v[0:n])
  for (int t = 0; t < STEPS; ++t) {
    int on_host = 0;
    ADAPTIVE_STENCIL
#pragma omp target teams distribute parallel for map(tofrom: on_host)
    for (int i = 0; i < n; ++i) {
      if (i == 0) on_host = omp_is_initial_device();
      double l = i > 0 ? u[i - 1] : u[i], r = i + 1 < n ? u[i + 1] : u[i];
      v[i] = 0.25 * l + 0.5 * u[i] + 0.25 * r + 0.001 * t;
    }
    where[t] = on_host ? 'H' : 'D';
    swap_copy(u, v, n);
  }
}
#elif defined(ENTER_DATA)
static void map_in(double *u, double *v, int n) {
#pragma omp target enter data map(to: u[0:n]) map(alloc: v[0:n])
}
static void map_out(double *u, double *v, int n) {
#pragma omp target exit data map(from: u[0:n]) map(delete: v[0:n])
}
static void run(double *u, double *v, int n) {
  map_in(u, v, n);
  for (int t = 0; t < STEPS; ++t) {
    step(u, v, n, t);
    swap_copy(u, v, n);
  }
  map_out(u, v, n);
}
#elif defined(DEVICE_ALLOC)
static void run(double *u, double *v, int n) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double *du = (double *)omp_target_alloc(n * sizeof *du, dev), *dv = (double *)omp_target_alloc(n * sizeof *dv, dev);
  omp_target_memcpy(du, u, n * sizeof *u, 0, 0, dev, host);
  for (int t = 0; t < STEPS; ++t) {
    step(du, dv, n, t);
    swap_copy(du, dv, n);
  }
  omp_target_memcpy(u, du, n * sizeof *u, 0, 0, host, dev);
  omp_target_free(du, dev);
  omp_target_free(dv, dev);
}
#else
static void run(double *u, double *v, int n) {
#pragma omp target data map(tofrom: u[0:n]) map(alloc: v[0:n])
  for (int t = 0; t < STEPS; ++t) {
    step(u, v, n, t);
    swap_copy(u, v, n);
  }
}
#endif

int main(void) {
  double *u = (double *)malloc(N * sizeof *u), *v = (double *)malloc(N * sizeof *v);
  for (int i = 0; i < N; ++i) u[i] = (i * 37 % 101) / 101.0, v[i] = 0;
  run(u, v, N);
  /* serial reference */
  double *a = (double *)malloc(N * sizeof *a), *b = (double *)malloc(N * sizeof *b);
  for (int i = 0; i < N; ++i) a[i] = (i * 37 % 101) / 101.0;
  for (int t = 0; t < STEPS; ++t) {
    for (int i = 0; i < N; ++i) {
      double l = i > 0 ? a[i - 1] : a[i], r = i + 1 < N ? a[i + 1] : a[i];
      b[i] = 0.25 * l + 0.5 * a[i] + 0.25 * r + 0.001 * t;
    }
    for (int i = 0; i < N; ++i) a[i] = b[i];
  }
  double sum = 0, err = 0;
  for (int i = 0; i < N; ++i) sum += u[i], err += u[i] > a[i] ? u[i] - a[i] : a[i] - u[i];
  where[STEPS] = 0;
  printf("checksum %.12f error %.3g where %s\n", sum, err, where);
  free(u), free(v), free(a), free(b);
  return err < 1e-9 ? 0 : 1;
}
