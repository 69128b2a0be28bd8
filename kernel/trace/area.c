/*
 * area: the definition of the kernel's trace area (see area.h);
 * ttrace_init() lays it out.
 */
#include "trace/area.h"

struct ttrace_area area;
