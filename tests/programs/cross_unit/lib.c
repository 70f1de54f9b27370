// A shared library's functions: built with ompadapt (libsummarised.so, lib_half) and without
// (libplain.so, plain_half, -DPLAIN).
#ifdef PLAIN
double plain_half(double x) { return x * 0.5; }
#else
double lib_half(double x) { return x * 0.5; }
#endif
