/*
 * track: `trace track` and `trace untrack`, PID tracking in the kernel.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_TRACK_H
#define SPOOR_INIT_SHELL_TRACE_TRACK_H

#include "servers/init/shell/trace/verb.h"

/* track PID...: records only these processes and what they spawn. */
void track_verb(const struct verb *verb, int argc, char **argv);

/* untrack PID...|all: stops tracking them (all: everyone is recorded again). */
void track_untrack(const struct verb *verb, int argc, char **argv);

#endif
