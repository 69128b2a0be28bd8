/*
 * filter: `trace on KINDS|CATS if PREDICATE`, the kernel's filters
 * (abi/trace_pred.h) as the shell sets, removes and lists them. The
 * predicate is compiled here first (common/trace_pred_parse.h, the
 * parser traced uses), so a bad one gets its one-line error with its
 * place and nothing is sent.
 */
#ifndef SPOOR_INIT_SHELL_TRACE_FILTER_H
#define SPOOR_INIT_SHELL_TRACE_FILTER_H

#include <stdbool.h>

#include "servers/init/shell/trace/verb.h"

/*
 * `trace on` when it concerns filters: TARGETS if PREDICATE sets the
 * filter of every kind of TARGETS and turns their categories on; TARGETS
 * naming a kind removes the filters of its kinds and turns their
 * categories on; CATS alone has the filters of its kinds removed, and
 * the categories are left to the caller. Returns true if it took the
 * whole command (said what happened or why not).
 */
bool filter_on(const struct verb *verb, int argc, char **argv);

/* `trace status`'s lines: each kind's filter. */
void filter_status(const struct traced_status *st);

#endif
