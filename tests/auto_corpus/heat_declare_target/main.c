/* 1D heat equation with `declare target` functions and a `declare target` coefficient table
 * updated with `target update to` between phases. Time steps inside `target data`. */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 80
#define NCOEF 4

#pragma omp declare target
double coef[NCOEF];

static inline double flux(double left, double right, double k) { return k * (right - left); }

double source_term(int i, int n, int step) {
  int mid = n / 2;
  return (i == mid || i == mid + 1) ? 0.001 * (step % 7) : 0.0;
}
#pragma omp end declare target

static void step_serial(const double *t, double *tn, int n, int s) {
  for (int i = 1; i < n - 1; i++) {
    double k = coef[i % NCOEF];
    tn[i] = t[i] + flux(t[i], t[i + 1], k) - flux(t[i - 1], t[i], k) + source_term(i, n, s);
  }
}

static void solve(double *t, double *tn, int n, int steps) {
#pragma omp target data map(tofrom: t[0:n]) map(to: tn[0:n])
  for (int s = 0; s < steps; s++) {
    if (s == steps / 2) {
      for (int c = 0; c < NCOEF; c++) coef[c] *= 0.5;
#pragma omp target update to(coef)
    }
#pragma omp target teams distribute parallel for
    for (int i = 1; i < n - 1; i++) {
      double k = coef[i % NCOEF];
      tn[i] = t[i] + flux(t[i], t[i + 1], k) - flux(t[i - 1], t[i], k) + source_term(i, n, s);
    }
#pragma omp target teams distribute parallel for
    for (int i = 1; i < n - 1; i++) t[i] = tn[i];
  }
}

static void set_coef(void) {
  for (int c = 0; c < NCOEF; c++) coef[c] = 0.1 + 0.05 * c;
#pragma omp target update to(coef)
}

int main(void) {
  double *t = malloc(N * sizeof *t), *tn = malloc(N * sizeof *tn);
  double *r = malloc(N * sizeof *r), *rn = malloc(N * sizeof *rn);
  for (int i = 0; i < N; i++) t[i] = tn[i] = r[i] = rn[i] = (i % 64) / 64.0;
  set_coef();
  solve(t, tn, N, STEPS);
  set_coef();
  for (int s = 0; s < STEPS; s++) {
    if (s == STEPS / 2)
      for (int c = 0; c < NCOEF; c++) coef[c] *= 0.5;
    step_serial(r, rn, N, s);
    for (int i = 1; i < N - 1; i++) r[i] = rn[i];
  }
  double sum = 0, rsum = 0;
  int ok = 1;
  for (int i = 0; i < N; i++) {
    sum += t[i], rsum += r[i];
    ok &= t[i] == r[i];
  }
  printf("heat_declare_target n=%d steps=%d checksum=%.12e mid=%.12e\n", N, STEPS, sum, t[N / 2]);
  printf("%s\n", ok && sum == rsum ? "PASS" : "FAIL");
  return ok && sum == rsum ? 0 : 1;
}
