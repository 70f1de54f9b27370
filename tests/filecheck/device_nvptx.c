// The plugin runs in every cc1, the nvptx64 device compilation too, and lowers the same
// regions there: the device module holds one kernel per target arm of the metadirective
// and nothing of the host-side runtime calls. (Device-only IR needs no CUDA toolchain.)
//
// RUN: %clang_nvptx -O2 --offload-arch=sm_90 --offload-device-only -S -emit-llvm -fplugin=%plugin -I%S/../programs %S/../programs/listing3.c -o - | %FileCheck %s
// RUN: %clang_nvptx -O2 --offload-arch=sm_90 --offload-device-only -S -emit-llvm -fplugin=%plugin -I%S/../programs %S/../programs/offload_dispatch.c -o - | %FileCheck %s --check-prefix=DISPATCH

// CHECK: target triple = "nvptx64-nvidia-cuda"
// CHECK: define weak_odr protected void @__omp_offloading_{{.*}}_vecAdd_l11(
// CHECK-NOT: __ompadapt_api
// CHECK-NOT: __ompadapt_v6_
// CHECK-NOT: __ompadapt_launch_site

// DISPATCH: define weak_odr protected void @__omp_offloading_{{.*}}_vecAdd_l12(
// DISPATCH-NOT: __ompadapt
