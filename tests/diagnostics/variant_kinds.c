// Variant kinds: names that are not kinds, kinds that do not fit the construct, clauses the
// dispatch cannot time, a coschedule split that is not safe, host variants of a metadirective
// inside a device data environment (the `adaptation` and `declare adaptation` forms).
// EXPECT: 27:60: warning: variant 'host' names no variant kind: before a target construct every variant runs the offload as written; write variants(cpu, gpu) to run the host version for 'cpu', or use model_output to act on the choice
// EXPECT: 30:65: error: 'host' is not a variant kind; with kinds in the list, every variant must be one of: cpu, gpu, thread_limit[B:E:S], num_teams[B:E:S], coschedule[B:E:S] (before a target construct); serial, threads[B:E:S] (shares of the team, 0 < share <= 1), num_threads[B:E:S], schedule(static|dynamic|guided|auto[, chunk]) (before a parallel for; the team sizes also before a parallel region)
// EXPECT: 33:65: error: variant kind 'serial' applies to a 'parallel for', not to 'target teams distribute parallel for'
// EXPECT: 36:60: error: variant kind 'cpu' applies to a target construct, not to 'parallel for'
// EXPECT: 36:65: error: variant kind 'gpu' applies to a target construct, not to 'parallel for'
// EXPECT: 39:65: error: variant kind 'num_teams=2' needs teams; 'target parallel for' creates none
// EXPECT: 43:50: error: 'nowait' on a target construct with variant kinds: the variants are timed from launch to completion, so the launch must be synchronous; remove 'nowait' (a 'coschedule' variant overlaps host and device work itself)
// EXPECT: 46:50: error: 'depend' on a target construct with variant kinds: the variants are timed from launch to completion, so the launch must be synchronous; remove 'depend' (a 'coschedule' variant overlaps host and device work itself)
// EXPECT: 48:60: error: unknown variant kind 'thread_limt[...]'; did you mean 'thread_limit'?; the kinds are cpu, gpu, thread_limit[B:E:S], num_teams[B:E:S], coschedule[B:E:S] (before a target construct); serial, threads[B:E:S] (shares of the team, 0 < share <= 1), num_threads[B:E:S], schedule(static|dynamic|guided|auto[, chunk]) (before a parallel for; the team sizes also before a parallel region)
// EXPECT: 51:74: error: 'schedule' variants are schedule(static | dynamic | guided | auto [, chunk or [B:E:S]])
// EXPECT: 54:73: error: this kind takes positive integers; 'thread_limit' gets 0
// EXPECT: 57:61: warning: these variant kinds need an OpenMP construct to generate them from (a target construct or a 'parallel for'); before a plain loop every variant runs it as written
// EXPECT: 62:66: warning: 'coschedule' variants dropped: the split does not handle the 'reduction' clause; the region keeps its other variants
// EXPECT: 63:50: note: here
// EXPECT: 65:66: warning: 'coschedule' variants dropped: 'a' is written other than as 'a[i]'; the region keeps its other variants
// EXPECT: 67:31: note: here
// EXPECT: 68:66: warning: 'thread_limit=192' is above the construct's thread_limit(128): such variants run with 128
// EXPECT: 77:66: warning: this variant runs on the host inside the device data environment of 'target data' at {{FILE}}:74: the host copies of u, v are stale there; add '#pragma omp target update from(u[0:n], v[0:n])' before it and 'target update to(...)' for what it writes after it, or write the region as '#pragma omp adaptation ... variants(cpu, gpu)' before the target construct, which makes these copies itself
// EXPECT: 84:61: warning: 'coschedule' variants dropped: the split does not handle the 'reduction' clause; the region keeps its other variants
// EXPECT: 85:50: note: here
// EXPECT: 84:61: error: no variant is left once the variants above are dropped; add 'gpu' (the offload as written)
// EXPECT: 92:34: warning: this variant runs on the host inside the device data environment of 'target enter data' at {{FILE}}:90: the host copies of u, v are stale there; add '#pragma omp target update from(u[0:n], v[0:n])' before it and 'target update to(...)' for what it writes after it, or write the region as '#pragma omp adaptation ... variants(cpu, gpu)' before the target construct, which makes these copies itself
void f(double *a, double *b, int n) {
#pragma omp adaptation model_name(m1) features(n) variants(host, device)
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(m2) features(n) variants(cpu, host)
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(m3) features(n) variants(cpu, serial)
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(m4) features(n) variants(cpu, gpu)
#pragma omp parallel for
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(m5) features(n) variants(gpu, num_teams[2:8:2])
#pragma omp target parallel for
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(m6) features(n) variants(cpu, gpu)
#pragma omp target teams distribute parallel for nowait
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(m7) features(n) variants(cpu, gpu)
#pragma omp target teams distribute parallel for depend(out: a[0])
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(m8) features(n) variants(thread_limt[1:4:1], cpu)
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(m9) features(n) variants(cpu, schedule(fastest))
#pragma omp parallel for
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(m10) features(n) variants(thread_limit[0:64:32])
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; ++i) a[i] = b[i];
#pragma omp adaptation model_name(m11) features(n) variants(cpu, gpu)
  for (int i = 0; i < n; ++i) a[i] = b[i];
}

void g(double *a, double *b, int n, double s) {
#pragma omp adaptation model_name(m12) features(n) variants(gpu, coschedule[0:1:0.5])
#pragma omp target teams distribute parallel for reduction(+: s)
  for (int i = 0; i < n; ++i) s += a[i];
#pragma omp adaptation model_name(m13) features(n) variants(gpu, coschedule[0:1:0.5])
#pragma omp target teams distribute parallel for
  for (int i = 1; i < n; ++i) a[i - 1] = b[i];
#pragma omp adaptation model_name(m14) features(n) variants(gpu, thread_limit[64:256:64])
#pragma omp target teams distribute parallel for thread_limit(128)
  for (int i = 0; i < n; ++i) a[i] = b[i];
}

void h(double *u, double *v, int n) {
#pragma omp target data map(tofrom: u[0:n], v[0:n])
  {
#pragma omp begin adaptation model_name(by_len) features(n) variants(cpu, gpu)
#pragma omp metadirective when(user={adaptation(by_len == cpu)}: parallel for) when(user={adaptation(by_len == gpu)}: target teams distribute parallel for)
    for (int i = 0; i < n; ++i) v[i] = 2 * u[i];
#pragma omp end adaptation
  }
}

void k(double *a, int n, double s) {
#pragma omp adaptation model_name(m15) features(n) variants(coschedule[0:1:0.5])
#pragma omp target teams distribute parallel for reduction(+: s)
  for (int i = 0; i < n; ++i) s += a[i];
}

void h2(double *u, double *v, int n) {
#pragma omp target enter data map(to: u[0:n], v[0:n])
#pragma omp declare adaptation model_name(dl) feature(n)
#pragma omp metadirective when(: parallel for) when(: target teams distribute parallel for)
  for (int i = 0; i < n; ++i) v[i] = 2 * u[i];
#pragma omp target exit data map(from: v[0:n]) map(delete: u[0:n])
}
void device_memory(double *d, int n) {
#pragma omp adaptation model_name(dev) features(n) variants(cpu, gpu)
#pragma omp target teams distribute parallel for is_device_ptr(d)
  for (int i = 0; i < n; ++i) d[i] = i;
}
// EXPECT: 97:61: warning: variant 'cpu' dropped: 'is_device_ptr' names device memory, which the host version cannot read; the region keeps its other variants
// EXPECT: 98:50: note: here
// No -fopenmp-targets here: target constructs with variant kinds are host code only.
// EXPECT: 62:61: warning: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
// EXPECT: 65:61: warning: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
// EXPECT: 68:61: warning: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
// EXPECT: 84:61: warning: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
// EXPECT: 97:61: warning: no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch
