/* apollo.h — LLNL Apollo's C API, implemented by the ompadapt runtime (libompadapt_rt).
 *
 * Programs instrumented for Apollo (Apollo 2.x's C bindings, as called by its LLVM pass and by
 * the paper's Listing 2) link against ompadapt unchanged:
 *     clang-19 app.c -L<dir> -lompadapt_rt -Wl,-rpath,<dir>
 * This header is only needed to compile such a program without Apollo's own headers.
 *
 * Typical use (one region, executed from any number of threads):
 *     static void *r;                                   // create is thread-safe and idempotent
 *     if (!r) r = __apollo_region_create(1, "vecAdd", 2, 10, "DecisionTree,explore=RoundRobin");
 *     __apollo_region_begin(r);
 *     __apollo_region_set_feature(r, (float)N);
 *     switch (__apollo_region_get_policy(r)) { ... }
 *     __apollo_region_end(r);
 *
 * Thread safety: every function may be called from any thread at any time. Executions are kept
 * per thread (a stack): begin pushes an execution of the region, set_feature appends to this
 * thread's most recent execution of that region, get_policy decides it, end removes and records
 * it. One region may be executed concurrently by many threads, nested in itself or in other
 * regions, and begun and ended in interleaved order on one thread; no sample is lost. An
 * execution must begin and end on the same thread.
 *
 * Failure: no function aborts the program. A NULL or unknown region pointer, get_policy or end
 * without begin, or an internal error makes get_policy return 0 and prints one warning line
 * (`ompadapt: warning: ...`) per kind of mistake.
 *
 * Costs (this project's 2-core machine, see benchmarks/): begin + one set_feature + get_policy +
 * end on a trained region ≈ the region's ompadapt execution plus ~10–20 ns of thread-local
 * bookkeeping; no lock, allocation or system call once the thread's stack has grown to its
 * deepest nesting. While exploring, end takes the region's lock to record; the end that
 * completes min_training_data trains (microseconds for trees) before returning.
 */
#ifndef OMPADAPT_APOLLO_H
#define OMPADAPT_APOLLO_H

#ifdef __cplusplus
extern "C" {
#endif

/* Creates (or finds) the region `id` with `num_features` features (at most 16 are used) and
 * `num_policies` policies (1..64), returning its handle. Thread-safe; creating the same id with
 * the same arguments returns the same handle (so `static` caching races are harmless); with
 * other arguments it is a separate region named "id#2", "id#3", ... (one warning).
 *
 * min_training_data: distinct (feature vector, policy) pairs measured before the model trains
 * (as Apollo counts them); <= 0: only __apollo_region_train trains.
 *
 * model_info (NULL or "": $APOLLO_POLICY_MODEL, else "DecisionTree"):
 *   DecisionTree[,max_depth=N][,explore=RoundRobin|Random|Elimination]   (default depth 2)
 *   RandomForest[,num_trees=T][,max_depth=N][,explore=...]                (default 10 x depth 2)
 *   LogisticRegression[,explore=...]                                       (ompadapt extension)
 *   Static[,policy=N]     always policy N (N >= num_policies: policy 0, one warning)
 *   RoundRobin            cycle the policies per feature vector forever, never train
 *   Random                a random policy every execution, never train
 * Unknown keys are one warning line each and ignored; Apollo's load/load-dataset keys are
 * ignored (ompadapt saves and reloads each region's data itself, see OMPADAPT_DIR).
 * Returns NULL only when 1024 regions exist (then every call on it runs policy 0).
 * Cost: a lock and a hash lookup; the first call per region parses and creates it. */
void *__apollo_region_create(int num_features, const char *id, int num_policies,
                             int min_training_data, const char *model_info);

/* Begins an execution of `region` on this thread. Cost: a thread-local push. */
void __apollo_region_begin(void *region);

/* Appends a feature value to this thread's most recent execution of `region` (features after
 * the 16th, or set after get_policy, are ignored with one warning). Called without the region
 * (the paper's Listing 2 spelling), it appends to this thread's most recent execution. */
void __apollo_region_set_feature(void *region, float feature);

/* The policy, in [0, num_policies), for this thread's most recent execution of `region`:
 * decided on the first call (exploration or the trained model; the clock starts here), the same
 * value on later calls. 0 if the thread has no execution of `region`. Cost: the region's
 * decision (trained: model inference, no lock). */
int __apollo_region_get_policy(void *region);

/* Ends this thread's most recent execution of `region` and records its time (begin without
 * get_policy: not recorded). Cost while exploring: the region's lock; trained: lock-free. */
void __apollo_region_end(void *region);

/* Trains the region's model now on what has been measured. `step` is ignored. */
void __apollo_region_train(void *region, int step);

/* ompadapt extension: counters of an Apollo region (tests, tools). */
typedef struct ompadapt_apollo_stats {
  unsigned long long executions;       /* executions ended, all threads */
  unsigned long long training_samples; /* distinct (feature vector, policy) pairs measured */
  int trained;                         /* 1 when a model decides */
  int num_policies;
  int num_features;                    /* used features (at most 16) */
  int mode;                            /* 0 learning (incl. RoundRobin), 1 Static, 2 Random */
} ompadapt_apollo_stats;

/* Fills *out; returns 0, or -1 if `region` is not a handle or out is NULL. */
int ompadapt_apollo_region_stats(void *region, ompadapt_apollo_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* OMPADAPT_APOLLO_H */
