#include "common.h"
int main(int argc, char **argv) {
  int n = arg(argc, argv, 1, 4096), steps = arg(argc, argv, 2, 10);
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
  float *fx = malloc(n * sizeof *fx), *fy = malloc(n * sizeof *fy), *fz = malloc(n * sizeof *fz);
  for (int i = 0; i < n; i++) { x[i] = (i % 97) * 0.1f; y[i] = (i % 89) * 0.1f; z[i] = (i % 83) * 0.1f; }
#pragma omp target data map(alloc: x[0:n], y[0:n], z[0:n], fx[0:n], fy[0:n], fz[0:n])
  for (int s = 0; s < steps; s++) {
#pragma omp target update to(x[0:n], y[0:n], z[0:n])
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) {
      float ax = 0, ay = 0, az = 0;
      for (int j = 0; j < n; j++) {
        float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
        float d2 = dx * dx + dy * dy + dz * dz + 1e-3f;
        float inv = 1.0f / (d2 * sqrtf(d2));
        ax += dx * inv; ay += dy * inv; az += dz * inv;
      }
      fx[i] = ax; fy[i] = ay; fz[i] = az;
    }
#pragma omp target update from(fx[0:n], fy[0:n], fz[0:n])
    for (int i = 0; i < n; i++) { x[i] += 1e-5f * fx[i]; y[i] += 1e-5f * fy[i]; z[i] += 1e-5f * fz[i]; }
  }
  printf("CHECK x0=%.5f y1=%.5f\n", x[0], y[1]);
  return 0;
}
