// features(auto) in IR: the marker __ompadapt_auto_features (called here by hand, the way the
// frontend's lowering of `features(auto)` calls it; the plugin's header defines it) is replaced
// by the region's features computed at the marker: trip counts sliced from the loop bounds
// (arguments, globals, struct fields through pointers, collapse products, two loops of a
// nested construct, a host parallel for), bytes_mapped and the static features; the
// frontend's descriptor, as it was, gets their names appended (auto_features=), the call's
// result becomes their number, metadata lists them. Bounds without a slice get a remark and
// no feature. Verified, and idempotent.
//
// RUN: %clang -O0 --offload-host-only -S -emit-llvm -fno-discard-value-names -Xclang -disable-llvm-passes -fplugin=%plugin -fplugin-arg-ompadapt-no-pass %s -o %t.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -pass-remarks-missed=ompadapt -S < %t.ll > %t.opt.ll 2> %t.remarks
// RUN: %FileCheck %s --check-prefix=PASS < %t.opt.ll
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -S < %t.opt.ll > %t.twice.ll
// RUN: diff %t.opt.ll %t.twice.ll
// Without -pass-remarks*, silent:
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt -disable-output < %t.ll 2> %t.quiet; test ! -s %t.quiet
// The pass standalone on -O2-optimised IR, and inside clang at -O0 and -O2: every output verifies.
// RUN: %clang -O2 --offload-host-only -S -emit-llvm -fplugin=%plugin -fplugin-arg-ompadapt-no-pass %s -o %t.O2.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -S < %t.O2.ll | %FileCheck %s --check-prefix=GONE
// RUN: for o in -O0 -O2; do %clang $o --offload-host-only -S -emit-llvm -fplugin=%plugin %s -o %t$o.ll; %opt -passes=verify -disable-output %t$o.ll; %FileCheck %s --check-prefix=GONE < %t$o.ll; done

#define SPEC(m) "ompadapt1;model=" m ";loc=auto_features.c:1;features=;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto"
void use(const char *, const double *, int);

struct S { int n; double *a; };
int G;

void args(double *a, int n) {
  const char *s = SPEC("args");
  double f[16];
  int k = __ompadapt_auto_features(f, 16, &s, "args", "i");
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < n; ++i) a[i] += 1.0;
  use(s, f, k);
}
// PASS-DAG: @ompadapt.auto.spec = private unnamed_addr constant {{.*}} c"ompadapt1;model=args;loc=auto_features.c:1;features=;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto;auto_features=trip_count(i),bytes_mapped,ops,flops,comparisons,memory_accesses,loop_depth,calls\00"
// PASS-DAG: @ompadapt.auto.spec.{{[0-9]+}} = private unnamed_addr constant {{.*}} c"ompadapt1;model=global;{{.*}};auto_features=trip_count(i),bytes_mapped,ops,
// PASS-DAG: @ompadapt.auto.spec.{{[0-9]+}} = private unnamed_addr constant {{.*}} c"ompadapt1;model=field;{{.*}};auto_features=trip_count(i%2Cj),bytes_mapped,ops,
// PASS-DAG: @ompadapt.auto.spec.{{[0-9]+}} = private unnamed_addr constant {{.*}} c"ompadapt1;model=nested;{{.*}};auto_features=trip_count(i),trip_count(j),bytes_mapped,ops,
// PASS-DAG: @ompadapt.auto.spec.{{[0-9]+}} = private unnamed_addr constant {{.*}} c"ompadapt1;model=host;{{.*}};auto_features=trip_count(i),ops,
// PASS-DAG: @ompadapt.auto.spec.{{[0-9]+}} = private unnamed_addr constant {{.*}} c"ompadapt1;model=written;{{.*}};auto_features=bytes_mapped,ops,
// PASS-DAG: @ompadapt.auto.spec.{{[0-9]+}} = private unnamed_addr constant {{.*}} c"ompadapt1;model=mixed;loc=auto_features.c:1;features=n;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto;feature_ranges=1:100;auto_features=trip_count(i),bytes_mapped\00"
//
// The bound n is read at the marker from its stack slot (clang's -O0 IR), the trip count is
// max(0, ub - lb + 1) under the loop's precondition, stored into out[0]; bytes_mapped into out[1].
// PASS-LABEL: define {{.*}}void @args(
// PASS:       %ompadapt.sliced = load i32, ptr %n.addr
// PASS:       %ompadapt.trip_count = select i1
// PASS:       %ompadapt.auto.slot = getelementptr double, ptr %arraydecay, i64 0
// PASS-NEXT:  store double %ompadapt.trip_count, ptr %ompadapt.auto.slot
// PASS:       [[S1:%ompadapt.auto.slot[0-9]+]] = getelementptr double, ptr %arraydecay, i64 1
// PASS-NEXT:  store double %{{.*}}, ptr [[S1]]
// The static features are constants.
// PASS:       [[S2:%ompadapt.auto.slot[0-9]+]] = getelementptr double, ptr %arraydecay, i64 2
// PASS-NEXT:  store double {{[0-9.e+]+}}, ptr [[S2]]
// PASS:       store ptr @ompadapt.auto.spec, ptr %s
// PASS-NOT:   call {{.*}}@__ompadapt_auto_features
// PASS:       store i32 8, ptr %k
// PASS:       call i32 @__tgt_target_kernel(

void global(double *a) {
  const char *s = SPEC("global");
  double f[16];
  int k = __ompadapt_auto_features(f, 16, &s, "global", "i");
#pragma omp target teams distribute parallel for map(tofrom: a[0:G])
  for (int i = 0; i < G; ++i) a[i] += 1.0;
  use(s, f, k);
}
// PASS-LABEL: define {{.*}}void @global(
// PASS:       %ompadapt.sliced = load i32, ptr @G
// PASS:       store i32 8, ptr %k

// s.n through a pointer and a collapse(2) product.
void field(struct S *p, int m) {
  const char *s = SPEC("field");
  double f[16];
  int k = __ompadapt_auto_features(f, 16, &s, "field", "i,j");
  double *a = p->a;
#pragma omp target teams distribute parallel for collapse(2) map(tofrom: a[0:p->n * m])
  for (int i = 0; i < p->n; ++i)
    for (int j = 0; j < m; ++j) a[i * m + j] += 1.0;
  use(s, f, k);
}
// PASS-LABEL: define {{.*}}void @field(
// PASS:       [[P:%ompadapt.sliced[0-9]*]] = load ptr, ptr %p.addr
// PASS:       getelementptr {{.*}}%struct.S, ptr [[P]], i32 0, i32 0
// PASS:       %ompadapt.trip_count = select
// PASS:       store i32 8, ptr %k

// target + teams distribute + parallel for: two loops, two trip counts.
void nested(double *a, int n, int m) {
  const char *s = SPEC("nested");
  double f[16];
  int k = __ompadapt_auto_features(f, 16, &s, "nested", "i;j");
#pragma omp target map(tofrom: a[0:n * m])
#pragma omp teams distribute
  for (int i = 0; i < n; ++i) {
#pragma omp parallel for
    for (int j = 0; j < m; ++j) a[i * m + j] *= 2;
  }
  use(s, f, k);
}
// PASS-LABEL: define {{.*}}void @nested(
// PASS:       store i32 9, ptr %k

// A host parallel for: the launch is __kmpc_fork_call; no bytes_mapped.
void host(double *a, int n) {
  const char *s = SPEC("host");
  double f[16];
  int k = __ompadapt_auto_features(f, 16, &s, "host", "i");
#pragma omp parallel for
  for (int i = 0; i < n; ++i) a[i] += 1.0;
  use(s, f, k);
}
// PASS-LABEL: define {{.*}}void @host(
// PASS:       store i32 7, ptr %k
// PASS:       call {{.*}}@__kmpc_fork_call(

// No slice: the bound is written between the marker and the launch.
void written(double *a, int n) {
  const char *s = SPEC("written");
  double f[16];
  int k = __ompadapt_auto_features(f, 16, &s, "written", "i");
  G = n - 1;
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < G; ++i) a[i] += 1.0;
  use(s, f, k);
}
// PASS-LABEL: define {{.*}}void @written(
// PASS:       store i32 7, ptr %k
// REMARK-DAG: remark: {{.*}}: [OMPADAPT133] region 'written': no trip_count(i) feature, its bound cannot be computed at the region's start: global 'G' may be written between the marker and the launch (a store

// Explicit features first (E = 1, with a range), then two automatic ones: cap 2.
void mixed(double *a, int n) {
  const char *s = "ompadapt1;model=mixed;loc=auto_features.c:1;features=n;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto;feature_ranges=1:100";
  double f[16] = {n};
  int k = __ompadapt_auto_features(f + 1, 2, &s, "mixed", "i");
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < n; ++i) a[i] += 1.0;
  use(s, f, 1 + k);
}
// PASS-LABEL: define {{.*}}void @mixed(
// PASS:       store i32 2, ptr %k
// REMARK-DAG: region 'mixed': only 2 automatic features fit; dropped ops, flops, comparisons, memory_accesses, loop_depth, calls

// A kernel in a loop over sizes (HeCBench style): the bound is the loop's variable, written
// by the latch after the launch; a path through the latch runs through the marker again, so
// the bound and the map sizes are read at the marker.
void sizes(double *a) {
  for (int n = 1000; n <= 5000; n += 2000) {
    const char *s = SPEC("sizes");
    double f[16];
    int k = __ompadapt_auto_features(f, 16, &s, "sizes", "i");
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
    for (int i = 0; i < n; ++i) a[i] += 1.0;
    use(s, f, k);
  }
}
// PASS-LABEL: define {{.*}}void @sizes(
// PASS:       %ompadapt.sliced{{[0-9]*}} = load i32, ptr %n
// PASS:       store i32 8, ptr %k

// PASS-NOT:   define {{.*}}@__ompadapt_auto_features
// PASS:       !ompadapt.auto_features = !{[[A:![0-9]+]], [[GL:![0-9]+]], [[F:![0-9]+]], [[N:![0-9]+]], [[H:![0-9]+]], [[W:![0-9]+]], [[M:![0-9]+]], [[SZ:![0-9]+]]}
// PASS-DAG:   [[A]] = !{!"args", !"trip_count(i)", !"bytes_mapped", !"ops", !"flops", !"comparisons", !"memory_accesses", !"loop_depth", !"calls"}
// PASS-DAG:   [[F]] = !{!"field", !"trip_count(i,j)", !"bytes_mapped",
// PASS-DAG:   [[N]] = !{!"nested", !"trip_count(i)", !"trip_count(j)", !"bytes_mapped",
// PASS-DAG:   [[H]] = !{!"host", !"trip_count(i)", !"ops",
// PASS-DAG:   [[W]] = !{!"written", !"bytes_mapped", !"ops",
// PASS-DAG:   [[M]] = !{!"mixed", !"trip_count(i)", !"bytes_mapped"}
// PASS-DAG:   [[SZ]] = !{!"sizes", !"trip_count(i)", !"bytes_mapped", !"ops",

// GONE-NOT: call {{.*}}@__ompadapt_auto_features
