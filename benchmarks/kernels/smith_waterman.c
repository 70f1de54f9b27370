/* Smith-Waterman local alignment score of two sequences of length N (Liao et al.'s use case):
 * the score matrix is filled by anti-diagonals (a wavefront), one launch per diagonal, keeping
 * the last two diagonals. Feature: nDiag = 2N - 1, the number of wavefront lines (Liao et al.).
 * The score is checked against the serial row-by-row recurrence. REPS alignments of the same
 * sequences one after the other (default 1), so that a short N still makes a run long enough
 * to measure. Usage: smith_waterman N [REPS]. */
#include "bench.h"

static double chosen;

#define MATCH 3
#define MISMATCH (-3)
#define GAP 2

static int serial_score(const char *a, const char *b, long n) {
  int *prev = calloc(n + 1, sizeof *prev), *cur = calloc(n + 1, sizeof *cur), best = 0;
  for (long i = 1; i <= n; ++i) {
    for (long j = 1; j <= n; ++j) {
      int h = prev[j - 1] + (a[i - 1] == b[j - 1] ? MATCH : MISMATCH);
      if (prev[j] - GAP > h) h = prev[j] - GAP;
      if (cur[j - 1] - GAP > h) h = cur[j - 1] - GAP;
      cur[j] = h > 0 ? h : 0;
      if (cur[j] > best) best = cur[j];
    }
    int *t = prev; prev = cur; cur = t;
  }
  free(prev), free(cur);
  return best;
}

int main(int argc, char **argv) {
  long n = bench_arg(argc, argv, 1, 2000), reps = bench_arg(argc, argv, 2, 1);
  long ndiag = 2 * n - 1;
  char *a = malloc(n), *b = malloc(n);
  const char dna[4] = {'A', 'C', 'G', 'T'};
  for (long i = 0; i < n; ++i) {
    a[i] = dna[bench_hash(i) & 3];
    /* b: a mutated copy of a, so that long local alignments exist */
    b[i] = bench_unit(i + n) < 0.8 ? a[i] : dna[bench_hash(i + 2 * n) & 3];
  }
  /* H on diagonal d (cells i + j = d, 1 <= i, j <= n), indexed by the row i */
  int *d2 = calloc(n + 1, sizeof *d2), *d1 = calloc(n + 1, sizeof *d1), *d0 = calloc(n + 1, sizeof *d0);
  int best = 0;
  bench_region reg = {"sw", {0}};

  bench_clock clk;
  bench_start(&clk);
#pragma omp target data map(to: a[0:n], b[0:n]) STATE_DATA(tofrom: d2[0:n + 1], d1[0:n + 1], d0[0:n + 1])
  /* a repetition needs no reset: every cell reads only cells of its own alignment's earlier
   * diagonals (the guards give 0 outside the matrix) */
  for (long rep = 0; rep < reps; ++rep)
  for (long d = 2; d <= 2 * n; ++d) {
    long lo = d - n > 1 ? d - n : 1, hi = d - 1 < n ? d - 1 : n;
    int dbest = 0;
#pragma omp adaptation model_name(sw) features(ndiag) variants(BENCH_KINDS) model_output(chosen)
#pragma omp target teams distribute parallel for reduction(max: dbest) STATE_LAUNCH(to: d2[0:n + 1], d1[0:n + 1]) STATE_LAUNCH(tofrom: d0[0:n + 1])
    for (long i = lo; i <= hi; ++i) {
      long j = d - i;
      /* H(i-1, j-1) is on diagonal d-2 at row i-1; H(i-1, j) and H(i, j-1) on d-1 at rows i-1, i */
      int h = (i > 1 && j > 1 ? d2[i - 1] : 0) + (a[i - 1] == b[j - 1] ? MATCH : MISMATCH);
      int up = (i > 1 ? d1[i - 1] : 0) - GAP, left = (j > 1 ? d1[i] : 0) - GAP;
      if (up > h) h = up;
      if (left > h) h = left;
      d0[i] = h > 0 ? h : 0;
      if (d0[i] > dbest) dbest = d0[i];
    }
    bench_count(&reg, chosen);
    bench_step(&clk);
    if (dbest > best) best = dbest;
    int *t = d2; d2 = d1; d1 = d0; d0 = t;
  }
  bench_stop(&clk);
  (void)ndiag;

  int want = serial_score(a, b, n);
  bench_report("smith_waterman", n, reps * (2 * n - 1), &clk, (double)abs(best - want), 0.0, &reg, 1);
  return 0;
}
