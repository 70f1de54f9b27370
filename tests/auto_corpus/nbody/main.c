/* All-pairs n-body (HeCBench nbody style): a force kernel with an inner loop over all bodies
 * and an integration kernel per time step, inside one `target data` region; energy computed on
 * the host at the end. Checked element by element against the serial loops. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NB 384
#define STEPS 12
#define SOFT 0.01

typedef struct {
  double x, y, z, m;
} body;

static void forces(const body *p, double *ax, double *ay, double *az, int n) {
  for (int i = 0; i < n; i++) {
    double fx = 0, fy = 0, fz = 0;
    for (int j = 0; j < n; j++) {
      double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y, dz = p[j].z - p[i].z;
      double inv = 1.0 / sqrt(dx * dx + dy * dy + dz * dz + SOFT);
      double s = p[j].m * inv * inv * inv;
      fx += dx * s, fy += dy * s, fz += dz * s;
    }
    ax[i] = fx, ay[i] = fy, az[i] = fz;
  }
}

static void simulate(body *p, double *v, double *a, int n, int steps, double dt) {
#pragma omp target data map(tofrom: p[0:n], v[0:3 * n]) map(alloc: a[0:3 * n])
  for (int s = 0; s < steps; s++) {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) {
      double fx = 0, fy = 0, fz = 0;
      for (int j = 0; j < n; j++) {
        double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y, dz = p[j].z - p[i].z;
        double inv = 1.0 / sqrt(dx * dx + dy * dy + dz * dz + SOFT);
        double q = p[j].m * inv * inv * inv;
        fx += dx * q, fy += dy * q, fz += dz * q;
      }
      a[i] = fx, a[n + i] = fy, a[2 * n + i] = fz;
    }
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) {
      v[3 * i] += dt * a[i], v[3 * i + 1] += dt * a[n + i], v[3 * i + 2] += dt * a[2 * n + i];
      p[i].x += dt * v[3 * i], p[i].y += dt * v[3 * i + 1], p[i].z += dt * v[3 * i + 2];
    }
  }
}

static void init(body *p, double *v, int n) {
  for (int i = 0; i < n; i++) {
    p[i].x = (i % 7) - 3.0, p[i].y = (i % 11) * 0.5 - 2.5, p[i].z = (i % 13) * 0.25 - 1.5;
    p[i].m = 1.0 + (i % 3);
    v[3 * i] = v[3 * i + 1] = v[3 * i + 2] = 0.0;
  }
}

static double energy(const body *p, const double *v, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) e += 0.5 * p[i].m * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
  return e;
}

int main(void) {
  body *p = malloc(NB * sizeof *p), *r = malloc(NB * sizeof *r);
  double *v = malloc(3 * NB * sizeof *v), *rv = malloc(3 * NB * sizeof *rv), *a = malloc(3 * NB * sizeof *a);
  init(p, v, NB);
  init(r, rv, NB);
  simulate(p, v, a, NB, STEPS, 0.001);
  for (int s = 0; s < STEPS; s++) {
    forces(r, a, a + NB, a + 2 * NB, NB);
    for (int i = 0; i < NB; i++) {
      rv[3 * i] += 0.001 * a[i], rv[3 * i + 1] += 0.001 * a[NB + i], rv[3 * i + 2] += 0.001 * a[2 * NB + i];
      r[i].x += 0.001 * rv[3 * i], r[i].y += 0.001 * rv[3 * i + 1], r[i].z += 0.001 * rv[3 * i + 2];
    }
  }
  int ok = 1;
  for (int i = 0; i < NB; i++) ok &= p[i].x == r[i].x && p[i].y == r[i].y && p[i].z == r[i].z;
  for (int i = 0; i < 3 * NB; i++) ok &= v[i] == rv[i];
  printf("nbody n=%d steps=%d energy=%.12e x0=%.12e\n", NB, STEPS, energy(p, v, NB), p[0].x);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
