/* Dense matrix multiply and transpose with collapse(2) (HeCBench matrix-rotate/mm style),
 * several sizes so that one kernel runs with different trip counts. Entries are small
 * multiples of 1/4: every product and sum is exact, results must equal the serial loops. */
#include <stdio.h>
#include <stdlib.h>

static void matmul(const float *a, const float *b, float *c, int n) {
#pragma omp target teams distribute parallel for collapse(2) map(to: a[0:n * n], b[0:n * n]) map(from: c[0:n * n])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      float s = 0.0f;
      for (int k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];
      c[i * n + j] = s;
    }
}

static void transpose(const float *c, float *t, int n) {
#pragma omp target teams distribute parallel for collapse(2) map(to: c[0:n * n]) map(from: t[0:n * n])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) t[j * n + i] = c[i * n + j];
}

int main(void) {
  int ok = 1;
  for (int n = 32; n <= 96; n += 32) {
    float *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
    float *c = malloc(n * n * sizeof *c), *t = malloc(n * n * sizeof *t);
    for (int i = 0; i < n * n; i++) {
      a[i] = (i % 9) * 0.25f;
      b[i] = ((i * 5) % 7) * 0.5f;
    }
    matmul(a, b, c, n);
    transpose(c, t, n);
    double trace = 0.0, sum = 0.0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        float s = 0.0f;
        for (int k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];
        ok &= c[i * n + j] == s && t[j * n + i] == s;
        sum += t[j * n + i];
      }
    for (int i = 0; i < n; i++) trace += c[i * n + i];
    printf("matmul n=%d trace=%.4f sum=%.4f\n", n, trace, sum);
    free(a), free(b), free(c), free(t);
  }
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
