// features(auto) and zero-source-change mode in IR. The frontend lowers the explicit region: it
// declares the region's 16 feature slots, calls the __ompadapt_auto_features marker with the
// room after the explicit features, the descriptor (explicit features only), the model and the
// loops it sees, then begin with the explicit count plus what the marker returned. Zero-source-
// change mode it hands to the pass (every kind of the list is one the pass applies): the other
// constructs stay as written, the module's mark carries the kinds, and the pass makes the
// launches adaptive, names each <function>@<file>:<line>, leaves nowait constructs alone and
// does not make the explicit region's launch adaptive a second time.
//
// RUN: cd %S && %clang -O0 --offload-host-only -S -emit-llvm -fno-discard-value-names -Xclang -disable-llvm-passes -fplugin=%plugin -fplugin-arg-ompadapt-no-pass -fplugin-arg-ompadapt-auto=cpu,gpu auto_mode.c -o %t.ll
// RUN: %FileCheck %s --check-prefix=FRONTEND < %t.ll
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -pass-remarks=ompadapt -pass-remarks-missed=ompadapt -S < %t.ll > %t.opt.ll 2> %t.remarks
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: ! grep "OMPADAPT154.*explicit_with_auto@" %t.remarks
// Running the pass again changes nothing:
// RUN: %opt -load-pass-plugin=%passplugin -passes=ompadapt,verify -S < %t.opt.ll > %t.twice.ll
// RUN: diff %t.opt.ll %t.twice.ll
// The device compilation has one kernel per target construct, as the stock one, and none of
// the host-side calls:
// RUN: cd %S && %clang_nvptx -O2 --offload-arch=sm_90 --offload-device-only -S -emit-llvm auto_mode.c -o - | grep -c '^define.*__omp_offloading' > %t.stock
// RUN: cd %S && %clang_nvptx -O2 --offload-arch=sm_90 --offload-device-only -S -emit-llvm -fplugin=%plugin -fplugin-arg-ompadapt-auto=cpu,gpu auto_mode.c -o %t.dev.ll
// RUN: grep -c '^define.*__omp_offloading' %t.dev.ll | diff - %t.stock
// RUN: %FileCheck %s --check-prefix=DEVICE < %t.dev.ll

// FRONTEND-DAG: @__ompadapt_frontend_mark = internal constant [23 x i8] c"cpu,gpu\0Alocations=pass\00"
// FRONTEND-DAG: @[[D1:[^ ]+]] = {{.*}} c"ompadapt1;model=mixed;loc=auto_mode.c:[[#L1:]];features=n;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto\00"
// FRONTEND-DAG: @[[M1:[^ ]+]] = {{.*}} c"mixed\00"
// FRONTEND-DAG: @[[LOOPSI:[^ ]+]] = {{.*}} c"i\00"

// FRONTEND-LABEL: define {{.*}}@explicit_with_auto(
// FRONTEND: %[[F1:_ompadapt_f[0-9]+]] = alloca [16 x double]
// FRONTEND: %[[S1:_ompadapt_s[0-9]+]] = alloca ptr
// FRONTEND: store ptr @[[D1]], ptr %[[S1]]
// FRONTEND: %[[A1:.+]] = call i32 @__ompadapt_auto_features(ptr {{.*}}, i32 noundef 15, ptr {{.*}}%[[S1]], ptr noundef @[[M1]], ptr noundef @[[LOOPSI]])
// FRONTEND: %[[N1:.+]] = add nsw i32 1, %{{.+}}
// FRONTEND: call {{.*}}(ptr {{.*}}, ptr noundef %{{.+}}, i64 noundef -1, i64 noundef -1, i64 noundef -1, ptr noundef {{.*}}, i32 noundef %[[N1]], ptr
// FRONTEND: call void @__ompadapt_launch_site(
// FRONTEND: call i32 @__tgt_target_kernel(
void explicit_with_auto(double *x, int n) {
#ifdef OMPADAPT_API_VERSION /* with the plugin */
#pragma omp adaptation model_name(mixed) features(n, auto) variants(cpu, gpu)
#endif
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] += 1;
}

// FRONTEND-LABEL: define {{.*}}@grid(
// FRONTEND-NOT: __ompadapt_
// FRONTEND: call i32 @__tgt_target_kernel(
// FRONTEND-NOT: __ompadapt_
// FRONTEND: call {{.*}}@__kmpc_omp_target_task_alloc(
// FRONTEND-LABEL: define
// REMARK-DAG: [OMPADAPT154] region 'grid@auto_mode.c:[[#@LINE+3]]': the offload launch became an adaptive region with variants cpu, gpu
// REMARK-DAG: [OMPADAPT155] region 'grid@auto_mode.c:[[#@LINE+8]]': left as written: a deferred launch
void grid(double *g, double *h, int rows, int cols) {
#pragma omp target teams distribute collapse(2) map(tofrom: g[0:rows * cols])
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
#pragma omp parallel for
      for (int k = 0; k < 4; ++k) g[r * cols + c] += k;
    }
#pragma omp target teams distribute parallel for map(tofrom: h[0:rows]) nowait
  for (int r = 0; r < rows; ++r) h[r] = 0;
#pragma omp taskwait
}

// DEVICE-NOT: __ompadapt_auto_features
// DEVICE-NOT: __ompadapt_launch_site
