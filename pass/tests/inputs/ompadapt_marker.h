/* The offload-site marker exactly as the ompadapt Clang plugin injects it (see
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
static inline void __ompadapt_offload_site(int use_host, const char *model) {
  if (use_host) ompadapt_unlowered_offload_site(model);
}
#endif
