/*
 * trace_ring: the per-CPU event rings of abi/trace.h, on memory the
 * caller maps (struct ttrace_area): the lock-free reader (steps R1-R5 of
 * abi/trace.h), the counters of the ACCOUNTING paragraph and what the
 * writer shares with them. The writer (W1-W3) and the clear live with
 * the kernel, their only user: kernel/trace/ring_write.h. This file,
 * ring_write.c and trace.h must change together.
 *
 * Reader: lock-free, any number of them, on any CPU or in user space. It
 * never writes the area, except the streaming reader's drop-mode tail in
 * the reader page (ttrace_ring_publish_tail). A reader may see an entry
 * still being written: it stops there and a later call goes on. Readers
 * run concurrently with the ring's writer and with clears.
 */
#ifndef SPOOR_COMMON_TRACE_RING_H
#define SPOOR_COMMON_TRACE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/trace.h"
#include "common/trace_header.h"

/* One CPU's ring of an area: what writer and reader need, resolved once. */
struct ttrace_ring {
	struct ttrace_header *hdr;
	struct ttrace_cpu *state;     /* &hdr->cpu[cpu] */
	struct ttrace_clear_log *log; /* &hdr->clear_log[cpu] */
	union ttrace_slot *slots;
	uint64_t *tail; /* the reader page's tail for this CPU; NULL if unmapped */
	uint64_t entries;
	uint64_t index_mask; /* entries - 1: entries is a power of two */
	uint32_t cpu;
};

/* Resolves CPU cpu's ring of a checked area (cpu < num_cpus). */
void ttrace_ring_get(struct ttrace_ring *r, const struct ttrace_area *a, uint32_t cpu);

/* The 64-bit words of a slot; reader and writer access them one whole word at a time. */
#define TTRACE_SLOT_WORDS (TTRACE_ENTRY_SIZE / 8)

/* The slot of ring r that holds index. */
static inline union ttrace_slot *ttrace_ring_slot(const struct ttrace_ring *r, uint64_t index)
{
	return &r->slots[index & r->index_mask];
}

/*
 * The oldest index still in a ring of entries slots, as far as its head
 * and its last clear (clear_index) go.
 */
static inline uint64_t ttrace_ring_oldest(uint64_t head, uint64_t entries, uint64_t clear)
{
	uint64_t lo = head > entries ? head - entries : 0;

	return lo > clear ? lo : clear;
}

/*
 * One CPU's accounting, in entries: emitted = stored + overwritten +
 * dropped + cleared + filtered.
 */
struct ttrace_counts {
	uint64_t head; /* entries ever reserved */
	uint64_t emitted;
	uint64_t stored; /* in the ring now: readable, or being written */
	uint64_t overwritten;
	uint64_t dropped;
	uint64_t cleared;
	uint64_t filtered; /* events a filter rejected, an entry each (abi/trace.h) */
};

/*
 * Takes a consistent snapshot of ring r's counters (retrying while a clear
 * is changing them). Returns 0, or -EBUSY if a clear stayed in progress
 * through every retry (a clear interrupted for good, as by a panic on its
 * CPU); *c then holds the last try, whose cleared may be off by one clear.
 */
int ttrace_ring_counts(const struct ttrace_ring *r, struct ttrace_counts *c);

/*
 * Where a reader is in one ring, and what it has skipped so far: lost and
 * cleared split the skipped entries as the ledger does (abi/trace.h, R1).
 */
struct ttrace_cursor {
	uint64_t index;	     /* the next entry to read */
	uint64_t end;	     /* the reader stops here, a head value (UINT64_MAX: never) */
	uint64_t lost;	     /* entries overwritten before they were read */
	uint64_t cleared;    /* entries skipped because a clear discarded them */
	uint64_t below;	     /* if settled: the ledger's cleared entries below index */
	uint64_t stuck;	     /* of lost: entries skipped by ttrace_ring_wait() */
	uint64_t wait_index; /* while waiting: where the reader is held up */
	uint64_t wait_since; /* while waiting: since when, by the caller's clock */
	bool waiting;	     /* ttrace_ring_wait() found it held up at wait_index */
	bool synced;	     /* index is known to start an event */
	bool settled;	     /* no entry below index can be cleared any more */
};

/*
 * Starts a cursor at index, which must start an event: 0 (everything
 * still there, the rest counted lost; settled), or a head or clear_index
 * value read from the header (only what comes after). It has no end: a
 * caller that wants one (a dump up to the heads it began with) sets it.
 */
void ttrace_cursor_init(struct ttrace_cursor *c, uint64_t index);

/*
 * Starts a cursor about n entries before ring r's head: the newest events,
 * for the flight recorder. A continuation at the start whose head entry is
 * older is skipped and counted lost.
 */
void ttrace_cursor_init_last(struct ttrace_cursor *c, const struct ttrace_ring *r, uint64_t n);

/* An event as a reader returns it: the head entry and its continuations, flattened. */
struct ttrace_record {
	uint64_t index; /* the head entry's per-CPU index */
	uint64_t ts;	/* bit 0 clear */
	uint32_t pid;
	uint32_t tid;
	uint16_t kind;
	uint8_t cpu;
	uint8_t ctx;			       /* TTRACE_CTX_*, without the continuation count */
	uint8_t ncont;			       /* continuation entries it took */
	uint64_t data[TTRACE_EVENT_WORDS_MAX]; /* 5 + 7 * ncont words; the rest zero */
};

/*
 * Copies up to max events of ring r from cursor c into out, in index
 * order, and advances c past every entry it returns or skips, up to
 * c->end at most, adding entries no longer there to c->lost or
 * c->cleared. Returns the number of events copied; fewer than max when it
 * reached the head, its end or an entry still being written (a later
 * call goes on from there). Never returns a torn or lapped event.
 */
size_t ttrace_ring_read(const struct ttrace_ring *r, struct ttrace_cursor *c,
			struct ttrace_record *out, size_t max);

/*
 * What ttrace_ring_read() stopping short leaves a reader to do (R6 of
 * abi/trace.h): a slot whose write never completes (its CPU wedged or
 * stopped inside a tracepoint) or a clear that never ends would hold
 * every reader there for ever, blind to all that follows.
 */
enum ttrace_wait {
	TTRACE_WAIT_NONE,    /* not held up: at its end, or at the head (nothing more yet) */
	TTRACE_WAIT_MORE,    /* held up below the head for less than the patience: read again */
	TTRACE_WAIT_SKIPPED, /* held up for the patience or longer: skipped, counted lost */
};

/*
 * The rule every reader applies when ttrace_ring_read() returned fewer
 * events than asked: if c is held up below ring r's head and its end,
 * and has been at that index since patience ago (now and patience in any
 * unit of the caller's clock that only grows; 0 and 0 skip at once, for
 * readers of stopped CPUs or frozen memory), it skips what holds it up:
 * the slot (or, lapped while a clear is in progress, up to head less a
 * ring), adding it to c->lost and c->stuck, not synced; or, below a clear
 * in progress, up to its clear_index, the ring's worth below it cleared
 * and the rest lost and stuck. A write that
 * completes later is then this reader's loss, though the ledger counts it
 * stored; every reader says how many it skipped this way.
 */
enum ttrace_wait ttrace_ring_wait(const struct ttrace_ring *r, struct ttrace_cursor *c,
				  uint64_t now, uint64_t patience);

/*
 * The streaming reader tells the writer it is done with every entry below
 * index (drop mode: those slots may be reused). Returns 0, or -EACCES
 * without the reader page.
 */
int ttrace_ring_publish_tail(const struct ttrace_ring *r, uint64_t index);

#endif
