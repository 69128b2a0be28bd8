/*
 * ring_write: the writer of the per-CPU event rings of abi/trace.h (steps
 * W1-W3) and the clear (the CLEAR paragraph), on a ring resolved with
 * ttrace_ring_get() of common/trace_ring.h, which holds the reader they
 * race with. Only the kernel writes rings, so this half lives here; the
 * host tests compile it too (KERNEL_PURE in the Makefile). This file,
 * common/trace_ring.c and trace.h must change together.
 *
 * Writer: one per ring, on the ring's own CPU with preemption disabled
 * (a migration in the middle would make two CPUs write one ring).
 * Interrupts may stay enabled: the reservation is one instruction on the
 * ring's CPU, without a lock (Linux's local_t), so a handler's write
 * nests inside an interrupted one and takes the indices after it. (The
 * kernel keeps timestamps in index order: its tracepoints read the clock
 * between loading head and an exchange that an interrupt's event makes
 * fail, tracepoint.h; its slow path reserves here with interrupts off,
 * emit.c.) No locks, no locked instructions, no allocation, never
 * blocks.
 *
 * Control: ttrace_ring_clear() runs on any CPU; callers serialise clears
 * (the kernel's trace-control lock), which may run concurrently with the
 * ring's writer and its readers.
 */
#ifndef SPOOR_TRACE_RING_WRITE_H
#define SPOOR_TRACE_RING_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/trace.h"
#include "common/trace_ring.h"

/*
 * An event as the slow path hands it over. kind and ctx sit where word 1
 * of the head entry holds them, 16 bits apart (struct ttrace_entry), so
 * the writer takes both with one load, as kind_ctx; the byte between
 * them, where the ring's cpu goes, is ignored.
 */
struct ttrace_event {
	uint64_t ts; /* TSC; bits 0 and 63 are not kept */
	uint32_t pid;
	uint32_t tid;
	union {
		struct {
			uint16_t kind;	/* TTRACE_KIND_* */
			uint8_t unused; /* ignored */
			uint8_t ctx;	/* TTRACE_CTX_*, its low 4 bits kept */
		};
		uint32_t kind_ctx; /* the three above, for the writer */
	};
	uint8_t nwords;	      /* data words, 0..TTRACE_EVENT_WORDS_MAX */
	const uint64_t *data; /* nwords of them */
};

_Static_assert(offsetof(struct ttrace_event, kind_ctx) == offsetof(struct ttrace_event, kind),
	       "kind_ctx: kind in its low 16 bits");
_Static_assert(offsetof(struct ttrace_event, ctx) - offsetof(struct ttrace_event, kind) ==
		   offsetof(struct ttrace_entry, ctx) - offsetof(struct ttrace_entry, kind),
	       "kind_ctx: ctx where word 1 has it");

/*
 * A write in two halves, W1 then W2-W3: the slow path reserves with
 * interrupts off and commits with them on again, and tests nest writes
 * between them. reserve takes nslots (1..1 + TTRACE_CONT_MAX)
 * consecutive indices, the first in *index, or returns false having
 * counted them as dropped. commit writes an event of exactly that many
 * slots (nwords at most TTRACE_EVENT_WORDS_MAX: callers check
 * user-supplied sizes first) at index, on the same CPU, before the ring
 * wraps onto it.
 */
bool ttrace_ring_reserve(struct ttrace_ring *r, uint32_t nslots, uint64_t *index);
void ttrace_ring_commit(struct ttrace_ring *r, uint64_t index, const struct ttrace_event *ev);

/* Discards every entry reserved so far, counting the stored ones as cleared. */
void ttrace_ring_clear(struct ttrace_ring *r);

/* A clear between its two halves: what the first found, for the second to store. */
struct ttrace_clearing {
	uint32_t seq;	  /* clear_seq before the clear: even */
	uint64_t head;	  /* the head it clears up to */
	uint64_t from;	  /* the oldest entry still stored then */
	uint64_t cleared; /* the ledger's count before it */
};

/*
 * The two halves of ttrace_ring_clear(), for tests that pause a clear
 * mid-way, as reserve and commit are for writes: begin makes clear_seq
 * odd and takes head, end stores what the clear leaves and makes
 * clear_seq even. Between them, counts and readers wait for the clear.
 */
void ttrace_ring_clear_begin(struct ttrace_ring *r, struct ttrace_clearing *c);
void ttrace_ring_clear_end(struct ttrace_ring *r, const struct ttrace_clearing *c);

#endif
