/*
 * ring_write_one: the writer's straight path (ring_write.c), inline, for
 * the kernel's tracepoints: an event of one slot in overwrite mode, as
 * every kernel kind is, without a call. Private to the writer: only
 * ring_write.c and the tracepoints' path (emit.c) include it; others
 * call ttrace_ring_write() (ring_write.h), which takes this path too.
 */
#ifndef SPOOR_TRACE_RING_WRITE_ONE_H
#define SPOOR_TRACE_RING_WRITE_ONE_H

#include "trace/ring_write.h"

/*
 * head and dropped are per-CPU counters in the way of Linux's local_t:
 * only the ring's own CPU writes them, so a read-modify-write needs to be
 * atomic only against an interrupt on that CPU, which a single
 * instruction is without the lock prefix. (A locked one also waits for
 * the store buffer to drain, the previous event's stores still in it:
 * most of what this writer once cost over the floor, bench/ringbench.)
 * Other CPUs only load them, and an aligned 8-byte store is never torn.
 * On x86 every store is a release, so the asm's "memory" clobber, which
 * keeps the compiler from moving earlier accesses after it, is all W1's
 * release needs.
 *
 * ThreadSanitizer cannot see into asm: its build (tests/host/tsan) takes
 * the same steps with __atomic builtins, with the same orders, as
 * asm-generic/local.h does for architectures without such instructions.
 */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RING_WRITE_GENERIC 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || !defined(__x86_64__)
#define RING_WRITE_GENERIC 1
#endif

/* *p += v, returning the old *p; one instruction an interrupt cannot split. Release. */
static inline uint64_t local_fetch_add(uint64_t *p, uint64_t v)
{
#ifdef RING_WRITE_GENERIC
	return __atomic_fetch_add(p, v, __ATOMIC_RELEASE);
#else
	__asm__ volatile("xaddq %0, %1" : "+r"(v), "+m"(*p) : : "memory", "cc");
	return v;
#endif
}

/*
 * If *p == *old, stores desired in *p and returns true; else loads *p into
 * *old and returns false. One instruction an interrupt cannot split.
 * Release on success, relaxed on failure.
 */
static inline bool local_cmpxchg(uint64_t *p, uint64_t *old, uint64_t desired)
{
#ifdef RING_WRITE_GENERIC
	return __atomic_compare_exchange_n(p, old, desired, false, __ATOMIC_RELEASE,
					   __ATOMIC_RELAXED);
#else
	bool ok;

	__asm__ volatile("cmpxchgq %3, %1"
			 : "=@ccz"(ok), "+m"(*p), "+a"(*old)
			 : "r"(desired)
			 : "memory");
	return ok;
#endif
}

/* Overwrite mode, the common case: relaxed, a write racing a mode change may use either mode. */
static inline __attribute__((always_inline)) bool overwriting(const struct ttrace_ring *r)
{
	return __builtin_expect(
	    __atomic_load_n(&r->hdr->mode, __ATOMIC_RELAXED) != TTRACE_MODE_DROP, 1);
}

/* W1 in overwrite mode. Release: pairs with the readers' acquire loads of head (R1-R5). */
static inline __attribute__((always_inline)) uint64_t reserve_overwrite(struct ttrace_ring *r,
									uint32_t nslots)
{
	return local_fetch_add(&r->state->head, nslots);
}

/*
 * The ts the head entry at slot s publishes (W3): never the one the slot
 * holds (a clock that stood still for a lap), or a reader could take the
 * old entry's ts for the new one's (R5).
 */
static inline uint64_t fresh_ts(const union ttrace_slot *s, uint64_t ts)
{
	/* relaxed: only this CPU writes the slot */
	return __atomic_load_n(&s->word[0], __ATOMIC_RELAXED) == ts ? ts ^ 2 : ts;
}

/* Word 1 of a head entry (seq, kind, cpu, ctx: struct ttrace_entry, little-endian). */
static inline uint64_t head_word1(const struct ttrace_ring *r, uint64_t index,
				  const struct ttrace_event *ev, uint32_t ncont)
{
	/* kind and ctx in place, the rest masked: one load (struct ttrace_event) */
	uint64_t kind_ctx = ev->kind_ctx & (0xffffu | (uint32_t)TTRACE_CTX_MASK << 24);

	return (uint32_t)index | kind_ctx << 32 | (uint64_t)r->cpu << 48 |
	       (uint64_t)ncont << (56 + TTRACE_CTX_NCONT_SHIFT);
}

/* Word 2 of a head entry: pid, tid. */
static inline uint64_t head_word2(const struct ttrace_event *ev)
{
	return ev->pid | (uint64_t)ev->tid << 32;
}

/*
 * Stores word i of slot s. Release: pairs with the reader's acquire loads
 * of the slot's words (R3, R4): who sees this word also sees every store
 * before it, the marking and the reservation included (W2; R5 relies on
 * it), and who sees a published ts sees the whole event (W3).
 */
static inline void put(union ttrace_slot *s, uint32_t i, uint64_t w)
{
	__atomic_store_n(&s->word[i], w, __ATOMIC_RELEASE);
}

/*
 * W2-W3 for an event of one slot, from its words: ts as the event has it
 * (bits 0 and 63 are not kept), word1 and word2 as head_word1() and
 * head_word2() make them, d0..d4 its data (zero past its words).
 */
static inline __attribute__((always_inline)) void store_one(union ttrace_slot *s, uint64_t ts,
							    uint64_t word1, uint64_t word2,
							    uint64_t d0, uint64_t d1, uint64_t d2,
							    uint64_t d3, uint64_t d4)
{
	uint64_t fresh = fresh_ts(s, ts & TTRACE_TS_MASK);

	_Static_assert(TTRACE_HEAD_WORDS == 5 && TTRACE_SLOT_WORDS == 8, "the stores below");
	put(s, 0, TTRACE_TS_WRITING);
	put(s, 1, word1);
	put(s, 2, word2);
	put(s, 3, d0);
	put(s, 4, d1);
	put(s, 5, d2);
	put(s, 6, d3);
	put(s, 7, d4);
	put(s, 0, fresh);
}

/* W2-W3 for an event of one slot (nwords <= TTRACE_HEAD_WORDS). */
static inline __attribute__((always_inline)) void commit_one(struct ttrace_ring *r, uint64_t index,
							     const struct ttrace_event *ev)
{
	const uint64_t *d = ev->data;
	uint32_t n = ev->nwords;

	store_one(ttrace_ring_slot(r, index), ev->ts, head_word1(r, index, ev, 0), head_word2(ev),
		  n > 0 ? d[0] : 0, n > 1 ? d[1] : 0, n > 2 ? d[2] : 0, n > 3 ? d[3] : 0,
		  n > 4 ? d[4] : 0);
}

/*
 * ttrace_ring_write() of an event of one slot (ev->nwords <=
 * TTRACE_HEAD_WORDS). False, having written nothing, in drop mode: the
 * caller then goes through ttrace_ring_write().
 */
static inline __attribute__((always_inline)) bool
ttrace_ring_write_one(struct ttrace_ring *r, const struct ttrace_event *ev)
{
	if (!overwriting(r)) {
		return false;
	}
	commit_one(r, reserve_overwrite(r, 1), ev);
	return true;
}

#endif
