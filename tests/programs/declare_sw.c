/* Liao et al., Figure 7 (typos fixed): Smith-Waterman over anti-diagonals. A primary region
 * ("scoring_loop", three variants: serial, CPU threads, offload) scores one diagonal; two
 * associated regions put the matrices on the device before the diagonal loop and bring them
 * back after it, only when the primary's decision is the offload (variant_mapping(2)).
 * If they disagreed with the primary, the host's matrix would be overwritten by a stale device
 * copy (host offload keeps separate device memory): the result is checked against a serial
 * computation. Usage: declare_sw M N (sequence lengths). */
#include "common.h"
#include <omp.h>
#include <string.h>

#define MATCH 3
#define MISMATCH (-3)
#define GAP 2

#pragma omp declare target
static void similarityScore(long long i, long long j, long long n, const char *a, const char *b, int *H) {
  /* H is (m + 1) x (n + 1); cell (i, j) from its three neighbours */
  int diag = H[(i - 1) * (n + 1) + j - 1] + (a[i - 1] == b[j - 1] ? MATCH : MISMATCH);
  int up = H[(i - 1) * (n + 1) + j] - GAP, left = H[i * (n + 1) + j - 1] - GAP;
  int best = diag > up ? diag : up;
  best = best > left ? best : left;
  H[i * (n + 1) + j] = best > 0 ? best : 0;
}
#pragma omp end declare target

static void reference(const char *a, const char *b, long long m, long long n, int *R) {
  for (long long i = 1; i <= m; ++i)
    for (long long j = 1; j <= n; ++j)
      similarityScore(i, j, n, a, b, R);
}

static void compute(const char *a, const char *b, long long m, long long n, int *H) {
  long long nDiag = m + n - 1, asz = (m + 1) * (n + 1);
  long long i, j;
  /* Copy the data to the device if the offload variant will be used. */
#pragma omp declare adaptation use_model("scoring_loop") variant_mapping(2)
#pragma omp metadirective \
  when(: target enter data map(to: a[0:m], b[0:n], H[0:asz]))

  for (i = 1; i <= nDiag; ++i) {
    long long si = i < m ? i : m, sj = i < m ? 1 : i - m + 1;
    long long nEle = (si < n - sj + 1 ? si : n - sj + 1);
#pragma omp declare adaptation model_name("scoring_loop") \
  model(decision_tree) feature(range[32:100], min_sample_points(1): nDiag)
#pragma omp metadirective \
  when(:) \
  when(: parallel for private(j)) \
  default(target teams distribute parallel for map(to: a[0:m], b[0:n]) map(tofrom: H[0:asz]))
    for (j = 0; j < nEle; ++j)
      similarityScore(si - j, sj + j, n, a, b, H);
  }

  /* Copy the data back if the offload variant was used. */
#pragma omp declare adaptation use_model("scoring_loop") variant_mapping(2)
#pragma omp metadirective \
  when(: target exit data map(from: H[0:asz]) map(release: a[0:m], b[0:n]))
}

int main(int argc, char **argv) {
  long long m = argc > 1 ? atoll(argv[1]) : 40, n = argc > 2 ? atoll(argv[2]) : 40;
  char *a = malloc(m), *b = malloc(n);
  int *H = calloc((m + 1) * (n + 1), sizeof *H), *R = calloc((m + 1) * (n + 1), sizeof *R);
  for (long long i = 0; i < m; ++i)
    a[i] = "ACGT"[(i * 7 + 3) % 4];
  for (long long j = 0; j < n; ++j)
    b[j] = "ACGT"[(j * 5 + 1) % 4];
  compute(a, b, m, n, H);
  reference(a, b, m, n, R);
  for (long long k = 0; k < (m + 1) * (n + 1); ++k)
    if (H[k] != R[k]) {
      fprintf(stderr, "WRONG: H[%lld] = %d, expected %d\n", k, H[k], R[k]);
      return 2;
    }
  printf("RESULT ok m=%lld n=%lld\n", m, n);
  free(a), free(b), free(H), free(R);
  return 0;
}
