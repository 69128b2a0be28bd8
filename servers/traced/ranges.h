/*
 * ranges: the per-CPU way out of recordings and saves without a filter
 * (abi/trace_file.h, PER-CPU CHUNKS and SAVES): each CPU's new entries
 * copied as one range, as the ring holds them, and checked against the
 * ring's head once for the whole range, as perf's reader does, instead
 * of entry by entry through the merge. What
 * the range cannot vouch for (overwritten before or during the copy, an
 * orphan continuation) is counted lost, with a marker slot in place.
 */
#ifndef SPOOR_TRACED_RANGES_H
#define SPOOR_TRACED_RANGES_H

#include <stddef.h>
#include <stdint.h>

/* Where a CPU's ranges go on from. */
struct range_cursor {
	uint64_t next;	   /* the ring index the next range starts at */
	uint64_t unsynced; /* 1: next may be inside an event whose head was lost (R3) */
	uint64_t skipped;  /* entries below next a stop gave up on (R6): lost, not yet said */
};

/* What one range added. */
struct range {
	uint64_t events;  /* events in it */
	uint64_t entries; /* their slots: heads and continuations */
	uint64_t lost;	  /* entries counted lost (its marker's count) */
	size_t len;	  /* bytes written, marker included */
};

/*
 * How many looks a reader that must reach an end (a save, a recording's
 * stop) gives a range held up below it, yielding between them, before it
 * skips the entry holding it up with range_skip().
 */
#define RANGE_STUCK_LOOKS 1000

/*
 * Copies CPU cpu's entries from c->next up to end (at most the head) into
 * out, at most max bytes (a multiple of 64, at least two slots): a loss
 * marker first when entries were lost (c->skipped among them), then
 * whole events in ring order.
 * Stops before an event still being written (the next call takes it).
 * Moves c past everything it copied or counted lost.
 */
void range_copy(uint32_t cpu, struct range_cursor *c, uint64_t end, uint8_t *out, size_t max,
		struct range *r);

/*
 * R6 for a range held up below its end (a write that never completes, its
 * CPU wedged inside a tracepoint): skips the entry holding it up. The next
 * range counts it lost in its marker and goes on unsynced (what follows
 * may be that event's continuations), so every entry is still accounted.
 */
void range_skip(struct range_cursor *c);

#endif
