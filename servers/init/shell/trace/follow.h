/*
 * follow: `trace follow [FILTERS]`, new events as they come.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_FOLLOW_H
#define SPOOR_INIT_SHELL_TRACE_FOLLOW_H

#include "servers/init/shell/trace/verb.h"

/* follow [FILTERS]: prints events as they come, until a Ctrl-C or pid=N's end. */
void follow_verb(const struct verb *verb, int argc, char **argv);

#endif
