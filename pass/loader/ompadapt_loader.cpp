// The runtime loader of the lowering header (plugin/include/ompadapt_lowering.h:
// __ompadapt_api_load, the secure-execution trust check, the fallback table), compiled once when
// ompadapt is built, to assembly for each host target in pass/build.rs. The pass adds it to each
// module that calls it, so translation units do not compile it again. C++ for its vague linkage:
// every function and the fallback table lands in a COMDAT group of its own, one copy per link.
#define __OMPADAPT_BUILDING_LOADER
#include "ompadapt.h"
#include "ompadapt_lowering.h"
