/* The launch-site marker as the ompadapt Clang plugin's header defines it
 * (plugin/include/ompadapt_lowering.h), with the runtime's warning reached directly (see
 * runtime/include/ompadapt.h for ompadapt_unlowered_offload_site). */
#ifndef OMPADAPT_TEST_MARKER_H
#define OMPADAPT_TEST_MARKER_H
#ifdef __cplusplus
extern "C" {
#endif
void ompadapt_unlowered_offload_site(const char *model);
#ifdef __cplusplus
}
#endif
static inline __attribute__((noinline)) void __ompadapt_launch_site(int use_host, int num_teams, int thread_limit,
                                                                    const char *model) {
  if (use_host || num_teams || thread_limit)
    ompadapt_unlowered_offload_site(model);
}
/* The mark the frontend defines in every host translation unit it compiles (plugin/src/ffi.rs):
 * the pass leaves regions it did not mark alone (no pass-only mode). */
#ifndef OMPADAPT_TEST_FRONTEND_MARK
#define OMPADAPT_TEST_FRONTEND_MARK
static const char __ompadapt_frontend_mark_ __asm__("__ompadapt_frontend_mark") __attribute__((used)) = 1;
#endif
#endif
