// First translation unit: the kernels on one set of sizes. Returns the number of wrong results.
#include "kernels.hpp"
#include <cstdio>

int unit_a(int rounds) {
  int wrong = 0;
  for (int r = 0; r < rounds; ++r)
    for (long n : {64L, 4096L}) {
      std::vector<float> v(n, 2.0f);
      kernels::scale(v, 1.5f);
      for (float x : v)
        wrong += x != 3.0f;
    }
  return wrong;
}
