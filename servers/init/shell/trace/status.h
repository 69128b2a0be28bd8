/*
 * status: `trace status`, what tracing is doing now.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_STATUS_H
#define SPOOR_INIT_SHELL_TRACE_STATUS_H

#include "servers/init/shell/trace/verb.h"

/* status: the mask, mode, geometry, tracking, echo, stacks, profiler, recording, ledgers. */
void status_verb(const struct verb *verb, int argc, char **argv);

#endif
