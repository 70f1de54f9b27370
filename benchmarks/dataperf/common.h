#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
static int arg(int argc, char **argv, int i, int def) { return argc > i ? atoi(argv[i]) : def; }
