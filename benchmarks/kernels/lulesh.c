/* LULESH-like Lagrangian hydrodynamics step on an N x N x N hexahedral mesh ((N+1)^3 nodes):
 * per step, an element kernel (volume from the 8 corner nodes, density, pressure and energy
 * from an ideal-gas law) and a node kernel (force from the pressures of the up to 8 adjacent
 * elements, velocity and position update). Two adaptive regions, as LULESH's element and node
 * loops differ in cost. Feature: N (Georgakoudis et al. Table 3: elements). STEPS steps (default
 * 10). Usage: lulesh N [STEPS]. */
#define BENCH_HAS_THREADS /* Georgakoudis et al. Table 3: GPU threads */
#include "bench.h"

static double chosen_elem, chosen_node;

#define NODE(i, j, k, nd) (((long)(i) * (nd) + (j)) * (nd) + (k))

/* Element e = (i, j, k): its volume from the corner nodes' coordinates (an axis-aligned
 * estimate), then density, pressure and energy (work p dV). */
#define ELEM_UPDATE(x, y, z, mass, vol, e, p, el, n)                                              \
  do {                                                                                            \
    long nd = (n) + 1, i = (el) / ((n) * (n)), j = ((el) / (n)) % (n), k = (el) % (n);            \
    double dx = 0, dy = 0, dz = 0;                                                                \
    for (int a = 0; a < 2; ++a)                                                                   \
      for (int b = 0; b < 2; ++b) {                                                               \
        dx += x[NODE(i + 1, j + a, k + b, nd)] - x[NODE(i, j + a, k + b, nd)];                    \
        dy += y[NODE(i + a, j + 1, k + b, nd)] - y[NODE(i + a, j, k + b, nd)];                    \
        dz += z[NODE(i + a, j + b, k + 1, nd)] - z[NODE(i + a, j + b, k, nd)];                    \
      }                                                                                           \
    double v = 0.015625 * dx * dy * dz; /* (dx/4)(dy/4)(dz/4) */                                  \
    double dv = v - vol[el];                                                                      \
    double en = e[el] - p[el] * dv / mass[el];                                                    \
    e[el] = en > 0 ? en : 0;                                                                      \
    vol[el] = v;                                                                                  \
    p[el] = 0.4 * (mass[el] / v) * e[el];                                                         \
  } while (0)

/* Node (i, j, k): the pressure difference across it pushes it; boundary nodes are fixed. */
#define NODE_UPDATE(x, y, z, vx, vy, vz, p, nmass, nid, n, dt)                                    \
  do {                                                                                            \
    long nd = (n) + 1, i = (nid) / (nd * nd), j = ((nid) / nd) % nd, k = (nid) % nd;              \
    if (i > 0 && j > 0 && k > 0 && i < (n) && j < (n) && k < (n)) {                               \
      double fx = 0, fy = 0, fz = 0;                                                              \
      for (int a = 0; a < 2; ++a)                                                                 \
        for (int b = 0; b < 2; ++b)                                                               \
          for (int c = 0; c < 2; ++c) {                                                           \
            double pe = p[((i - 1 + a) * (n) + (j - 1 + b)) * (n) + (k - 1 + c)];                 \
            fx += (a ? -pe : pe), fy += (b ? -pe : pe), fz += (c ? -pe : pe);                     \
          }                                                                                       \
      vx[nid] += (dt) * fx / nmass[nid], vy[nid] += (dt) * fy / nmass[nid], vz[nid] += (dt) * fz / nmass[nid]; \
      x[nid] += (dt) * vx[nid], y[nid] += (dt) * vy[nid], z[nid] += (dt) * vz[nid];               \
    }                                                                                             \
  } while (0)

typedef struct { double *x, *y, *z, *vx, *vy, *vz, *vol, *e, *p; } state;

static state alloc_state(long nodes, long elems) {
  state s = {calloc(nodes, 8), calloc(nodes, 8), calloc(nodes, 8), calloc(nodes, 8), calloc(nodes, 8), calloc(nodes, 8),
             calloc(elems, 8), calloc(elems, 8), calloc(elems, 8)};
  return s;
}

int main(int argc, char **argv) {
  long n = bench_arg(argc, argv, 1, 30), steps = bench_arg(argc, argv, 2, 10);
  long nd = n + 1, nodes = nd * nd * nd, elems = n * n * n;
  double h = 1.0 / n, dt = 1e-4;
  state s = alloc_state(nodes, elems), r = alloc_state(nodes, elems);
  double *mass = malloc(elems * 8), *nmass = malloc(nodes * 8);
  for (long q = 0; q < nodes; ++q) {
    long i = q / (nd * nd), j = (q / nd) % nd, k = q % nd;
    s.x[q] = r.x[q] = i * h, s.y[q] = r.y[q] = j * h, s.z[q] = r.z[q] = k * h;
    nmass[q] = h * h * h;
  }
  for (long el = 0; el < elems; ++el) {
    mass[el] = h * h * h, s.vol[el] = r.vol[el] = h * h * h;
    /* a hot corner (Sedov-like) */
    s.e[el] = r.e[el] = el == 0 ? 1.0 : 1e-3 * (1.0 + bench_unit(el));
    s.p[el] = r.p[el] = 0.4 * s.e[el];
  }
  double *x = s.x, *y = s.y, *z = s.z, *vx = s.vx, *vy = s.vy, *vz = s.vz, *vol = s.vol, *e = s.e, *p = s.p;
  bench_region regs[2] = {{"lulesh_elem", {0}}, {"lulesh_node", {0}}};

  bench_clock clk;
  bench_start(&clk);
#pragma omp target data map(to: mass[0:elems], nmass[0:nodes]) \
    STATE_DATA(tofrom: x[0:nodes], y[0:nodes], z[0:nodes], vx[0:nodes], vy[0:nodes], vz[0:nodes], vol[0:elems], e[0:elems], p[0:elems])
  for (long st = 0; st < steps; ++st) {
#pragma omp adaptation model_name(lulesh_elem) features(n) variants(BENCH_KINDS) model_output(chosen_elem)
#pragma omp target teams distribute parallel for STATE_LAUNCH(to: x[0:nodes], y[0:nodes], z[0:nodes]) STATE_LAUNCH(tofrom: vol[0:elems], e[0:elems], p[0:elems])
    for (long el = 0; el < elems; ++el)
      ELEM_UPDATE(x, y, z, mass, vol, e, p, el, n);
    bench_count(&regs[0], chosen_elem);
#pragma omp adaptation model_name(lulesh_node) features(n) variants(BENCH_KINDS) model_output(chosen_node)
#pragma omp target teams distribute parallel for STATE_LAUNCH(tofrom: x[0:nodes], y[0:nodes], z[0:nodes], vx[0:nodes], vy[0:nodes], vz[0:nodes]) STATE_LAUNCH(to: p[0:elems])
    for (long q = 0; q < nodes; ++q)
      NODE_UPDATE(x, y, z, vx, vy, vz, p, nmass, q, n, dt);
    bench_count(&regs[1], chosen_node);
    bench_step(&clk);
  }
  bench_stop(&clk);

  for (long st = 0; st < steps; ++st) {
    for (long el = 0; el < elems; ++el) ELEM_UPDATE(r.x, r.y, r.z, mass, r.vol, r.e, r.p, el, n);
    for (long q = 0; q < nodes; ++q) NODE_UPDATE(r.x, r.y, r.z, r.vx, r.vy, r.vz, r.p, nmass, q, n, dt);
  }
  double err = 0;
  for (long q = 0; q < nodes; ++q) err = fmax(err, fabs(x[q] - r.x[q]) + fabs(y[q] - r.y[q]) + fabs(z[q] - r.z[q]));
  for (long el = 0; el < elems; ++el) err = fmax(err, fabs(e[el] - r.e[el]) / (1e-3 + fabs(r.e[el])));
  bench_report("lulesh", n, steps, &clk, err, 1e-12, regs, 2);
  return 0;
}
