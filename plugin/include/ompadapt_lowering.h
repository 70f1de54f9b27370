/* ompadapt_lowering.h — injected by libompadapt.so ahead of every translation unit, after
 * ompadapt.h. It holds what the lowered directives call:
 *
 *   __ompadapt_api()          the runtime's entry points. If the program links the runtime
 *                             (-lompadapt_rt), its `ompadapt_rt_api` is used directly;
 *                             otherwise the runtime is loaded on first use from
 *                             $OMPADAPT_RUNTIME, or else from the directory the plugin was
 *                             loaded from (__OMPADAPT_DEFAULT_RUNTIME, defined by the plugin).
 *                             If that fails, one line on stderr says so and every region runs
 *                             its first variant: the program never stops because of ompadapt.
 *                             In secure-execution mode (setuid, setgid, file capabilities:
 *                             getauxval(AT_SECURE)) $OMPADAPT_RUNTIME is ignored and the
 *                             default runtime is loaded only if it is trusted (see
 *                             __ompadapt_untrusted), as glibc ignores LD_PRELOAD there.
 *   __ompadapt_api_load()     the loader behind it. Where the plugin defines
 *                             __OMPADAPT_PRECOMPILED_LOADER (a host target ompadapt was built
 *                             for, the ompadapt pass running, no LTO) it is only declared here:
 *                             it was compiled once, when ompadapt was built (pass/loader), and
 *                             the pass adds that code to the module as assembly in COMDAT
 *                             groups, so the linker keeps one copy and no translation unit pays
 *                             for compiling it. Elsewhere it is compiled here, without
 *                             optimisation.
 *   __ompadapt_launch_site()  marker that the ompadapt pass replaces by a CPU/offload dispatch,
 *                             with the launch's num_teams and thread_limit.
 *   __ompadapt_auto_features() features(auto): replaced by the pass with the region's automatic
 *                             features (0 without the pass).
 *   __ompadapt_team_invariant() whether a host region of zero-source-change mode may run its
 *                             variants: 1 where the pass shows it cannot observe its team, else 0
 *                             (also without the pass).
 *   __ompadapt_host_guard()   marker before the launch site of a region with a `cpu` variant:
 *                             the pass makes the stub's host path call
 *                             __ompadapt_host_enter()/__ompadapt_host_exit() around the host
 *                             version with the launch's map entries and deletes the marker.
 *   __ompadapt_check_output() the type check of model_output, in ompadapt's words
 *                             (diagnose_if: the error is at the model_output argument).
 *   __ompadapt_output<T>      (C++) model_output's conversion, as an assignment would do it.
 *   __ompadapt_omp_get_max_threads/teams()
 *                             the feature identifiers omp_num_threads, omp_num_teams.
 *   __ompadapt_team_size()    the team of a host region's variant: an absolute num_threads, a
 *                             share of the team the program would get, or that team.
 *
 * Everything is static inline or, where precompiled, only declared: a translation unit without
 * adaptive regions emits nothing but (where precompiled) the weak pointer to the default runtime.
 * libc functions are reached through asm labels so that these declarations never clash with
 * the program's own <dlfcn.h> or <stdlib.h>. */
#ifndef OMPADAPT_LOWERING_H
#define OMPADAPT_LOWERING_H

#ifdef __cplusplus
extern "C" {
#endif

#pragma weak ompadapt_rt_api

extern void *__ompadapt_libc_dlopen(const char *, int) __asm__("dlopen");
extern void *__ompadapt_libc_dlsym(void *, const char *) __asm__("dlsym");
extern char *__ompadapt_libc_dlerror(void) __asm__("dlerror");
extern char *__ompadapt_libc_getenv(const char *) __asm__("getenv");
extern long __ompadapt_libc_write(int, const void *, unsigned long) __asm__("write");
extern unsigned long __ompadapt_libc_getauxval(unsigned long) __asm__("getauxval");
extern char *__ompadapt_libc_realpath(const char *, char *) __asm__("realpath");
extern int __ompadapt_libc_statx(int, const char *, int, unsigned int, void *) __asm__("statx");

/* The leading fields of struct statx (<linux/stat.h>: one layout on every architecture, unlike
 * struct stat), padded to its 256 bytes. */
struct __ompadapt_statx {
  unsigned int mask, blksize;
  unsigned long long attributes;
  unsigned int nlink, uid, gid;
  unsigned short mode, spare0;
  unsigned long long rest[28];
};
typedef char __ompadapt_statx_is_256_bytes[sizeof(struct __ompadapt_statx) == 256 ? 1 : -1];

extern int __ompadapt_omp_get_max_threads(void) __asm__("omp_get_max_threads");
extern int __ompadapt_omp_get_max_teams(void) __asm__("omp_get_max_teams");
extern int __ompadapt_omp_in_parallel(void) __asm__("omp_in_parallel");
/* schedule variants of a parallel for: omp_sched_t is an enum, passed as int. */
extern void __ompadapt_omp_set_schedule(int, int) __asm__("omp_set_schedule");
extern void __ompadapt_omp_get_schedule(int *, int *) __asm__("omp_get_schedule");


/* model_output needs a modifiable lvalue of arithmetic type; `cls` is its
 * __builtin_classify_type (1 integer and C enum, 3 C++ enum, 4 bool, 8 real floating; 10 a
 * function, which C++ lowering tells apart from the pointer it decays to). */
static inline void __ompadapt_check_output(int cls)
    __attribute__((diagnose_if(cls == 5, "'model_output' needs a modifiable lvalue of arithmetic "
                                         "type, not a pointer or an array", "error")))
    __attribute__((diagnose_if(cls == 12 || cls == 13, "'model_output' needs a modifiable lvalue of "
                                                       "arithmetic type, not a struct, union or class",
                               "error")))
    __attribute__((diagnose_if(cls == 10, "'model_output' needs a modifiable lvalue of arithmetic "
                                          "type, not a function", "error")))
    __attribute__((diagnose_if(cls != 1 && cls != 3 && cls != 4 && cls != 5 && cls != 8 &&
                                   cls != 10 && cls != 12 && cls != 13,
                               "'model_output' needs a modifiable lvalue of arithmetic type",
                               "error"))) {
  (void)cls;
}

/* The loader: one symbol for every language, tied to the API version so that objects built by
 * different versions of ompadapt never share one. */
typedef char __ompadapt_loader_symbol_matches_api[OMPADAPT_API_VERSION == 6 ? 1 : -1];
#define __OMPADAPT_LOADER_SYMBOL __asm__("__ompadapt_v6_load_runtime")

#ifndef __OMPADAPT_DEFAULT_RUNTIME
#define __OMPADAPT_DEFAULT_RUNTIME 0
#endif

#ifdef __OMPADAPT_PRECOMPILED_LOADER
/* What the generated code calls, precompiled (see __ompadapt_api_load above): one call each.
 * The default runtime is this translation unit's weak definition (every translation unit the
 * plugin compiled has one; the loader reads whichever the linker kept). */
#define __OMPADAPT_SUPPORT(name) __asm__("__ompadapt_v6_" #name) __attribute__((visibility("hidden")))
extern const char *const __ompadapt_default_runtime __OMPADAPT_SUPPORT(default_runtime)
    __attribute__((weak)) = __OMPADAPT_DEFAULT_RUNTIME;
const struct ompadapt_api *__ompadapt_api(void) __OMPADAPT_SUPPORT(api);
void __ompadapt_begin(void **, const char *, long, long, long, const double *, int, ompadapt_ctx *)
    __OMPADAPT_SUPPORT(begin);
void __ompadapt_end(ompadapt_ctx *) __OMPADAPT_SUPPORT(end);
int __ompadapt_team_size(int, double, int) __OMPADAPT_SUPPORT(team_size);
#else
#ifdef __OMPADAPT_BUILDING_LOADER
/* pass/loader: compiled once, optimised for size; `inline` gives each function and the
 * fallback table its own COMDAT group (C++ vague linkage), `used` emits them. */
#define __OMPADAPT_ONCE inline __attribute__((used, noinline, cold, visibility("hidden")))
#define __OMPADAPT_FALLBACK inline __attribute__((used, visibility("hidden")))
#define __OMPADAPT_FALLBACK_TABLE inline __attribute__((visibility("hidden")))
#define __OMPADAPT_SUPPORT_FN inline __attribute__((used, visibility("hidden")))
/* libomp looks ompt_start_tool up by name: visible, one copy per link (a COMDAT group). */
#define __OMPADAPT_TOOL_FN inline __attribute__((used, noinline, cold, visibility("default")))
/* Every symbol carries the version (the fallback table is a member of the loader's). */
#define __OMPADAPT_HELPER(name) __asm__("__ompadapt_v6_" #name)
const struct ompadapt_api *__ompadapt_api_load(const char *, int) __OMPADAPT_LOADER_SYMBOL;
const char *__ompadapt_untrusted(const char *, char *) __OMPADAPT_HELPER(untrusted);
void __ompadapt_say(const char *) __OMPADAPT_HELPER(say);
void __ompadapt_fallback_begin(void **, const char *, long, long, long, const double *, int,
                               ompadapt_ctx *) __OMPADAPT_HELPER(fallback_begin);
void __ompadapt_fallback_end(ompadapt_ctx *) __OMPADAPT_HELPER(fallback_end);
void __ompadapt_fallback_begin_memo(void **, const char *, long, long, long, const double *, int, ompadapt_ctx *,
                                    struct ompadapt_memo *) __OMPADAPT_HELPER(fallback_begin_memo);
extern const unsigned long long __ompadapt_fallback_generation __OMPADAPT_HELPER(fallback_generation);
void __ompadapt_fallback_unlowered(const char *) __OMPADAPT_HELPER(fallback_unlowered);
void __ompadapt_fallback_unavailable(ompadapt_ctx *, int) __OMPADAPT_HELPER(fallback_unavailable);
void *__ompadapt_fallback_host_enter(ompadapt_ctx *, int, int, long long, const void *,
                                     const void *const *, int) __OMPADAPT_HELPER(fallback_host_enter);
void __ompadapt_fallback_host_exit(void *) __OMPADAPT_HELPER(fallback_host_exit);
void *__ompadapt_fallback_ompt_start_tool(unsigned int, const char *, void *(*)(unsigned int, const char *))
    __OMPADAPT_HELPER(fallback_ompt_start_tool);
extern const struct ompadapt_api __ompadapt_fallback_api __OMPADAPT_HELPER(fallback_api);
const struct ompadapt_api *__ompadapt_api(void) __OMPADAPT_HELPER(api);
void __ompadapt_begin(void **, const char *, long, long, long, const double *, int, ompadapt_ctx *)
    __OMPADAPT_HELPER(begin);
void __ompadapt_end(ompadapt_ctx *) __OMPADAPT_HELPER(end);
int __ompadapt_team_size(int, double, int) __OMPADAPT_HELPER(team_size);
extern const char *const __ompadapt_default_runtime __OMPADAPT_HELPER(default_runtime)
    __attribute__((weak, visibility("hidden")));
inline const struct ompadapt_api *__ompadapt_cached_api __OMPADAPT_HELPER(cached_api)
    __attribute__((visibility("hidden"))) = 0;
#undef __OMPADAPT_DEFAULT_RUNTIME
#define __OMPADAPT_DEFAULT_RUNTIME (&__ompadapt_default_runtime ? __ompadapt_default_runtime : 0)
#else
/* Code that runs once per process (loading the runtime) or only without a runtime: compiled
 * without optimisation, so that the optimiser's time goes to the program, not to these helpers
 * (they are emitted in every translation unit with an adaptive region). */
#define __OMPADAPT_ONCE static inline __attribute__((unused, noinline, cold, optnone))
#define __OMPADAPT_FALLBACK static inline __attribute__((unused))
#define __OMPADAPT_FALLBACK_TABLE static __attribute__((unused))
#define __OMPADAPT_SUPPORT_FN static inline __attribute__((always_inline, unused))
/* libomp looks ompt_start_tool up by name: a weak definition per translation unit, one kept. */
#define __OMPADAPT_TOOL_FN __attribute__((weak, noinline, cold, optnone))
#endif

__OMPADAPT_ONCE void __ompadapt_say(const char *s) {
  unsigned long n = 0;
  while (s[n]) ++n;
  (void)__ompadapt_libc_write(2, s, n);
}

/* Without a runtime: the region runs its fallback variant, which the generated code stores in
 * ctx->variant and ctx->value before this call (the first variant, or for an associated region
 * the one mapped to its primary's first; the plugin knows which), and records nothing. */
__OMPADAPT_ONCE void
__ompadapt_fallback_begin(void **slot, const char *spec, long min_train, long p1, long p2,
                          const double *features, int nfeatures, ompadapt_ctx *ctx) {
  (void)slot; (void)spec; (void)min_train; (void)p1; (void)p2; (void)features; (void)nfeatures;
  ctx->region = 0;
  ctx->t0 = 0;
  ctx->nfeatures = 0;
  ctx->kept = 0;
}
__OMPADAPT_FALLBACK void __ompadapt_fallback_end(ompadapt_ctx *ctx) { (void)ctx; }
__OMPADAPT_FALLBACK void __ompadapt_fallback_unlowered(const char *m) { (void)m; }
__OMPADAPT_FALLBACK void __ompadapt_fallback_unavailable(ompadapt_ctx *ctx, int r) {
  ctx->variant = r;
}
/* Without a runtime nothing copies device data: the offload runs instead of the host version. */
__OMPADAPT_FALLBACK void *__ompadapt_fallback_host_enter(ompadapt_ctx *ctx, int cpu, int r, long long device,
                                                        const void *kargs, const void *const *globals,
                                                        int nglobals) {
  (void)cpu; (void)device; (void)kargs; (void)globals; (void)nglobals;
  ctx->variant = r;
  return 0;
}
__OMPADAPT_FALLBACK void __ompadapt_fallback_host_exit(void *run) { (void)run; }
/* Without a runtime no tool: the one the process would have found next starts. */
__OMPADAPT_FALLBACK void *__ompadapt_fallback_ompt_start_tool(unsigned int omp_version, const char *runtime_version,
                                                             void *(*next)(unsigned int, const char *)) {
  return next ? next(omp_version, runtime_version) : 0;
}

/* Without a runtime the memo stays empty: begin_memo fills nothing. */
__OMPADAPT_FALLBACK void __ompadapt_fallback_begin_memo(void **slot, const char *spec, long min_train, long p1,
                                                       long p2, const double *features, int nfeatures,
                                                       ompadapt_ctx *ctx, struct ompadapt_memo *memo) {
  (void)memo;
  __ompadapt_fallback_begin(slot, spec, min_train, p1, p2, features, nfeatures, ctx);
}
/* No entry is ever valid for it: filled entries hold the runtime's generation (from 1). */
__OMPADAPT_FALLBACK_TABLE const unsigned long long __ompadapt_fallback_generation = 0;

/* The entry points without a runtime. */
__OMPADAPT_FALLBACK_TABLE const struct ompadapt_api __ompadapt_fallback_api = {
    OMPADAPT_API_VERSION,          __ompadapt_fallback_begin,       __ompadapt_fallback_end,
    __ompadapt_fallback_unlowered, __ompadapt_fallback_unavailable, __ompadapt_fallback_host_enter,
    __ompadapt_fallback_host_exit, __ompadapt_fallback_ompt_start_tool, __ompadapt_fallback_begin_memo,
    &__ompadapt_fallback_generation};

/* Secure-execution mode only: why the runtime at `path` may not be loaded (0: it may, and
 * `real` holds its canonical path, which is what gets loaded). Trusted means: an absolute path
 * that resolves to a regular file such that it and every directory above it are owned by root
 * and writable by neither group nor others, so no one but root can replace it between this
 * check and the dlopen. A runtime in a build tree owned by another user is refused. */
__OMPADAPT_ONCE const char *__ompadapt_untrusted(const char *path, char *real) {
  struct __ompadapt_statx st;
  unsigned long i, end;
  if (path[0] != '/')
    return "it is not an absolute path";
  if (!__ompadapt_libc_realpath(path, real))
    return "it cannot be resolved (missing?)";
  for (end = 0; real[end]; ++end) {
  }
  /* "/", every directory below it, then the file itself (i == end) */
  for (i = 0; i <= end; ++i) {
    unsigned long cut = i == 0 ? 1 : i;
    char saved;
    int rc;
    if (i < end && real[i] != '/')
      continue;
    saved = real[cut];
    real[cut] = 0;
    rc = __ompadapt_libc_statx(-100 /* AT_FDCWD */, real, 0x100 /* AT_SYMLINK_NOFOLLOW */,
                               0x1 | 0x2 | 0x8 /* STATX_TYPE | STATX_MODE | STATX_UID */, &st);
    real[cut] = saved;
    if (rc != 0)
      return "it cannot be checked (statx failed)";
    if ((st.mode & 0170000) != (i == end ? 0100000 /* S_IFREG */ : 0040000 /* S_IFDIR */))
      return "it changed while being checked";
    if (st.uid != 0)
      return i == end ? "it is not owned by root" : "a directory above it is not owned by root";
    if (st.mode & 022)
      return i == end ? "it is writable by group or others"
                      : "a directory above it is writable by group or others";
  }
  return 0;
}

/* Out of line and cold: the path buffer lives only while loading, not in every region's frame.
 * `quiet` (the OMPT tool's early load): no message, and NULL instead of the fallback table when
 * no runtime can be used (the first region then loads it again and says why). */
__OMPADAPT_ONCE const struct ompadapt_api *__ompadapt_api_load(const char *default_runtime, int quiet) {
  const char *path = 0;
  char real[4096];
  void *lib;
  const struct ompadapt_api *api;
  int secure;
  if (&ompadapt_rt_api != 0)
    return &ompadapt_rt_api;
  secure = __ompadapt_libc_getauxval(23 /* AT_SECURE */) != 0;
  if (!secure)
    path = __ompadapt_libc_getenv("OMPADAPT_RUNTIME");
  if (!path || !*path)
    path = default_runtime;
  if (!path || !*path) {
    if (quiet)
      return 0;
    __ompadapt_say(secure ? "ompadapt: secure-execution mode (setuid, setgid or file capabilities): "
                            "OMPADAPT_RUNTIME is ignored and no runtime was installed beside the "
                            "plugin; link -lompadapt_rt; adaptive regions run their first variant\n"
                          : "ompadapt: no runtime library: set OMPADAPT_RUNTIME or link "
                            "-lompadapt_rt; adaptive regions run their first variant\n");
    return &__ompadapt_fallback_api;
  }
  if (secure) {
    const char *why = __ompadapt_untrusted(path, real);
    if (why) {
      if (quiet)
        return 0;
      __ompadapt_say("ompadapt: secure-execution mode (setuid, setgid or file capabilities): "
                     "OMPADAPT_RUNTIME is ignored and the runtime ");
      __ompadapt_say(path);
      __ompadapt_say(" is not loaded: ");
      __ompadapt_say(why);
      __ompadapt_say(" (link -lompadapt_rt, or install ompadapt as root); adaptive regions run "
                     "their first variant\n");
      return &__ompadapt_fallback_api;
    }
    path = real;
  }
  lib = __ompadapt_libc_dlopen(path, 2 /* RTLD_NOW */);
  api = lib ? (const struct ompadapt_api *)__ompadapt_libc_dlsym(lib, "ompadapt_rt_api_v6") : 0;
  if (!api || api->version != OMPADAPT_API_VERSION) {
    const char *why = lib ? (api ? "incompatible API version" : "no ompadapt_rt_api_v6 symbol (a runtime for another API version?)")
                          : __ompadapt_libc_dlerror();
    if (quiet)
      return 0;
    __ompadapt_say("ompadapt: cannot use the runtime library ");
    __ompadapt_say(path);
    __ompadapt_say(": ");
    __ompadapt_say(why ? why : "unknown error");
    __ompadapt_say("; adaptive regions run their first variant (set OMPADAPT_RUNTIME to "
                   "libompadapt_rt.so, or link -lompadapt_rt)\n");
    return &__ompadapt_fallback_api;
  }
  return api;
}

/* The runtime's entry points, loaded on first use. */
__OMPADAPT_SUPPORT_FN const struct ompadapt_api *__ompadapt_api(void) {
#ifdef __OMPADAPT_BUILDING_LOADER
#define __OMPADAPT_CACHE __ompadapt_cached_api
#else
  static const struct ompadapt_api *cached;
#define __OMPADAPT_CACHE cached
#endif
  const struct ompadapt_api *a = __atomic_load_n(&__OMPADAPT_CACHE, __ATOMIC_ACQUIRE);
  if (__builtin_expect(a == 0, 0)) {
    a = __ompadapt_api_load(__OMPADAPT_DEFAULT_RUNTIME, 0);
    __atomic_store_n(&__OMPADAPT_CACHE, a, __ATOMIC_RELEASE);
  }
  return a;
#undef __OMPADAPT_CACHE
}

/* The begin and end of an adaptive region's execution (ompadapt.h). */
#ifdef __OMPADAPT_BUILDING_LOADER
/* Precompiled, the first begin (which loads the runtime) is a call of its own, so that every
 * later one is a load and a jump, with no registers saved for the load. */
void __ompadapt_first_begin(void **, const char *, long, long, long, const double *, int, ompadapt_ctx *)
    __OMPADAPT_HELPER(first_begin);
__OMPADAPT_ONCE void __ompadapt_first_begin(void **slot, const char *spec, long min_train, long p1, long p2,
                                            const double *features, int nfeatures, ompadapt_ctx *ctx) {
  __ompadapt_api()->begin(slot, spec, min_train, p1, p2, features, nfeatures, ctx);
}
/* The program's memo (ompadapt.h, struct ompadapt_memo): per thread, one table per shared
 * object (one copy per link, like the rest of the loader). Only the precompiled begin has it:
 * elsewhere begin is inlined into every region, whose code would grow. */
inline __thread struct ompadapt_memo __ompadapt_memo_table[1 << OMPADAPT_MEMO_BITS] __OMPADAPT_HELPER(memo_table)
    __attribute__((visibility("hidden")));
static inline unsigned long long __ompadapt_bits(double d) {
  unsigned long long b;
  __builtin_memcpy(&b, &d, sizeof b);
  return b;
}
/* The thread's entry for the call site's vector: its slot, count and first and last feature's
 * raw bits, mixed (the entry's key decides a match; the index only spreads). */
static inline struct ompadapt_memo *__ompadapt_memo_entry(void **slot, const double *features, unsigned n) {
  unsigned long long first = n ? __ompadapt_bits(features[0]) : 0, last = n ? __ompadapt_bits(features[n - 1]) : 0;
  unsigned long long h = (unsigned long long)slot ^ first ^ (last << 29 | last >> 35) ^ n;
  h ^= h >> 32;
  return &__ompadapt_memo_table[(h * 0x9E3779B97F4A7C15ull) >> (64 - OMPADAPT_MEMO_BITS)];
}
/* A repeat the memo may start: the entry's key, its generation the runtime's, and not the
 * thread's next timed execution. Starts it as the runtime would (counted now). The features
 * are compared and copied unrolled (at most OMPADAPT_MEMO_FEATURES); a miss leaves the copy
 * to the runtime's begin, which makes its own. */
#define __OMPADAPT_MEMO_FEATURE(i)                                                                         \
  case i + 1:                                                                                              \
    if (e->features[i] != __ompadapt_bits(features[i]))                                                   \
      return 0;                                                                                            \
    ctx->features[i] = features[i];                                                                      \
    __attribute__((fallthrough));
typedef char __ompadapt_memo_unrolled_for[OMPADAPT_MEMO_FEATURES == 4 ? 1 : -1];
static inline int __ompadapt_memo_start(const unsigned long long *generation, void **slot,
                                        const double *features, unsigned n, ompadapt_ctx *ctx) {
  struct ompadapt_memo *e = __ompadapt_memo_entry(slot, features, n);
  unsigned left;
  if (e->site != slot || e->nfeatures != (int)n || e->generation != __atomic_load_n(generation, __ATOMIC_ACQUIRE))
    return 0;
  switch (n) {
    __OMPADAPT_MEMO_FEATURE(3)
    __OMPADAPT_MEMO_FEATURE(2)
    __OMPADAPT_MEMO_FEATURE(1)
    __OMPADAPT_MEMO_FEATURE(0)
  default:
    break;
  }
  /* the thread's own counters in the runtime: written by this thread only */
  left = __atomic_load_n(e->sample_left, __ATOMIC_RELAXED);
  if (left == 0)
    return 0;
  __atomic_store_n(e->sample_left, left - 1, __ATOMIC_RELAXED);
  __atomic_store_n(e->count, __atomic_load_n(e->count, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
  ctx->region = e->region;
  ctx->t0 = OMPADAPT_MEMO_COUNTED;
  ctx->variant = e->variant;
  ctx->nfeatures = (int)n;
  ctx->value = e->value;
  ctx->kept = e->kept;
  return 1;
}
#undef __OMPADAPT_MEMO_FEATURE
/* Not a repeat the memo may start: the runtime's begin, which fills the entry where it may. */
void __ompadapt_begin_miss(void **, const char *, long, long, long, const double *, int, ompadapt_ctx *)
    __OMPADAPT_HELPER(begin_miss);
__OMPADAPT_SUPPORT_FN __attribute__((noinline)) void
__ompadapt_begin_miss(void **slot, const char *spec, long min_train, long p1, long p2, const double *features,
                      int nfeatures, ompadapt_ctx *ctx) {
  const struct ompadapt_api *a = __atomic_load_n(&__ompadapt_cached_api, __ATOMIC_RELAXED);
  struct ompadapt_memo *e = __ompadapt_memo_entry(slot, features, (unsigned)nfeatures);
  a->begin_memo(slot, spec, min_train, p1, p2, features, nfeatures, ctx, e);
}
#endif
__OMPADAPT_SUPPORT_FN void __ompadapt_begin(void **slot, const char *spec, long min_train, long p1, long p2,
                                            const double *features, int nfeatures, ompadapt_ctx *ctx) {
#ifdef __OMPADAPT_BUILDING_LOADER
  const struct ompadapt_api *a = __atomic_load_n(&__ompadapt_cached_api, __ATOMIC_ACQUIRE);
  if (__builtin_expect(a == 0, 0)) {
    __ompadapt_first_begin(slot, spec, min_train, p1, p2, features, nfeatures, ctx);
    return;
  }
  /* (the generated code always passes its slot and, with features, their array; a runtime of
   * one's own that keeps no memo leaves memo_generation NULL) */
  if ((unsigned)nfeatures <= OMPADAPT_MEMO_FEATURES && a->memo_generation) {
    if (__ompadapt_memo_start(a->memo_generation, slot, features, (unsigned)nfeatures, ctx))
      return;
    /* (a call of its own with the same arguments: a jump, and the memo's path keeps no
     * register for it) */
    __ompadapt_begin_miss(slot, spec, min_train, p1, p2, features, nfeatures, ctx);
    return;
  }
  a->begin(slot, spec, min_train, p1, p2, features, nfeatures, ctx);
#else
  __ompadapt_api()->begin(slot, spec, min_train, p1, p2, features, nfeatures, ctx);
#endif
}
__OMPADAPT_SUPPORT_FN void __ompadapt_end(ompadapt_ctx *ctx) {
#ifdef __OMPADAPT_BUILDING_LOADER
  /* started by the memo, which counted it: nothing to record */
  if (ctx->t0 == OMPADAPT_MEMO_COUNTED)
    return;
#endif
  __ompadapt_api()->end(ctx);
}

/* The team size of a host parallel region's variant: `absolute` threads (num_threads=N, as the
 * user asked), else `share` of the team the `program` asked for — its num_threads clause, else
 * omp_get_max_threads() (threads=F: max(1, round(F * program)), so that threads=1 is the region
 * as written and no share exceeds what programs size per-thread buffers by), else the program's.
 * (abi/src/kinds.rs, team_size, is the same formula.) */
__OMPADAPT_SUPPORT_FN int __ompadapt_team_size(int absolute, double share, int program) {
  if (absolute > 0)
    return absolute;
  if (share > 0) {
    int n = (int)(share * program + 0.5);
    n = n < 1 ? 1 : n;
    return n < program ? n : program;
  }
  return program;
}

#ifdef __OMPADAPT_BUILDING_LOADER
/* A host parallel region of pass-only mode (and of zero-source-change mode, which hands its
 * regions to the pass): one constant per region, written by pass/src/host_regions.rs. `teams`
 * holds, for each variant and then once more for the region as written, the team it asks for:
 * -N is N threads (`serial` is -1), a fraction F in (0, 1] that share of the program's team, 0
 * the program's team. */
struct __ompadapt_team_region {
  void **slot;
  /* the features that are constants (pass/src/region_features.rs): feature i is constants[i]
   * where bit i of `dynamic` is clear, else the region's (NULL: none is a constant) */
  const double *constants;
  unsigned dynamic;
  int nvariants;
  double teams[];
};
/* libomp's, weak: the loader goes into every translation unit with an adaptive region, also
 * into programs that do not link libomp (which never call what uses these). */
extern int __ompadapt_kmpc_global_thread_num(void *) __asm__("__kmpc_global_thread_num") __attribute__((weak));
extern void __ompadapt_kmpc_push_num_threads(void *, int, int) __asm__("__kmpc_push_num_threads")
    __attribute__((weak));
extern int __ompadapt_omp_get_max_threads(void) __attribute__((weak));
void __ompadapt_enter_team(const struct __ompadapt_team_region *, const char *, const double *, int,
                           ompadapt_ctx *, void *, int, ...) __OMPADAPT_HELPER(enter_team);
/* Everything a host region runs before its fork, in one call, so that each region's own code is
 * this call, the fork as the program wrote it and the end: begin (the region's context starts
 * as written, as in the frontend's lowering) with the region's features (its table's constants,
 * the others from `features` or, where that is NULL, the doubles after `program`, in the order of
 * their slots), then the team of the variant the runtime chose,
 * pushed for the fork that follows (`program`: the region's num_threads clause, INT_MIN where it
 * has none: omp_get_max_threads()). `serial` is a team of one, which libomp runs as it runs
 * `if(0)`: serialized, on this thread. */
__OMPADAPT_SUPPORT_FN void __ompadapt_enter_team(const struct __ompadapt_team_region *r, const char *spec,
                                                 const double *features, int nfeatures, ompadapt_ctx *ctx,
                                                 void *loc, int program, ...) {
  unsigned v;
  double t;
  int team;
  double merged[OMPADAPT_MAX_FEATURES];
  int i;
  if (r->constants || !features) {
    __builtin_va_list passed;
    __builtin_va_start(passed, program);
    for (i = 0; i < nfeatures && i < OMPADAPT_MAX_FEATURES; i++)
      merged[i] = !(r->dynamic >> i & 1) ? r->constants[i] : features ? features[i] : __builtin_va_arg(passed, double);
    __builtin_va_end(passed);
    features = merged;
  }
  ctx->variant = -1;
  ctx->value = 0;
  __ompadapt_begin(r->slot, spec, -1, -1, -1, features, nfeatures, ctx);
  v = (unsigned)ctx->variant;
  t = r->teams[v < (unsigned)r->nvariants ? v : (unsigned)r->nvariants];
  if (program == (-2147483647 - 1)) /* INT_MIN: ompadapt_abi::markers::NO_NUM_THREADS_CLAUSE */
    program = __ompadapt_omp_get_max_threads();
  team = t < 0 ? __ompadapt_team_size(-(int)t, 0, program) : __ompadapt_team_size(0, t, program);
  __ompadapt_kmpc_push_num_threads(loc, __ompadapt_kmpc_global_thread_num(loc), team);
}
#endif

/* OMPT: libomp starts a tool once, when it initialises, through the first ompt_start_tool of the
 * process (this one, before libomp's own weak definition). In a program that offloads
 * (libomptarget in the process) it loads the runtime, quietly, and starts the runtime's tool,
 * which learns the extent of every device mapping from libomptarget's data operations (what the
 * cpu variant copies) and starts beside itself the tool the process would have had: the next
 * ompt_start_tool (a preloaded tool's; libomp's own finds none), else OMP_TOOL_LIBRARIES'. A
 * program that does not offload gets exactly that next tool (and no cost); so does one whose
 * runtime cannot be loaded. The C name differs from the symbol so that it never clashes with
 * omp-tools.h's declaration. */
typedef void *(*__ompadapt_start_tool_t)(unsigned int, const char *);
__OMPADAPT_TOOL_FN void *__ompadapt_ompt_start_tool(unsigned int, const char *) __asm__("ompt_start_tool");
__OMPADAPT_TOOL_FN void *__ompadapt_ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  __ompadapt_start_tool_t next = (__ompadapt_start_tool_t)__ompadapt_libc_dlsym((void *)-1 /* RTLD_NEXT */, "ompt_start_tool");
  const struct ompadapt_api *a = 0;
  if (__ompadapt_libc_dlsym((void *)0 /* RTLD_DEFAULT */, "__tgt_target_kernel"))
    a = __ompadapt_api_load(__OMPADAPT_DEFAULT_RUNTIME, 1);
  if (!a)
    return next ? next(omp_version, runtime_version) : 0;
  return a->ompt_start_tool(omp_version, runtime_version, next);
}
#endif /* __OMPADAPT_PRECOMPILED_LOADER */

/* The launch of the target construct that follows: the ompadapt pass turns it into the
 * dispatch stub (use_host: run the host version; num_teams, thread_limit: set in the launch when
 * non-zero) and deletes this call. If the pass did not run, the runtime warns once when a
 * variant needed it. */
static inline __attribute__((noinline)) void __ompadapt_launch_site(int use_host, int num_teams, int thread_limit,
                                                                    const char *model) {
  if (use_host || num_teams || thread_limit)
    __ompadapt_api()->unlowered_offload_site(model);
}

/* features(auto): the ompadapt pass replaces this call by the region's automatic features
 * (loop trip counts sliced to this point, bytes_mapped, static features of the region's code):
 * it stores up to `cap` values into out[], points *spec at the descriptor followed by
 * `;auto_features=` with their names and returns their number. Without the pass: no automatic features, the program still runs. */
static inline __attribute__((noinline)) int __ompadapt_auto_features(double *out, int cap, const char **spec,
                                                                     const char *model, const char *loops) {
  (void)out; (void)cap; (void)spec; (void)model; (void)loops;
  return 0;
}

/* A host parallel region of zero-source-change mode runs its variants (the runtime's begin and
 * end are called) only where this returns non-zero. The ompadapt pass replaces the call by 1
 * where its analysis shows that nothing the region runs can observe its team (the thread's
 * number, the team's size, thread-local data, code it cannot see, an effect every thread has),
 * else by 0 with a remark saying why. Without the pass: 0, the region runs as written. */
static inline __attribute__((noinline)) int __ompadapt_team_invariant(const char *model) {
  (void)model;
  return 0;
}

/* The `cpu` variant of an offload (see ompadapt.h, ompadapt_host_enter/exit): the stub the
 * ompadapt pass builds calls __ompadapt_host_enter(ctx, cpu, replacement, device, kernel_args)
 * on its host path with the launch's device and KernelArgsTy (and the `declare target` variables
 * the kernel reaches, as (start, end) pairs), runs the host version only when
 * it returns non-NULL (else the launch: the runtime has switched the execution to
 * `replacement`), and passes what it returned to __ompadapt_host_exit after the host version.
 * The runtime brings device data in, saves and restores host bytes, so that the host version
 * ends in exactly the state the offload would leave. */
static inline __attribute__((unused, noinline)) void *
__ompadapt_host_enter(ompadapt_ctx *ctx, int cpu, int replacement, long long device, const void *kernel_args,
                      const void *const *globals, int nglobals) {
  return __ompadapt_api()->host_enter(ctx, cpu, replacement, device, kernel_args, globals, nglobals);
}
static inline __attribute__((unused, noinline)) void __ompadapt_host_exit(void *run) {
  if (run)
    __ompadapt_api()->host_exit(run);
}

/* Before the launch site of a region with a `cpu` variant (variant index `cpu`; `replacement`
 * runs when the host version cannot stand in for the launch, -1: none recorded). The ompadapt
 * pass pairs it with the launch, calls the two functions above around the host version and
 * deletes it. Without the pass the cpu variant would run the offload: with no launch
 * arguments the runtime reports it unavailable (and this body keeps both functions emitted for
 * the pass). */
static inline __attribute__((unused, noinline)) void __ompadapt_host_guard(ompadapt_ctx *ctx, int cpu, int replacement,
                                                                   const char *model) {
  (void)model;
  __ompadapt_host_exit(__ompadapt_host_enter(ctx, cpu, replacement, -1, 0, 0, 0));
}

#ifdef __cplusplus
}

/* model_output in C++: the value converted to the lvalue's type. For a type that is not
 * arithmetic (a function, an array, a pointer, a class), __ompadapt_check_output has reported
 * the error; the value then goes to __ompadapt_sink instead of the lvalue
 * (`__builtin_choose_expr(arithmetic, lvalue, __ompadapt_sink) = convert(value)`), so that no
 * second error follows. */
template <class T, bool = __is_arithmetic(T) || __is_enum(T)> struct __ompadapt_output {
  static const bool arithmetic = true;
  static T convert(double v) { return (T)v; }
};
template <class T> struct __ompadapt_output<T, false> {
  static const bool arithmetic = false;
  static double convert(double v) { return v; }
};
static double __ompadapt_sink __attribute__((unused));
#endif
#endif /* OMPADAPT_LOWERING_H */
