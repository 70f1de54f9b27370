/* The features(auto) marker exactly as the ompadapt plugin's header defines it
 * (plugin/include/ompadapt_lowering.h). */
#ifndef OMPADAPT_TEST_AUTO_MARKER_H
#define OMPADAPT_TEST_AUTO_MARKER_H
static inline __attribute__((noinline)) int __ompadapt_auto_features(double *out, int cap, const char **spec,
                                                                     const char *model, const char *loops) {
  (void)out; (void)cap; (void)spec; (void)model; (void)loops;
  return 0;
}
#define OMPADAPT_SPEC(m) "ompadapt1;model=" m ";loc=k.c:1;features=;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto"
void use(const char *spec, const double *f, int k);
/* The mark the frontend defines in every host translation unit it compiles (plugin/src/ffi.rs):
 * the pass leaves regions it did not mark alone (no pass-only mode). */
#ifndef OMPADAPT_TEST_FRONTEND_MARK
#define OMPADAPT_TEST_FRONTEND_MARK
static const char __ompadapt_frontend_mark_ __asm__("__ompadapt_frontend_mark") __attribute__((used)) = 1;
#endif
#endif
