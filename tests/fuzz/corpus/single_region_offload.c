/* The single-statement form before a target construct (CPU/offload dispatch), nested
 * regions, a region in an if/else without braces, do/while and switch statements. */
void saxpy(float a, float *x, float *y, int n) {
#pragma omp adaptation model_name(saxpy) features(n) variants(cpu, gpu)
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

int loops(int n, int *v) {
  int s = 0;
  if (n > 10)
#pragma omp adaptation model_name(branch) features(n, n % 7) variants(a, b, c)
    s = v[0];
  else
    s = v[1];
#pragma omp adaptation model_name(dowhile) features(s) variants(x, y)
  do {
    s += 1;
  } while (s < n);
#pragma omp adaptation model_name(sw) features(n) variants(x, y)
  switch (n) {
  case 1:
    s = 2;
    break;
  default:
    s = 3;
  }
#pragma omp begin adaptation model_name(outer) features(n) variants(p, q)
#pragma omp adaptation model_name(inner) features(n * 2) variants(r, t)
  for (int i = 0; i < n; ++i) {
#pragma omp parallel for reduction(+: s)
    for (int j = 0; j < n; ++j)
      s += v[j];
  }
#pragma omp end adaptation
  return s;
}
