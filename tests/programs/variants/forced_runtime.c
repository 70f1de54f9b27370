/* A stand-in runtime for tests (loaded with OMPADAPT_RUNTIME=...): it implements the table
 * generated code calls, and picks variants from $OMPADAPT_TEST_SEQUENCE instead of learning:
 * "1,0,0,1" gives execution k of any region the variant at k modulo the list's length. That
 * makes every sequence of variants reproducible (the real runtime's choice depends on
 * timings). Each choice is printed as "FORCED region=<model> variant=<i> value=<v>", unless
 * OMPADAPT_TEST_QUIET is set (benchmarks/c/dispatch_cost.c). The cpu variant's copies around
 * the host version of an offload are the real runtime's (linked: -lompadapt_rt). */
#include "ompadapt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int seq[4096];
static int nseq = -1;
static int quiet;
static unsigned long executions;

static void load(void) {
  const char *s = getenv("OMPADAPT_TEST_SEQUENCE");
  quiet = getenv("OMPADAPT_TEST_QUIET") != NULL;
  nseq = 0;
  while (s && *s && nseq < 4096) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s) break;
    seq[nseq++] = (int)v;
    s = *end == ',' ? end + 1 : end;
  }
}

/* Field `key=` of the descriptor, up to ';'. */
static const char *field(const char *spec, const char *key, size_t *len) {
  size_t k = strlen(key);
  for (const char *p = spec; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL) {
    if (strncmp(p, key, k) == 0 && p[k] == '=') {
      const char *v = p + k + 1;
      const char *e = strchr(v, ';');
      *len = e ? (size_t)(e - v) : strlen(v);
      return v;
    }
  }
  return NULL;
}

static void begin(void **slot, const char *spec, long min_train, long p1, long p2, const double *f, int nf,
                  ompadapt_ctx *ctx) {
  (void)slot, (void)min_train, (void)p1, (void)p2, (void)f;
  if (nseq < 0) load();
  size_t len = 0, mlen = 0;
  const char *values = field(spec, "values", &len);
  int nvalues = 1;
  for (size_t i = 0; i < len; ++i) nvalues += values[i] == ',';
  unsigned long k = __atomic_fetch_add(&executions, 1, __ATOMIC_RELAXED);
  int v = nseq > 0 ? seq[k % (unsigned long)nseq] : 0;
  if (v < 0 || v >= nvalues) v = 0;
  const char *p = values;
  for (int i = 0; i < v && p; ++i) p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
  memset(ctx, 0, sizeof *ctx);
  ctx->variant = v;
  ctx->value = p ? strtod(p, NULL) : v;
  ctx->nfeatures = nf;
  if (quiet) return;
  const char *model = field(spec, "model", &mlen);
  printf("FORCED region=%.*s variant=%d value=%g\n", (int)mlen, model ? model : "", v, ctx->value);
}

static void end(ompadapt_ctx *ctx) { (void)ctx; }

static void unlowered(const char *model) { fprintf(stderr, "UNLOWERED %s\n", model); }

/* The forced variant cannot run: the execution runs `replacement`. The sequence is not changed
 * (the next forced cpu is checked again), and each is printed. */
static void unavailable(ompadapt_ctx *ctx, int replacement) {
  if (!quiet) printf("UNAVAILABLE variant=%d replacement=%d\n", ctx->variant, replacement);
  ctx->variant = replacement;
}

/* The real runtime's copies; a refusal is printed like an unavailable variant. */
static void *host_enter(ompadapt_ctx *ctx, int cpu, int replacement, long long device, const void *kargs,
                        const void *const *globals, int nglobals) {
  int v = ctx->variant;
  void *run = ompadapt_host_enter(ctx, cpu, replacement, device, kargs, globals, nglobals);
  if (!run && !quiet) printf("UNAVAILABLE variant=%d replacement=%d\n", v, replacement);
  return run;
}

/* the copies' extents come from the real runtime's OMPT tool */
const struct ompadapt_api ompadapt_rt_api = {OMPADAPT_API_VERSION, begin, end, unlowered, unavailable, host_enter,
                                             ompadapt_host_exit, ompadapt_ompt_start_tool};
