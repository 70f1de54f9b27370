// A unit whose parallel region uses threadprivate data: each thread's count persists from one
// region to the next only while the teams keep one size (see tls_main.c).
static long mine;
#pragma omp threadprivate(mine)

long counted(int rounds) {
  long total = 0;
#pragma omp parallel reduction(+ : total)
  {
    mine += rounds;
    total += mine > 0;
  }
  return total > 0;
}
