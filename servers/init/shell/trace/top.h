/*
 * top: `trace top`, the kernel functions the profiler's samples found
 * running most.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_TOP_H
#define SPOOR_INIT_SHELL_TRACE_TOP_H

#include "servers/init/shell/trace/verb.h"

/* top [SECONDS]: the kernel functions the samples found most (last 5 s). */
void top_verb(const struct verb *verb, int argc, char **argv);

#endif
