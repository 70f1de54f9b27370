/* model_output into a struct member, an array element and a dereference, each converted as an
 * assignment would convert the variant's value; the thread counts are Georgakoudis et al.'s natural
 * [32:4096:32] (128 variants, which the runtime once refused as a malformed descriptor and
 * answered with 0). Prints `OUT threads frac elem deref` per execution; exits 3 on a value that
 * is not one of its region's variants (after conversion). The last region also has Liao et al.'s
 * omp_num_teams as a feature. */
#include "common.h"

struct config {
  int threads;
  float frac;
};

int main(void) {
  struct config cfg = {0, -1.0f};
  short sel[3] = {-1, -1, -1};
  double d = -1, *p = &d;
  int wrong = 0;
  for (int k = 0; k < 300; ++k) {
#pragma omp adaptation model_name(tiles) features(k % 2) variants([32:4096:32]) model_output(cfg.threads)
    wrong += cfg.threads < 32 || cfg.threads > 4096 || cfg.threads % 32 != 0;
#pragma omp adaptation model_name(split) features(k % 3) variants(0.25, 0.5, 1.75) model_output(cfg.frac)
    wrong += cfg.frac != 0.25f && cfg.frac != 0.5f && cfg.frac != 1.75f;
    /* to short: truncated toward zero, as `sel[1] = 1.75` would */
#pragma omp adaptation model_name(elem) features(k % 3) variants(0.25, 0.5, 1.75) model_output(sel[1])
    wrong += sel[1] != 0 && sel[1] != 1;
#pragma omp adaptation model_name(deref) features(k % 3, omp_num_teams) variants([-1:1:0.5]) model_output(*p)
    wrong += d != -1 && d != -0.5 && d != 0 && d != 0.5 && d != 1;
    printf("OUT %d %g %d %g\n", cfg.threads, (double)cfg.frac, sel[1], d);
  }
  printf("RESULT %s\n", wrong == 0 ? "ok" : "wrong");
  return wrong ? 3 : 0;
}
