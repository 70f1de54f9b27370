/* FIXED (5f2f78b): the launch keeps no `cpu` (OMPADAPT155/156), tests/programs/holes/target_static_local.c. */
/* Conformance difference (GCC libgomp.c/pr90779.c; our own reduction): a `static` local of a
 * target region lives on the device (the region's code is device code); the launch's `cpu`
 * variant updates the host's copy instead. All-`cpu` and all-`gpu` each count correctly; the
 * runtime, which tries both while it learns, splits the count between the two copies.
 * (The fix of hole 1, declare-target globals swapped around the host version,
 * tests/programs/holes/declare_target_globals.c, does not cover a function-local static.)
 *   clang-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -fpass-plugin=target/release/libompadapt_pass.so -gline-tables-only target_static_local.c
 *   OMPADAPT_VARIANT=cpu OMPADAPT_PERSIST=0 ./a.out -> 4;  OMPADAPT_VARIANT=gpu ... -> 4
 *   OMPADAPT_DIR=$(mktemp -d) ./a.out               -> 2 (a fresh store: two launches each way)
 *   stock -> 4 (the plugin build, -fplugin-arg-ompadapt-auto, prints the same) */
#include <stdio.h>

int main(void) {
  int v = 0;
  for (int r = 0; r < 4; r++) {
#pragma omp target map(from : v)
    {
      static int calls = 0;
      v = ++calls;
    }
  }
  printf("%d\n", v);
  return 0;
}
