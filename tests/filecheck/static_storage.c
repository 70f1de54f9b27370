// Variables with static storage of which the device keeps a copy of its own that the offload
// entries do not name (issue 41; libgomp's pr90779.c): a `static` local of a target region or of
// a function the kernel calls is device code's storage, and a `declare target` variable defined in
// another translation unit has no entry in this one. The runtime can swap in only what the entries
// name, so such a launch keeps no `cpu`: OMPADAPT155 when `gpu` alone is left. Constants, and
// static storage nothing writes, hold the same bytes on both sides; the runtime's handles (a
// `critical` construct's lock) are not the program's data.
//
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O2 -c -gline-tables-only -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt static_storage.c -o %t.o 2> %t.remarks
// RUN: %FileCheck %s < %t.remarks
// Zero-source-change mode, and an explicit region naming `cpu`: its host guard stays a call (the
// runtime runs the replacement), with the reason.
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O2 -c -gline-tables-only -fplugin=%plugin -fplugin-arg-ompadapt-auto -DEXPLICIT -Rpass=ompadapt -Rpass-missed=ompadapt static_storage.c -o %t.auto.o 2> %t.auto.remarks
// RUN: %FileCheck %s --check-prefixes=CHECK,EXPLICIT < %t.auto.remarks

// CHECK-DAG: [OMPADAPT155] region 'in_region@static_storage.c:[[#@LINE+4]]': left as written: the kernel uses 'calls' (a static local of 'in_region'), a variable with static storage of which the device keeps a copy of its own
int in_region(void) {
  int v = 0;
  for (int r = 0; r < 4; r++)
#pragma omp target map(from : v)
    {
      static int calls = 0;
      v = ++calls;
    }
  return v;
}

static int next_ticket(void) {
  static int issued = 0;
  return ++issued;
}

// CHECK-DAG: [OMPADAPT155] region 'in_callee@static_storage.c:[[#@LINE+4]]': left as written: the kernel uses 'issued' (a static local of 'next_ticket')
int in_callee(void) {
  int t = 0;
  for (int r = 0; r < 4; r++)
#pragma omp target map(from : t)
    t = next_ticket();
  return t;
}

extern int elsewhere;
#pragma omp declare target to(elsewhere)

// CHECK-DAG: [OMPADAPT155] region 'other_unit@static_storage.c:[[#@LINE+3]]': left as written: the kernel uses 'elsewhere', a variable with static storage
int other_unit(void) {
  int v = 0;
#pragma omp target map(from : v)
  v = ++elsewhere;
  return v;
}

static int weights[4] = {3, 1, 4, 1};
static const int offsets[4] = {0, 1, 0, 1};

// CHECK-DAG: [OMPADAPT154] region 'read_only@static_storage.c:[[#@LINE+3]]': the offload launch became an adaptive region with variants cpu, gpu
void read_only(int *w, int n) {
  // only read, never written: the same bytes on both sides
#pragma omp target map(tofrom : w[0 : n])
  for (int i = 0; i < n; i++) w[i] += weights[i & 3] + offsets[i & 3];
}

// CHECK-DAG: [OMPADAPT154] region 'locked@static_storage.c:[[#@LINE+3]]': the offload launch became an adaptive region with variants cpu, gpu
void locked(int *w, int n) {
  // the lock clang makes for `critical` is the runtime's, not the program's
#pragma omp target teams distribute parallel for map(tofrom : w[0 : n])
  for (int i = 0; i < n; i++) {
#pragma omp critical
    w[0] += i;
  }
}

#ifdef EXPLICIT
// EXPLICIT: [OMPADAPT102] region 'explicit_static': the cpu variant's host guard stays a call: the kernel uses 'seen' (a static local of 'explicit_region')
int explicit_region(void) {
  int x = 0;
#pragma omp adaptation model_name(explicit_static) variants(cpu, gpu)
#pragma omp target map(from : x)
  {
    static int seen = 10;
    x = seen++;
  }
  return x;
}
#endif
