/*
 * record: `trace record`, a recording streamed to the host while the
 * run goes on.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_RECORD_H
#define SPOOR_INIT_SHELL_TRACE_RECORD_H

#include "servers/init/shell/trace/verb.h"

/* record [CATS] [FILTERS] [as NAME] | stop: starts a recording, or stops it. */
void record_verb(const struct verb *verb, int argc, char **argv);

/* The recording's line of `trace status` (none before the first recording). */
void record_status(void);

#endif
