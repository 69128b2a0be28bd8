/*
 * run: `trace run`, one program traced alone.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_RUN_H
#define SPOOR_INIT_SHELL_TRACE_RUN_H

#include "servers/init/shell/trace/verb.h"

/* run [CATS] PROG [ARGS]: traces one program, then prints its first events and stats. */
void run_verb(const struct verb *verb, int argc, char **argv);

#endif
