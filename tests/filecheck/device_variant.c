// Code the device compilation chooses otherwise than the host's: after a `declare variant` (or
// `begin declare variant`, `metadirective`) with a `device` or `target_device` selector outside
// system headers, the frontend annotates every function it defines (ompadapt.device_specialised,
// in @llvm.global.annotations), and a kernel written in or reaching such a function keeps no
// `cpu` variant: its host version would call the host's choice (the OpenMP V&V test
// v50_test_declare_target_device_type_nohost.c printed another value under `cpu`). omp.h's own
// `begin declare variant match(device={kind(host)})` is in a system header and changes nothing.
//
// RUN: cd %S && %clang -O2 -c -gline-tables-only -fplugin=%plugin -fplugin-arg-ompadapt-auto -Rpass=ompadapt -Rpass-missed=ompadapt device_variant.c -o %t.o 2> %t.remarks
// RUN: %FileCheck %s < %t.remarks
// RUN: cd %S && %clang -O0 --offload-host-only -S -emit-llvm -fplugin=%plugin -fplugin-arg-ompadapt-auto -fplugin-arg-ompadapt-no-pass device_variant.c -o %t.ll
// RUN: %FileCheck %s --check-prefix=IR < %t.ll
#include <omp.h>

// CHECK-DAG: [OMPADAPT154] region 'before@device_variant.c:[[#@LINE+3]]': the offload launch became an adaptive region with variants cpu, gpu
int before(void) {
  int w = 0;
#pragma omp target map(tofrom : w)
  w = omp_get_num_devices() >= 0;
  return w;
}

#pragma omp declare target
int on_device(void) { return 2; }
#pragma omp declare variant(on_device) match(device = {kind(nohost)})
int which(void) { return 1; }
#pragma omp end declare target

// IR: @[[NAME:.str[.0-9]*]] = private unnamed_addr constant {{.*}} c"ompadapt.device_specialised\00"
// IR: @llvm.global.annotations = {{.*}}ptr @which, ptr @[[NAME]]{{.*}}ptr @after, ptr @[[NAME]]
// IR-NOT: ptr @before, ptr @[[NAME]]
// CHECK-DAG: [OMPADAPT155] region 'after@device_variant.c:[[#@LINE+3]]': left as written: the kernel runs 'after', defined after a declare variant or metadirective with a device selector
int after(void) {
  int w = 0;
#pragma omp target map(tofrom : w)
  w = which();
  return w;
}
