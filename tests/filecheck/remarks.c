// The pass's optimisation remarks (docs/remarks.md): inside clang at the directive's
// file:line:column under -Rpass=ompadapt / -Rpass-missed=ompadapt / -Rpass-analysis=ompadapt,
// nothing without them, in the YAML of -fsave-optimization-record (an offloading build's own
// file, and a host-only build's), and from opt-19 with -pass-remarks*.
//
// RUN: %clang -O2 -fplugin=%plugin -Rpass=ompadapt -Rpass-missed=ompadapt -c %s -o %t.o 2> %t.remarks
// RUN: %FileCheck %s --check-prefix=REMARK --input-file=%t.remarks
// Analysis remarks only when asked for:
// RUN: ! grep OMPADAPT121 %t.remarks
// RUN: %clang -O2 -fplugin=%plugin -Rpass-analysis=ompadapt -c %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=ANALYSIS
// Silent without -R:
// RUN: %clang -O2 -fplugin=%plugin -c %s -o %t.o 2> %t.quiet; test ! -s %t.quiet
// RUN: %clang -O2 -fplugin=%plugin -fsave-optimization-record -c %s -o %t.o
// RUN: %S/yaml_records.sh < %t.ompadapt.opt.yaml | %FileCheck %s --check-prefix=YAML
// RUN: %clang -O2 --offload-host-only -fplugin=%plugin -fsave-optimization-record -c %s -o %t.host.o
// RUN: %S/yaml_records.sh < %t.host.opt.yaml | %FileCheck %s --check-prefix=YAML
// The pass alone, on IR with markers written by hand (the way the frontend writes them):
// RUN: %clang -O0 --offload-host-only -S -emit-llvm -gline-tables-only -Xclang -disable-llvm-passes -DHAND_MARKED %s -o %t.hand.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt -pass-remarks=ompadapt -pass-remarks-missed=ompadapt -pass-remarks-output=%t.hand.yaml -disable-output %t.hand.ll 2> %t.hand.remarks
// RUN: %FileCheck %s --check-prefix=OPT --input-file=%t.hand.remarks
// RUN: %S/yaml_records.sh < %t.hand.yaml | %FileCheck %s --check-prefix=OPTYAML

#ifndef HAND_MARKED
int G;

// REMARK-DAG: remarks.c:[[@LINE+3]]:1: remark: [OMPADAPT133] region 'written': no trip_count(i) feature, its bound cannot be computed at the region's start: global 'G' may be written between the marker and the launch (a store at {{.*}}remarks.c:[[@LINE+5]]) [-Rpass-missed=ompadapt]
// YAML-DAG: --- !Missed Pass: ompadapt Name: OMPADAPT133 DebugLoc: { File: {{.*}}remarks.c{{.*}}, Line: [[@LINE+2]], Column: 1 } Function: written Args:
void written(double *x, int n) {
#pragma omp adaptation model_name(written) features(auto) variants(gpu, thread_limit[64:128:64])
  {
    G = n;
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
    for (int i = 0; i < G; ++i) x[i] += 1.0;
  }
}

// REMARK-DAG: remarks.c:[[@LINE+6]]:1: remark: [OMPADAPT120] region 'scale': automatic features: trip_count(i), bytes_mapped, ops, flops, comparisons, memory_accesses, loop_depth, calls [-Rpass=ompadapt]
// REMARK-DAG: remarks.c:[[@LINE+5]]:1: remark: [OMPADAPT100] region 'scale': the offload launch became a dispatch between the host version and the offload [-Rpass=ompadapt]
// REMARK-DAG: remarks.c:[[@LINE+4]]:1: remark: [OMPADAPT101] region 'scale': the host version runs between the runtime's copies (__ompadapt_host_enter before, __ompadapt_host_exit after), so that it ends as the offload would [-Rpass=ompadapt]
// ANALYSIS: remarks.c:[[@LINE+3]]:1: remark: [OMPADAPT121] region 'scale': static features of the region's code: ops={{[0-9]+}}, flops=1, comparisons={{[0-9]+}}, memory_accesses={{[0-9]+}}, loop_depth=1, calls=0 [-Rpass-analysis=ompadapt]
// YAML-DAG: --- !Passed Pass: ompadapt Name: OMPADAPT100 DebugLoc: { File: {{.*}}remarks.c{{.*}}, Line: [[@LINE+2]], Column: 1 } Function: scale Args:
void scale(double *x, int n) {
#pragma omp adaptation model_name(scale) features(auto) variants(cpu, gpu)
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] *= 2.0;
}

#else
void ompadapt_unlowered_offload_site(const char *model);
static inline __attribute__((noinline)) void __ompadapt_launch_site(int use_host, int num_teams, int thread_limit,
                                                                    const char *model) {
  if (use_host || num_teams || thread_limit)
    ompadapt_unlowered_offload_site(model);
}

// OPT: remark: {{.*}}remarks.c:[[@LINE+3]]:5: [OMPADAPT113] region 'conditional': the offload launch after its marker can also be reached without passing the marker; left unlowered, so its 'cpu' variant will run the offload
void conditional(int c, int variant, double *x, int n) {
  if (c)
    __ompadapt_launch_site(variant == 0, 0, 0, "conditional");
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] += 1.0;
}

// OPT: remark: {{.*}}remarks.c:[[@LINE+3]]:3: [OMPADAPT100] region 'plain': the offload launch became a dispatch between the host version and the offload
// OPTYAML-DAG: --- !Passed Pass: ompadapt Name: OMPADAPT100 DebugLoc: { File: {{.*}}remarks.c{{.*}}, Line: [[@LINE+2]], Column: 3 } Function: plain Args:
void plain(int variant, double *x, int n) {
  __ompadapt_launch_site(variant == 0, 0, 0, "plain");
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] += 1.0;
}
#endif
