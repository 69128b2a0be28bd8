/*
 * pred: a request's predicate (abi/traced.h, struct traced_pred),
 * compiled by common/trace_filter_pred.h for the kinds its filter
 * selects, and its test of an event as the merge (a record) and the
 * sieve (a ring slot) hold it. traced serves one request at a time, so
 * one compiled predicate serves them all: each request compiles its own
 * before it reads an event.
 */
#ifndef SPOOR_TRACED_PRED_H
#define SPOOR_TRACED_PRED_H

#include <stdbool.h>

#include "abi/traced.h"
#include "common/trace_filter_pred.h"
#include "common/trace_ring.h"

/*
 * Checks p (len within its text, no NUL inside, reserved zero) and
 * compiles it for f into traced's one compiled predicate: *out is it, or
 * NULL for none (len 0). Returns 0, or -EINVAL for a predicate that is
 * not well formed or does not compile, *out then NULL.
 */
int pred_request(const struct traced_pred *p, const struct traced_filter *f,
		 const struct ttrace_filter_pred **out);

/* Whether record r passes p (comm from traced's decoder). */
bool pred_keeps_record(const struct ttrace_filter_pred *p, const struct ttrace_record *r);

/* Whether the event whose head slot is e passes p. */
bool pred_keeps_entry(const struct ttrace_filter_pred *p, const struct ttrace_entry *e);

#endif
