/* Liao et al. Figures 6 and 7 (Smith-Waterman): declare adaptation before metadirectives, a
 * primary region and associated data regions before and after it. */
#include <stdlib.h>

#define PATH -1
static void similarityScore(long long i, long long j, int *H, int *P, long long *maxPos) {
  H[i + j] = (int)(i - j);
  P[i + j] = PATH;
  if (H[i + j] > H[*maxPos])
    *maxPos = i + j;
}

void compute(int *a, int *b, int *H, int *P, long long m, long long n, long long *maxPos) {
  long long nDiag = m + n - 1, asz = m * n;
  long long i, j;
#pragma omp declare adaptation use_model("scoring_loop") variant_mapping(2)
#pragma omp metadirective \
  when(: target enter data map(to: a[0:m], b[0:n]) map(to: H[0:asz], P[0:asz], maxPos[0:1]))

  for (i = 1; i <= nDiag; ++i) {
    long long nEle = i < m ? i : m, si = i, sj = 1;
#pragma omp declare adaptation model_name("scoring_loop") \
  model(decision_tree) feature(range[0:30000], min_sample_points(25): nDiag)
#pragma omp metadirective \
  when(:) \
  when(: parallel for private(j)) \
  default(target teams distribute parallel for map(tofrom: H[0:asz], P[0:asz], maxPos[0:1]))
    for (j = 0; j < nEle; ++j)
      similarityScore(si - j, sj + j, H, P, maxPos);
  }

#pragma omp declare adaptation use_model("scoring_loop") variant_mapping(2)
#pragma omp metadirective \
  when(: target exit data map(from: H[0:asz], P[0:asz], maxPos[0:1]))
}

void fine_grained(int *H, int *P, long long nDiag, long long nEle, long long *maxPos) {
  for (long long i = 1; i <= nDiag; ++i) {
#pragma omp declare adaptation model(random_forest) feature(nDiag) feature(min_sample_points(4): omp_num_threads)
#pragma omp metadirective when(:) when(: parallel for) default(simd)
    for (long long j = 0; j < nEle; ++j)
      similarityScore(i - j, j, H, P, maxPos);
  }
}
