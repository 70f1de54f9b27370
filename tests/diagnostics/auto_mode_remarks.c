// Zero-source-change mode: constructs it leaves as written and kinds it drops, said as remarks
// at the directive (only under -fplugin-arg-ompadapt-remarks); never an error or a warning.
// FLAGS: -fplugin-arg-ompadapt-auto=cpu,gpu,num_teams[2:4:2],coschedule[0:1:0.5] -fplugin-arg-ompadapt-remarks
// EXPECT: 16:70: remark: this target construct is left as written: 'nowait': a variant is timed from launch to completion, so an asynchronous launch is left as written
// EXPECT: 19:53: remark: this target construct is left as written: 'depend': a variant is timed from launch to completion, so an asynchronous launch is left as written
// EXPECT: 21:13: remark: variant kind 'num_teams' dropped for this construct: 'target parallel for' creates no teams
// EXPECT: 23:13: remark: variant kind 'coschedule' dropped for this construct: the split needs a combined target loop construct, not 'target'
// EXPECT: 28:13: remark: 'coschedule' variants dropped: the split does not handle the 'reduction' clause; the region keeps its other variants
// EXPECT: 28:70: note: here
// EXPECT: 35:13: remark: this target construct is left as written: it is inside the adaptation region 'outer' ({{FILE}}:33), which decides how it runs
// EXPECT: 49:13: remark: this target construct is left as written: it is in 'declare target' code, which is also compiled for the device
void helper(double *x, int n);

void f(double *x, double *y, int n) {
  double s = 0;
#pragma omp target teams distribute parallel for map(tofrom: x[0:n]) nowait
  for (int i = 0; i < n; ++i) x[i] += 1;
#pragma omp taskwait
#pragma omp target parallel for map(tofrom: x[0:n]) depend(out: x[0])
  for (int i = 0; i < n; ++i) x[i] += 1;
#pragma omp target parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] += 1;
#pragma omp target map(tofrom: x[0:n])
  {
#pragma omp teams distribute parallel for
    for (int i = 0; i < n; ++i) x[i] += 1;
  }
#pragma omp target teams distribute parallel for map(tofrom: x[0:n]) reduction(+: s)
  for (int i = 0; i < n; ++i) s += x[i];
#pragma omp adaptation model_name(explicit_one) variants(cpu, gpu)
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] += 1;
#pragma omp adaptation model_name(outer) variants(a, b)
  {
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
    for (int i = 0; i < n; ++i) x[i] += 1;
  }
#pragma omp target data map(tofrom: x[0:n], y[0:n])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; ++i) y[i] = x[i];
#pragma omp target update from(y[0:n])
  }
  helper(x, s > 0 ? n : 0);
}

#pragma omp begin declare target
void on_device(double *x, int n) {
#pragma omp target teams distribute parallel for map(tofrom: x[0:n])
  for (int i = 0; i < n; ++i) x[i] += 1;
}
#pragma omp end declare target
void device_memory(double *d, int n) {
#pragma omp target teams distribute parallel for is_device_ptr(d)
  for (int i = 0; i < n; ++i) d[i] = i;
}
// EXPECT: 54:13: remark: variant kind 'cpu' dropped for this construct: 'is_device_ptr' names device memory, which the host version cannot read
int omp_is_initial_device(void);
int where(double *x, int n) {
  int on_host = 0;
#pragma omp target teams distribute parallel for map(tofrom: x[0:n], on_host)
  for (int i = 0; i < n; ++i) {
    if (i == 0) on_host = omp_is_initial_device();
    x[i] += 1;
  }
  return on_host;
}
// EXPECT: 61:13: remark: 'coschedule' variants dropped: 'on_host' is written other than as 'on_host[i]'; the region keeps its other variants
// EXPECT: 63:17: note: here
// EXPECT: 61:13: remark: variant kind 'cpu' dropped for this construct: the kernel calls omp_is_initial_device, which the host version answers differently
// No -fopenmp-targets here: target constructs with variant kinds are host code only.
// EXPECT: 30:58: warning: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
// EXPECT: 21:13: remark: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
// EXPECT: 23:13: remark: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
// EXPECT: 28:13: remark: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
// EXPECT: 40:13: remark: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
// EXPECT: 54:13: remark: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
// EXPECT: 61:13: remark: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
