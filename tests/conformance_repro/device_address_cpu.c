/* Conformance difference by construction (LLVM offload/test/api/omp_get_mapped_ptr.c and the
 * mapping/declare_mapper_nested_*.cpp tests; our own reduction): a kernel that looks at the
 * address of mapped data sees the device address under stock (and `gpu`) and the host address
 * under the `cpu` variant, which runs the kernel's host version on host memory: stock prints
 * "device copy 1", OMPADAPT_VARIANT=cpu prints "device copy 0" (omp_get_mapped_ptr's tests assert
 * on it and abort). Plugin auto mode and pass-only mode alike. Whether `cpu` should be offered to
 * a kernel that compares mapped pointers is a design question, like omp_is_initial_device.
 *   clang-19 -O2 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -fpass-plugin=target/release/libompadapt_pass.so device_address_cpu.c */
#include <stdio.h>
#include <stdint.h>

int main(void) {
  int a[4] = {0};
  uintptr_t host = (uintptr_t)a, seen = 0;
#pragma omp target map(tofrom : a) map(from : seen)
  { seen = (uintptr_t)a; }
  printf("device copy %d\n", seen != host);
  return 0;
}
