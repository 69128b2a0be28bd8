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
 * `trace off KINDS|CATS` when it names a kind: turns the categories of
 * its kinds off (a kind cannot be off alone), then drops the filters of
 * its kinds. Returns true if it took the whole command; categories alone
 * are control.c's.
 */
bool filter_off(const struct verb *verb, int argc, char **argv);

/*
 * Drops the filters of the kinds of targets (kinds and categories by
 * name, "all"), saying so: what `trace off` does after it turned them
 * off, so a kind turned on again is unfiltered. User events and words
 * it does not know are left alone.
 */
void filter_drop(const char *targets);

/* `trace status`'s lines: each kind's filter. */
void filter_status(const struct traced_status *st);

#endif
