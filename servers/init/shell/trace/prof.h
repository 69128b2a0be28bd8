/*
 * prof: `trace stack` (call stacks on chosen events) and `trace profile`
 * (the sampling profiler), and their lines of `trace status`.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_PROF_H
#define SPOOR_INIT_SHELL_TRACE_PROF_H

#include <trace_client.h>

#include "servers/init/shell/trace/verb.h"

/* stack on KINDS|CATS|off: which kinds' events carry their call stacks. */
void prof_stack(const struct verb *verb, int argc, char **argv);

/* profile [HZ] [CPU|all]|off: the sampling profiler. */
void prof_profile(const struct verb *verb, int argc, char **argv);

/* trace status's lines for the two: "stacks: KINDS|off", "profile: CPUS at HZ Hz|off". */
void prof_status(const struct traced_status *st);

#endif
