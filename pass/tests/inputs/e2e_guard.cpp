// End-to-end program in C++: an object with a destructor is alive across the adaptive region,
// so clang emits the marker as an invoke with a cleanup landing pad. Same protocol as
// e2e_vecadd.c: argument "0", "1" or "alt"; one letter per call (H host, D device), then OK.
#include <omp.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" void ompadapt_unlowered_offload_site(const char *model) {
  std::fprintf(stderr, "UNLOWERED %s\n", model);
}
#include "ompadapt_marker.h"

struct Counter {
  int *n;
  ~Counter() { ++*n; }
};

static int scale(int variant, std::vector<double> &X, double k, int *destroyed) {
  Counter c{destroyed};
  double *x = X.data();
  int N = (int)X.size();
  int where[1] = {-1};
  __ompadapt_launch_site(variant == 0, 0, 0, "scale");
#pragma omp target teams distribute parallel for map(tofrom: x[0:N], where[0:1])
  for (int i = 0; i < N; ++i) {
    x[i] = k * i;
    if (i == 0) where[0] = omp_is_initial_device();
  }
  return where[0];
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "1";
  const int calls = 4;
  std::vector<double> X(2048);
  int destroyed = 0, bad = 0;
  for (int call = 0; call < calls; ++call) {
    int variant = std::strcmp(mode, "alt") == 0 ? call % 2 : std::atoi(mode);
    int on_host = scale(variant, X, call + 1.0, &destroyed);
    std::putchar(on_host == 1 ? 'H' : on_host == 0 ? 'D' : '?');
    for (int i = 0; i < (int)X.size(); ++i)
      if (X[i] != (call + 1.0) * i) { ++bad; break; }
  }
  if (destroyed != calls) ++bad;
  std::printf(" %s\n", bad ? "WRONG" : "OK");
  return bad != 0;
}
