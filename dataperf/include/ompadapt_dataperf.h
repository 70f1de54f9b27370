/* ompadapt-dataperf: per-thread data-movement counters of the OMPT tool
 * (libompadapt_dataperf.so), for a runtime that wants data movement as a feature.
 * Look the functions up with dlsym(RTLD_DEFAULT, ...): they exist only when the tool is
 * loaded (OMP_TOOL_LIBRARIES, LD_PRELOAD or linked), and ompadapt_dataperf_thread_counters
 * returns NULL unless OMPADAPT_DATA enabled it. */
#ifndef OMPADAPT_DATAPERF_H
#define OMPADAPT_DATAPERF_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct ompadapt_dataperf_counters {
  uint64_t to_device_bytes;   /* cumulative for the calling thread since it started */
  uint64_t from_device_bytes;
  uint64_t transfer_ns;       /* time inside transfers, both directions */
  uint64_t transfers;
  uint64_t alloc_bytes;
  uint64_t allocs;
  uint32_t region;            /* written by the caller: the region this thread executes, 0 none */
  uint32_t reserved;
} ompadapt_dataperf_counters;

/* The calling thread's counters (valid until the thread exits); NULL when the tool is off. */
ompadapt_dataperf_counters *ompadapt_dataperf_thread_counters(void);
/* The id (> 0) under which the tool's report names region `name`. */
uint32_t ompadapt_dataperf_region_id(const char *name);

#ifdef __cplusplus
}
#endif
#endif
