/* ompadapt demonstration: an adaptive vector addition (Georgakoudis et al., Listing 3) that learns,
 * per input size, whether to run serially, as a parallel loop on the CPU, or offloaded to the
 * device. Build:
 *   clang-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -fplugin=libompadapt.so vecadd.c
 * (-fopenmp-targets=nvptx64 on a machine with an NVIDIA GPU). Usage: vecadd [--no-train]
 *   default:    explore on the training sizes, train, then use the model on every size,
 *               including sizes it never saw;
 *   --no-train: use only what earlier runs stored in ./.ompadapt (OMPADAPT_DIR). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const variant_names[] = {"serial", "cpu", "gpu"};
static int chosen;

static void vecadd(double *A, double *B, double *C, size_t N) {
#pragma omp begin adaptation model_name(vecadd) features(N) variants(serial, cpu, gpu) \
    min_train_data(3 * 6) model_output(chosen)
#pragma omp metadirective \
    when(user={adaptation(vecadd == cpu)} : parallel for) \
    when(user={adaptation(vecadd == gpu)} : target teams distribute parallel for \
                                            map(to: A[0:N], B[0:N]) map(from: C[0:N]))
  for (size_t i = 0; i < N; ++i)
    C[i] = A[i] + B[i];
#pragma omp end adaptation model_name(vecadd)
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  int train = !(argc > 1 && strcmp(argv[1], "--no-train") == 0);
  setvbuf(stdout, NULL, _IOLBF, 0); /* keep the table before the exit report when piped */
  enum { MAX_LOG2 = 22 };
  const size_t max_n = (size_t)1 << MAX_LOG2;
  double *A = malloc(max_n * sizeof *A), *B = malloc(max_n * sizeof *B), *C = malloc(max_n * sizeof *C);
  for (size_t i = 0; i < max_n; ++i) A[i] = (double)i, B[i] = 2.0 * i;

  /* Training sizes: 2^8, 2^11, ..., 2^22 (6 sizes x 3 variants = min_train_data). */
  if (train) {
    printf("exploring %d variants on sizes 2^8, 2^11, ..., 2^%d\n", 3, MAX_LOG2);
    for (int rep = 0; rep < 6; ++rep) /* 3 variants x 2, plus one warm-up run per variant */
      for (int e = 8; e <= MAX_LOG2; e += 3) vecadd(A, B, C, (size_t)1 << e);
  }

  printf("\n%10s  %-8s %12s  %s\n", "N", "decision", "time/call", "");
  for (int e = 8; e <= MAX_LOG2; ++e) {
    size_t n = (size_t)1 << e;
    int reps = e < 16 ? 200 : 5;
    double t0 = seconds();
    for (int r = 0; r < reps; ++r) vecadd(A, B, C, n);
    double per_call = (seconds() - t0) / reps;
    for (size_t i = 0; i < n; ++i)
      if (C[i] != A[i] + B[i]) {
        fprintf(stderr, "wrong result at %zu\n", i);
        return 1;
      }
    printf("%10zu  %-8s %9.1f us  %s\n", n, variant_names[chosen], per_call * 1e6,
           (e - 8) % 3 == 0 ? "(trained on)" : "(unseen size)");
  }
  printf("\noffload devices: %d (libomptarget's host plugin counts as devices when "
         "compiled with -fopenmp-targets=x86_64-pc-linux-gnu)\n", omp_get_num_devices());
  free(A), free(B), free(C);
  return 0;
}
