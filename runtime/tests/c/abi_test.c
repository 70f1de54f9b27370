/* Calls the runtime by hand through include/ompadapt.h. Exit status 0 = every check passed;
 * otherwise the status says which check failed. Mode "explore" (first run, empty sample
 * directory) checks the exploration order; mode "trained" (second run) expects the model that
 * was trained from the first run's saved samples to decide at once. */
#include "ompadapt.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(ompadapt_ctx) == 176, "sizeof(ompadapt_ctx)");
_Static_assert(offsetof(ompadapt_ctx, region) == 0, "region");
_Static_assert(offsetof(ompadapt_ctx, t0) == 8, "t0");
_Static_assert(offsetof(ompadapt_ctx, variant) == 16, "variant");
_Static_assert(offsetof(ompadapt_ctx, nfeatures) == 20, "nfeatures");
_Static_assert(offsetof(ompadapt_ctx, value) == 24, "value");
_Static_assert(offsetof(ompadapt_ctx, features) == 32, "features");
_Static_assert(offsetof(ompadapt_ctx, instance) == 160, "instance");
_Static_assert(offsetof(ompadapt_ctx, kept) == 168, "kept");
_Static_assert(sizeof(struct ompadapt_api) == 80, "sizeof(struct ompadapt_api)");
_Static_assert(offsetof(struct ompadapt_api, begin_memo) == 64, "begin_memo");
_Static_assert(offsetof(struct ompadapt_api, memo_generation) == 72, "memo_generation");
_Static_assert(sizeof(struct ompadapt_memo) == 96, "sizeof(struct ompadapt_memo)");
_Static_assert(offsetof(struct ompadapt_memo, count) == 48, "count");
_Static_assert(offsetof(struct ompadapt_memo, features) == 64, "memo features");
_Static_assert(offsetof(struct ompadapt_api, variant_unavailable) == 32, "variant_unavailable");
_Static_assert(offsetof(struct ompadapt_api, host_enter) == 40, "host_enter");
_Static_assert(offsetof(struct ompadapt_api, host_exit) == 48, "host_exit");
_Static_assert(offsetof(struct ompadapt_api, ompt_start_tool) == 56, "ompt_start_tool");

static const char *SPEC = "ompadapt1;model=c_test;loc=abi_test.c:20;features=n;variants=cpu,gpu;"
                          "values=0,1;numeric=0;model_type=dtree";

static volatile double sink;
static void work(long iters) {
  double s = 0;
  for (long i = 0; i < iters; i++) s += (double)i * 0.5;
  sink = s;
}

/* cpu costs n, gpu costs 100000 - n */
static int run(void **slot, double n, int use_table) {
  ompadapt_ctx c;
  memset(&c, 0xab, sizeof c); /* garbage, as on a real stack */
  double f[1] = {n};
  if (use_table)
    ompadapt_rt_api.begin(slot, SPEC, 4, -1, -1, f, 1, &c);
  else
    ompadapt_begin(slot, SPEC, 4, -1, -1, f, 1, &c);
  if (c.region == NULL || c.nfeatures != 1 || c.features[0] != n) return -1;
  if (c.variant < 0 || c.variant > 1 || c.value != (double)c.variant) return -2;
  work(c.variant == 0 ? (long)n : 100000 - (long)n);
  if (use_table)
    ompadapt_rt_api.end(&c);
  else
    ompadapt_end(&c);
  return c.variant;
}

int main(int argc, char **argv) {
  int trained_mode = argc > 1 && strcmp(argv[1], "trained") == 0;
  if (ompadapt_rt_api.version != OMPADAPT_API_VERSION) return 10;
  if (ompadapt_rt_api.begin != ompadapt_begin || ompadapt_rt_api.end != ompadapt_end) return 11;
  if (ompadapt_rt_api.variant_unavailable != ompadapt_variant_unavailable) return 12;
  if (ompadapt_rt_api.host_enter != ompadapt_host_enter || ompadapt_rt_api.host_exit != ompadapt_host_exit) return 13;

  static void *slot; /* one per call site, as the plugin emits */
  ompadapt_ctx c0;
  if (!trained_mode) {
    /* n = 1000: cpu, gpu (each variant's first execution in the process: cold), then cpu, gpu
     * again (warm measurements are preferred where the process can take them) */
    for (int i = 0; i < 4; i++)
      if (run(&slot, 1000, i % 2) != i % 2) return 20 + i;
    if (slot == NULL) return 25;
    /* n = 99000: cpu, gpu, and cpu once more (the neighbouring vector's label, measured twice
     * before another variant wins) */
    for (int i = 0; i < 3; i++)
      if (run(&slot, 99000, 0) != (i == 1)) return 30 + i;
    /* 4 training samples (2 vectors x 2 variants), both vectors labelled: trained now */
  }
  for (int i = 0; i < 20; i++) {
    if (run(&slot, 1000, 0) != 0) return 40;
    if (run(&slot, 99000, 1) != 1) return 41;
  }

  /* explicit training before min_train_data (1000) is reached; the second run starts from the
   * stored model (its data alone would not reach min_train_data) */
  static void *xslot;
  const char *XSPEC = "ompadapt1;model=c_explicit;loc=abi_test.c:90;features=n;variants=slow,fast";
  if (!trained_mode) {
    for (int i = 0; i < 4; i++) { /* slow (cold), fast (cold), slow, fast */
      double f[1] = {7};
      ompadapt_begin(&xslot, XSPEC, 1000, -1, -1, f, 1, &c0);
      work(c0.variant == 0 ? 200000 : 1000);
      ompadapt_end(&c0);
    }
    if (ompadapt_train("nonexistent") != 0) return 60;
    if (ompadapt_train("c_explicit") != 1) return 61;
    if (ompadapt_save() < 2) return 62; /* c_test and c_explicit */
    if (ompadapt_save() != 0) return 63; /* nothing new */
  }
  for (int i = 0; i < 3; i++) {
    double f[1] = {7};
    ompadapt_begin(&xslot, XSPEC, 1000, -1, -1, f, 1, &c0);
    if (c0.variant != 1) return 64;
    ompadapt_end(&c0);
  }

  /* a malformed spec: variant 0, never a crash */
  void *bad = NULL;
  ompadapt_ctx c;
  for (int i = 0; i < 3; i++) {
    ompadapt_begin(&bad, "ompadapt1;model=c_bad;variants=", -1, -1, -1, NULL, 0, &c);
    if (c.variant != 0) return 50;
    ompadapt_end(&c);
  }
  ompadapt_unlowered_offload_site("c_offload");
  ompadapt_unlowered_offload_site("c_offload");
  puts("ok");
  return 0;
}
