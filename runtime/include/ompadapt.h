/* ompadapt.h — C interface of the ompadapt runtime (libompadapt_rt).
 *
 * Programs compiled with `clang-19 -fplugin=libompadapt.so` never need to include this header:
 * the plugin injects it and lowers the adaptation directives into calls of this API. It is
 * public so that the API can be called by hand and so that programs can link -lompadapt_rt.
 * Programs written for LLNL Apollo's C API link against the same library: see apollo.h.
 *
 * Contract between the lowering and the runtime (version OMPADAPT_API_VERSION):
 *   - every execution of an adaptive region owns one ompadapt_ctx, on the caller's stack;
 *     nothing about "the current execution" is kept in the runtime, so one region may run
 *     concurrently on many threads;
 *   - ompadapt_begin() finds or creates the region (cached in *slot), copies the features,
 *     selects a variant (exploration or model) and starts the clock;
 *   - ompadapt_end() stops the clock and records the sample.
 *
 * Calling it by hand (one region, any number of threads):
 *     static void *slot;                       // one per call site, zero-initialised
 *     ompadapt_ctx c;
 *     double f[1] = {(double)n};
 *     ompadapt_begin(&slot, "ompadapt1;model=mm;variants=cpu,gpu", -1, -1, -1, f, 1, &c);
 *     if (c.variant == 0) run_on_cpu(n); else run_on_gpu(n);
 *     ompadapt_end(&c);
 *
 * Thread safety: every function may be called from any thread, concurrently, for the same or
 * different regions; a context belongs to one execution and must not be shared while it runs.
 *
 * Failure: no function aborts or unwinds into the caller. A malformed descriptor, a NULL spec
 * or an internal error gives variant 0 (one warning line on stderr, `ompadapt: warning: ...`),
 * and end on such a context records nothing.
 *
 * Costs (measured by `cargo bench -p ompadapt-benchmarks`, figures in docs/performance.md): after
 * training, begin + end are two clock reads, one model inference on the features (a few ns for
 * a depth-2 tree) and no lock, allocation or system call; while exploring, begin and end each
 * take the region's lock briefly; the end that completes min_train trains the model before
 * returning (microseconds for trees, a fraction of a millisecond for logistic regression). The
 * first begin at a call site parses the descriptor and creates or finds the region (a lock and
 * a hash lookup; also loads the region's saved data, see OMPADAPT_DIR).
 */
#ifndef OMPADAPT_H
#define OMPADAPT_H

#ifdef __cplusplus
extern "C" {
#endif

#define OMPADAPT_API_VERSION 6
#define OMPADAPT_MAX_FEATURES 16

/* One execution of an adaptive region. Fields are read by generated code (variant, value);
 * the rest is private to the runtime. */
typedef struct ompadapt_ctx {
  void *region;               /* runtime region; NULL when the runtime is unavailable */
  unsigned long long t0;      /* private: when and how the execution started (runtime) */
  int variant;                /* index of the selected variant, in declaration order */
  int nfeatures;              /* number of valid entries in features */
  double value;               /* numeric value of the variant; its index if categorical */
  double features[OMPADAPT_MAX_FEATURES]; /* copied at begin; past nfeatures: runtime scratch */
  const char *instance; /* (version 4) read by begin only when the descriptor says instanced=1:
                         * the __PRETTY_FUNCTION__ of the template instantiation the region is
                         * in, which names it (one region per instantiation) */
  void *kept;           /* (version 5) private: what end records into, written by begin */
} ompadapt_ctx;

/* The functions that take a context carry the version of its layout in their symbols: a
 * program built for another layout of ompadapt_ctx fails to link or load against this runtime,
 * or (generated code, which loads the runtime itself) runs its regions' first variant with one
 * line saying why, instead of handing the runtime a context of the wrong size. Version 6 kept
 * version 5's context, so these keep their `_v5` symbols and programs built against version 5
 * still link; the table below carries version 6 (it grew). */
#define __OMPADAPT_V(name) __asm__(#name "_v5")

/* Region descriptor ("spec"), produced by the plugin, one line of ';'-separated fields:
 *   ompadapt1;model=NAME;loc=FILE:LINE;features=F1,F2;variants=V1,V2;values=X1,X2;
 *   numeric=0|1;model_type=auto|dtree|rfc|logistic
 * `model_type=auto` (or no model_type): the runtime picks its model by cross-validated regret.
 * `features` holds the source text of each feature, `values` the numeric value of each
 * variant (indices for categorical variants); names and text are percent-encoded where they
 * contain '%', ';' or ','. A region declared with `declare adaptation` adds, all optional:
 *   feature_ranges=LO:HI,...    declared range per feature (empty: none); executions outside
 *                               are counted in the report
 *   min_sample_points=N,...     per feature; without min_train the region trains after
 *                               (product of them) x (number of variants) samples
 *   use_model=P;variant_mapping=I,...[;primary=SPEC]
 *                               an associated region: ompadapt_begin gets P's features and
 *                               sets `variant` to the index mapped to P's decision (the
 *                               number of variants when none is), records nothing
 * features(auto) adds, appended by the ompadapt pass to the plugin's text:
 *   auto_features=N1,N2         names of the automatic features, read as if `features` listed
 *                               them after its own (their values follow the explicit ones)
 * Up to 1024 variants. min_train, model_param1 and model_param2 come from min_train_data(...) and
 * model_type(kind, p1, p2); -1 means "not given, use the default". */

/* Starts one execution of the region described by `spec` and selects its variant.
 *   slot      per-call-site cache of the region (a `void *` initialised to NULL, written only
 *             by the runtime, atomically); NULL: look the region up by `spec` every time
 *   spec      the region descriptor above (NULL or malformed: variant 0, one warning);
 *             regions are identified by `model=`: call sites naming one model share it
 *   min_train training samples before the model trains: distinct (feature vector, variant)
 *             pairs measured OMPADAPT_REPEATS times (default 1, as Apollo counts them);
 *             < 1: the number of variants
 *   model_param1/2  model_type parameters: dtree depth (default 2); rfc trees, depth (10, 2)
 *             (OMPADAPT_MODEL overrides the model, for every region or per region, e.g.
 *             `dtree,3;mm:logistic`; models dtree[,depth], rfc[,trees[,depth]], logistic)
 *   features  nfeatures doubles (at most OMPADAPT_MAX_FEATURES are used); NULL if none
 *   ctx       filled: variant, value, the copied features and the runtime's private fields
 * Thread-safe. Cost: see the top of this file (trained: lock-free, allocation-free). */
void ompadapt_begin(void **slot, const char *spec, long min_train, long model_param1, long model_param2,
                    const double *features, int nfeatures, ompadapt_ctx *ctx) __OMPADAPT_V(ompadapt_begin);

/* Ends the execution started on `ctx`: stops its clock and records the time for its feature
 * vector and variant (while exploring, and after training for monitoring). May train the
 * region's model when this sample completes min_train. NULL ctx, or a context whose begin
 * failed: nothing. Thread-safe. */
void ompadapt_end(ompadapt_ctx *ctx) __OMPADAPT_V(ompadapt_end);

/* Called only when the ompadapt pass did not run over a region marked for CPU/offload
 * dispatch: warns once that the `cpu` variant of MODEL runs the offload. Thread-safe; after
 * the first call per model, a lock and a set lookup. */
void ompadapt_unlowered_offload_site(const char *model);

/* The variant selected on `ctx` cannot run in this process. The region marks the variant
 * unavailable for the rest of the run (exploration, models and pins never select it again;
 * the report lists it), says so once on stderr, and the execution continues as variant
 * `replacement`: ctx->variant and ctx->value are set to it and ompadapt_end records the time
 * there (-1: ctx->variant = -1 and nothing is recorded). The caller then runs that variant.
 * Thread-safe; the first call per region and variant takes the region's lock (and may
 * retrain), later ones only the flag. (API version 2.) */
void ompadapt_variant_unavailable(ompadapt_ctx *ctx, int replacement) __OMPADAPT_V(ompadapt_variant_unavailable);

/* The `cpu` variant of an offloading construct (API version 3): called by the dispatch stub the
 * ompadapt pass builds, around clang's host version of the kernel, so that it ends in exactly
 * the state the offload would leave. `kernel_args` is the launch's KernelArgsTy, `device` its
 * device argument (-1: the default device). ompadapt_host_enter saves the host bytes the
 * offload would not change and brings the device copy of present storage into host memory;
 * it returns what ompadapt_host_exit takes after the host version ran (which sends present
 * storage back and restores the saved bytes), or NULL when the host version cannot stand in
 * for the launch (a pointer mapped nowhere, e.g. from omp_target_alloc): then it has done what
 * ompadapt_variant_unavailable(ctx, replacement) does and the caller launches the offload.
 * `globals` holds `nglobals` (start, end) pairs: the `declare target` variables the kernel
 * reaches, whose device copies the host version uses too. */
void *ompadapt_host_enter(ompadapt_ctx *ctx, int cpu, int replacement, long long device,
                          const void *kernel_args, const void *const *globals, int nglobals)
    __OMPADAPT_V(ompadapt_host_enter);
void ompadapt_host_exit(void *run);

/* The runtime's OMPT tool (API version 4): what the generated code's ompt_start_tool calls while
 * libomp initialises in a program that offloads. The tool records the extent of every device
 * mapping from libomptarget's data operations — what ompadapt_host_enter copies — and starts
 * beside itself the tool `next` starts (the ompt_start_tool the process would have found next;
 * NULL: none), else the first of OMP_TOOL_LIBRARIES that starts. Returns an
 * ompt_start_tool_result_t * for libomp. A runtime of one's own that forwards
 * ompadapt_host_enter forwards this too. */
void *ompadapt_ompt_start_tool(unsigned int omp_version, const char *runtime_version,
                               void *(*next)(unsigned int, const char *));

/* ---- Explicit control: training and persistence (called by hand; not in ompadapt_api) ---- */

/* Trains region MODEL (every region when NULL) now, on what has been measured, even before
 * min_train_data is reached: the decided feature vectors, else every vector with all variants
 * measured. Returns the number of regions trained (0: nothing could be trained yet).
 * With a runtime built with the `mpi` feature and a program running under MPI with more than
 * one process, it first pools the measurements of every rank (one allgather for all regions),
 * so every rank trains the same model: then it is a collective over MPI_COMM_WORLD, to be
 * called by every rank, from one thread, at the same point. */
int ompadapt_train(const char *model);

/* Writes what every region learned since the previous save to $OMPADAPT_DIR (the exit
 * handler does too; call it where exit handlers may not run, e.g. before MPI_Abort or in a
 * program that ends with _exit). Returns the number of files written. In secure-execution
 * mode (below) it writes only into a directory named with ompadapt_set_dir. */
int ompadapt_save(void);

/* Names the directory learned data is loaded from and saved to (instead of $OMPADAPT_DIR,
 * default ./.ompadapt). Call it before the first adaptive region runs (first thing in main):
 * regions load their data when they are created. Returns 0, or -1 with one line on stderr
 * (called too late, NULL or empty, or relative in secure-execution mode).
 *
 * Secure-execution mode (the program is setuid, setgid or has file capabilities:
 * getauxval(AT_SECURE) != 0): the runtime reads no OMPADAPT_ variable, writes no report, and
 * loads and saves learned data only in the directory the program names here, which must be an
 * absolute path; without it, what regions learn stays in memory. Programs calling this,
 * ompadapt_train or ompadapt_save link the runtime (-lompadapt_rt). */
int ompadapt_set_dir(const char *dir);

/* ---- The program's memo (API version 6; private to the generated code and the runtime) ----
 * The precompiled begin of the generated code keeps, per thread, a small table of recent
 * trained executions: one entry per (call site, raw feature bits), direct-mapped. A repeat
 * whose entry is still valid (its generation is the runtime's current one) starts the
 * execution without calling the runtime: it counts it, steps the thread's sampling countdown
 * and fills the context as the runtime would, with t0 = OMPADAPT_MEMO_COUNTED, which `end`
 * recognises as an execution already counted. Every other execution (a miss, a timed sample
 * when the countdown reaches 0, more than OMPADAPT_MEMO_FEATURES features) calls
 * `begin_memo`, which fills the entry where the runtime's own memo would start the same
 * execution again. The runtime bumps the generation whenever a decision such an entry holds
 * may change (a published model, a drift, a vector that starts exploring, a variant made
 * unavailable, a pin, tracing or the data-movement tool starting). */
#define OMPADAPT_MEMO_FEATURES 4
#define OMPADAPT_MEMO_BITS 6 /* 64 entries per thread and shared object */
#define OMPADAPT_MEMO_COUNTED 0x6000000000000000ULL /* a decided execution counted at begin */
struct ompadapt_memo {
  const void *site;                /* the call site's slot (0: empty) */
  unsigned long long generation;   /* the runtime's generation when filled */
  int nfeatures, variant;
  double value;
  void *region, *kept;             /* what the context gets */
  unsigned long long *count;       /* the thread's count of (vector, variant) */
  unsigned int *sample_left;       /* the thread's countdown to its next timed execution */
  unsigned long long features[OMPADAPT_MEMO_FEATURES]; /* raw bits */
};

/* The same entry points as a table: generated code reaches the runtime through it, whether
 * the runtime was linked (-lompadapt_rt) or loaded on first use beside the plugin (dlopen +
 * dlsym("ompadapt_rt_api_v6"); check `version` == OMPADAPT_API_VERSION before use). Immutable.
 * The runtime also exports version 5's table (`ompadapt_rt_api_v5`, the fields up to
 * ompt_start_tool), so programs built by the previous lowering keep working. */
struct ompadapt_api {
  unsigned int version; /* OMPADAPT_API_VERSION */
  void (*begin)(void **slot, const char *spec, long min_train, long model_param1, long model_param2,
                const double *features, int nfeatures, ompadapt_ctx *ctx);
  void (*end)(ompadapt_ctx *ctx);
  void (*unlowered_offload_site)(const char *model);
  void (*variant_unavailable)(ompadapt_ctx *ctx, int replacement); /* since version 2 */
  void *(*host_enter)(ompadapt_ctx *ctx, int cpu, int replacement, long long device,
                      const void *kernel_args, const void *const *globals,
                      int nglobals);                                   /* since version 3 */
  void (*host_exit)(void *run);                                       /* since version 3 */
  /* since version 4: starts the runtime's OMPT tool, which learns the extent of every device
   * mapping from libomptarget's data operations (what the cpu variant copies); `next` is the
   * ompt_start_tool the process would have found next (NULL: none), which it starts beside
   * itself. Called by the generated code's ompt_start_tool while libomp initialises; returns
   * an ompt_start_tool_result_t *. */
  void *(*ompt_start_tool)(unsigned int omp_version, const char *runtime_version,
                           void *(*next)(unsigned int, const char *));
  /* since version 6: begin, then fills `memo` (the calling thread's entry for this call site
   * and vector) where the program's memo may start the next execution of it; and the
   * generation such entries are valid for (see struct ompadapt_memo). A runtime of one's own
   * that keeps no memo leaves memo_generation NULL: the generated code then calls begin. */
  void (*begin_memo)(void **slot, const char *spec, long min_train, long model_param1, long model_param2,
                     const double *features, int nfeatures, ompadapt_ctx *ctx, struct ompadapt_memo *memo);
  const unsigned long long *memo_generation;
};
extern const struct ompadapt_api ompadapt_rt_api __asm__("ompadapt_rt_api_v6");

#ifdef __cplusplus
}
#endif
#endif /* OMPADAPT_H */
