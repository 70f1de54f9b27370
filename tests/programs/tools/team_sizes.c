/* An OMPT tool for the tests (OMP_TOOL_LIBRARIES=team_sizes.so): at the end it prints to stderr
 * the team size each parallel region asked for, in order ("teams: 3 1"), so that a test sees
 * the team a variant really ran with. */
#include <omp-tools.h>
#include <stdio.h>

static char seen[8192];
static int len;

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel, unsigned int team,
                              int flags, const void *codeptr) {
  (void)task, (void)frame, (void)parallel, (void)flags, (void)codeptr;
  if (len < (int)sizeof seen - 16)
    len += snprintf(seen + len, sizeof seen - len, " %u", team);
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data) {
  (void)device, (void)data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  return 1;
}

static void finalize(ompt_data_t *data) {
  (void)data;
  fprintf(stderr, "teams:%s\n", seen);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime_version) {
  (void)version, (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
