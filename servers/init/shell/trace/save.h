/*
 * save: `trace save`, a dump written to the host in one go.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_SAVE_H
#define SPOOR_INIT_SHELL_TRACE_SAVE_H

#include "servers/init/shell/trace/verb.h"

/* save [FILTERS] [as NAME]: writes them to the host: build/traces/NAME.spoor. */
void save_verb(const struct verb *verb, int argc, char **argv);

#endif
