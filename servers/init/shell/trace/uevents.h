/*
 * uevents: `trace events`, `trace register` and `trace unregister`.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_UEVENTS_H
#define SPOOR_INIT_SHELL_TRACE_UEVENTS_H

#include "servers/init/shell/trace/verb.h"

/* events: the user events, as Linux's user_events_status lists them. */
void uevents_list(const struct verb *verb, int argc, char **argv);

/* register 'NAME [TYPE FIELD;...]': defines a user event, which the shell holds. */
void uevents_register(const struct verb *verb, int argc, char **argv);

/* unregister NAME: lets the shell's hold go and deletes the event if nobody holds it. */
void uevents_unregister(const struct verb *verb, int argc, char **argv);

#endif
