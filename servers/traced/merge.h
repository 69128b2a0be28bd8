/*
 * merge: the stream behind DUMP (how MERGE_DUMP: up to the heads the
 * first piece saw) and FOLLOW (MERGE_FOLLOW: without end), for callers
 * with their own buffer; it knows nothing of requests (merge.c has the
 * design note).
 */
#ifndef SPOOR_TRACED_MERGE_H
#define SPOOR_TRACED_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "abi/traced.h"
#include "common/trace_filter_pred.h"
#include "servers/traced/scope.h"

/* What one call of merge_fill() fills, and what it says it added. */
struct merge_piece {
	uint8_t *out;
	size_t max;
	size_t len;
	uint32_t events;
	const struct scope *scope;	       /* only events of these pids; NULL: all */
	const struct ttrace_filter_pred *pred; /* only events that pass it; NULL: all */
};

#define MERGE_DUMP   0
#define MERGE_FOLLOW 1

/* Starts cursor c of a new dump at each ring's last clear (follow: at the heads). */
void merge_cursor_start(struct traced_cursor *c, bool follow);

/*
 * Appends the next events of the stream from cursor c (zeroed: a new one,
 * which it starts) in format to piece->out, at most piece->max bytes, sets
 * piece->len and piece->events, moves c, and returns whether the stream
 * ended. A dump's false return comes with a full piece: an entry held up
 * below the end (a write or a clear in progress) is waited for a while,
 * then skipped as lost, within the call. A follower's may come with
 * nothing added: nothing new yet.
 */
bool merge_fill(uint32_t how, const struct traced_filter *f, struct traced_cursor *c,
		uint32_t format, struct merge_piece *piece);

#endif
