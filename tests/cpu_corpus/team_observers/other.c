/* Another translation unit: work split by hand by the thread's number and the team's size, a
 * partial sum per thread. Its callers' units cannot see this; its summary says it (OMPADAPT141),
 * and the runtime runs a region that calls it as written. */
#include <omp.h>

void partial_sums(const double *x, int n, double *sums) {
  int t = omp_get_thread_num(), nt = omp_get_num_threads();
  int chunk = (n + nt - 1) / nt;
  int lo = t * chunk, hi = lo + chunk < n ? lo + chunk : n;
  double s = 0;
  for (int i = lo; i < hi; ++i) s += x[i];
  sums[t] = s;
}
