// A kernel given device memory (`is_device_ptr`, `has_device_addr`: a pointer passed as a literal,
// map type LITERAL | TARGET_PARAM) cannot run as its host version: the host would read a device
// address. Pass-only mode finds it from the launch's map types and the host version's parameter
// types (an explicit `firstprivate` scalar has the same map type, but an integer parameter) and
// drops `cpu`; with `gpu` alone left the launch stays as written (OMPADAPT155). The frontend's
// zero-source-change mode drops it from the clauses (plugin/syntax/src/kernel_scan.rs).
//
// RUN: cd %S && env -u OMPADAPT_AUTO %clang -O2 -c -gline-tables-only -fpass-plugin=%passplugin -Rpass=ompadapt -Rpass-missed=ompadapt device_memory.c -o %t.o 2> %t.remarks
// RUN: %FileCheck %s < %t.remarks

// CHECK-DAG: [OMPADAPT155] region 'device_pointer@device_memory.c:[[#@LINE+3]]': left as written: the kernel is given device memory
long device_pointer(long *x, int n) {
  long s = 0;
#pragma omp target is_device_ptr(x) map(tofrom : s)
  for (int i = 0; i < n; i++) s += x[i];
  return s;
}

// CHECK-DAG: [OMPADAPT155] region 'device_address@device_memory.c:[[#@LINE+3]]': left as written: the kernel is given device memory
long device_address(long *y) {
  long s = 0;
#pragma omp target has_device_addr(y) map(tofrom : s)
  s += y[0];
  return s;
}

// CHECK-DAG: [OMPADAPT154] region 'scalars@device_memory.c:[[#@LINE+3]]': the offload launch became an adaptive region with variants cpu, gpu
long scalars(int n, double q) {
  long s = 0;
#pragma omp target firstprivate(n, q) map(tofrom : s)
  s += n + (long)q;
  return s;
}

// A kernel calling through a function pointer (`declare target indirect`): the device calls the
// device's function, the host version the host's, and the pass cannot see which: `cpu` (and the
// shape variants) dropped.
#pragma omp declare target
static long twice(long v) { return 2 * v; }
#pragma omp end declare target
// CHECK-DAG: [OMPADAPT155] region 'through_a_pointer@device_memory.c:[[#@LINE+3]]': left as written: the kernel calls a function through a pointer
long through_a_pointer(long (*f)(long), long v) {
  long s = 0;
#pragma omp target map(tofrom : s) firstprivate(f)
  s = f(v) + twice(v);
  return s;
}

// A kernel that looks at addresses as numbers (LLVM's declare_mapper_nested*.cpp compare a mapped
// pointer with a host address carried in as an integer; a kernel handing out the address it
// sees): the host version sees host addresses where the offload sees device ones.
// CHECK-DAG: [OMPADAPT155] region 'carried_in@device_memory.c:[[#@LINE+3]]': left as written: the kernel looks at addresses
int carried_in(long *a, __INTPTR_TYPE__ host) {
  int same = 0;
#pragma omp target map(tofrom : a[0 : 4]) map(from : same)
  same = a == (long *)host;
  return same;
}
// CHECK-DAG: [OMPADAPT155] region 'handed_out@device_memory.c:[[#@LINE+3]]': left as written: the kernel looks at addresses
__INTPTR_TYPE__ handed_out(long *a) {
  __INTPTR_TYPE__ seen = 0;
#pragma omp target map(tofrom : a[0 : 4]) map(from : seen)
  seen = (__INTPTR_TYPE__)a;
  return seen;
}
// CHECK-DAG: [OMPADAPT154] region 'distance@device_memory.c:[[#@LINE+3]]': the offload launch became an adaptive region
long distance(long *a) {
  long n = 0;
#pragma omp target map(tofrom : a[0 : 4]) map(from : n)
  n = &a[3] - &a[0];
  return n;
}

// A kernel storing a pointer where the program reads it after the launch (LLVM's
// api/omp_get_mapped_ptr.c: `ptr = host_data` into a map(from:) variable, compared with
// omp_get_mapped_ptr): the offload stores the device address, the host version the host's.
// CHECK-DAG: [OMPADAPT155] region 'stored_pointer@device_memory.c:[[#@LINE+3]]': left as written: the kernel looks at addresses
void *stored_pointer(int *data) {
  void *seen = 0;
#pragma omp target map(to : data[0 : 8]) map(from : seen)
  seen = data + 2;
  return seen;
}
// ... and into mapped memory, by a function the kernel calls
struct node { struct node *next; long v; };
#pragma omp declare target
static void link(struct node *a, struct node *b) { a->next = b; }
#pragma omp end declare target
// CHECK-DAG: [OMPADAPT155] region 'linked_node@device_memory.c:[[#@LINE+2]]': left as written: the kernel looks at addresses
void linked_node(struct node *n) {
#pragma omp target map(tofrom : n[0 : 2])
  link(&n[0], &n[1]);
}
// Pointers kept on the kernel's own stack stay invisible: a cursor walking the data, an object
// built there by a function it calls (a constructor, in C++). Null is the same everywhere.
// CHECK-DAG: [OMPADAPT154] region 'stack_cursor@device_memory.c:[[#@LINE+3]]': the offload launch became an adaptive region
long stack_cursor(long *a, int n) {
  long s = 0;
#pragma omp target map(to : a[0 : n]) map(tofrom : s)
  for (long *p = a; p < a + n; p++) s += *p;
  return s;
}
struct span { long *first; long *last; };
#pragma omp declare target
static void span_of(struct span *sp, long *a, int n) { sp->first = a; sp->last = a + n; }
static long sum(struct span *sp) { long s = 0; for (long *p = sp->first; p < sp->last; p++) s += *p; return s; }
#pragma omp end declare target
// CHECK-DAG: [OMPADAPT154] region 'stack_object@device_memory.c:[[#@LINE+3]]': the offload launch became an adaptive region
long stack_object(long *a, int n, struct node *out) {
  long s = 0;
#pragma omp target map(to : a[0 : n]) map(tofrom : s) map(from : out[0 : 1])
  {
    struct span sp;
    span_of(&sp, a, n);
    s = sum(&sp);
    out->next = 0;
  }
  return s;
}
