/*
 * trigger: `trace trigger`, a kind's trigger set or removed through
 * traced (abi/traced.h TRIGGER), and the triggers' lines in `trace
 * status`.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_TRIGGER_H
#define SPOOR_INIT_SHELL_TRACE_TRIGGER_H

#include "servers/init/shell/trace/verb.h"

/* The verb's arguments and what it does, for `trace`'s listing (verbs.c). */
#define TRIGGER_ARGS "KIND if PREDICATE then stop|save as NAME [after MS]|stack|count | off [KIND]"
#define TRIGGER_WHAT                                                                               \
	"when the predicate holds for an event of KIND: stop the rings, save them to the host "    \
	"(MS ms later), give that event its call stack, or count it"

/* `trace trigger KIND if PREDICATE then ACTION`, `trace trigger off [KIND]`. */
void trigger_verb(const struct verb *verb, int argc, char **argv);

/*
 * `trace status`'s lines: "trigger KIND: PREDICATE then ACTION: fired N"
 * for each (with what its save or stop did), or "triggers: none".
 */
void trigger_status(void);

#endif
