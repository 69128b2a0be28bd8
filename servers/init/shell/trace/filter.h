/*
 * filter: `trace on KINDS|CATS if PREDICATE` and `trace off
 * KINDS|CATS`, the kernel's filters (abi/trace_pred.h) as the shell
 * sets, removes and lists them. The
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

/*
 * `trace off` when it concerns filters: the filters of every kind of
 * TARGETS (of every kind, without TARGETS) are removed, so a kind turned
 * off comes back on unfiltered; TARGETS naming a kind turns its category
 * off too (a kind cannot be off alone), CATS alone are left to the
 * caller to turn off. Returns true if it took the whole command.
 */
bool filter_off(const struct verb *verb, int argc, char **argv);

/* `trace status`'s lines: each kind's filter. */
void filter_status(const struct traced_status *st);

#endif
