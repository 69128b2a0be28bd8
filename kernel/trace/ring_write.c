/*
 * ring_write: the ring writer (W1-W3 of abi/trace.h) and the clear; the
 * reader they pair with is common/trace_ring.c. Slots are only ever
 * written a whole 64-bit word at a time, with __atomic stores, so a
 * reader racing the writer reads whole old or whole new words.
 *
 * These are the slow path's steps (ttrace_emit_full() and
 * ttrace_emit_user() in emit.c): in overwrite mode one unlocked add
 * reserves, and an event of one slot, which every kernel kind fits in, is
 * nine stores with no loop and no copy. Drop mode's reservation and events
 * with continuations (user events) take the out-of-line paths below. (The
 * tracepoints' straight path writes the same entries with instructions of
 * its own at each site, reserving by compare-and-exchange so as to read
 * the clock in between: trace/tracepoint.h.)
 */
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

/* W1 in drop mode: out of line, the fast path is overwrite mode's. */
static __attribute__((noinline)) bool reserve_drop(struct ttrace_ring *r, uint32_t nslots,
						   uint64_t *index)
{
	struct ttrace_cpu *s = r->state;
	/* relaxed: only this CPU stores head; a nested write moving it fails the exchange below */
	uint64_t head = __atomic_load_n(&s->head, __ATOMIC_RELAXED);

	do {
		/*
		 * acquire: pairs with the release store in
		 * ttrace_ring_publish_tail(): the reader's copies of the
		 * entries below the tail are done before their slots are reused.
		 */
		uint64_t keep = r->tail ? __atomic_load_n(r->tail, __ATOMIC_ACQUIRE) : 0;
		/*
		 * acquire: pairs with the release store in ttrace_ring_clear_end().
		 * Cleared entries may be reused; through the release stores
		 * below, a reader that sees them reused sees this clear too.
		 */
		uint64_t clear = __atomic_load_n(&s->clear_index, __ATOMIC_ACQUIRE);

		if (keep < clear) {
			keep = clear;
		}
		if (keep > head) {
			keep = head;
		}
		if (head - keep + nslots > r->entries) {
			/* release, more than needed: a counter, read by ttrace_ring_counts() */
			local_fetch_add(&s->dropped, nslots);
			return false;
		}
		/*
		 * release: pairs with the reader's acquire loads of head (R2,
		 * R5), which then see the clear acted on. A nested write that
		 * moved head since the load fails it, and the loop retries.
		 */
	} while (!local_cmpxchg(&s->head, &head, head + nslots));
	*index = head;
	return true;
}

bool ttrace_ring_reserve(struct ttrace_ring *r, uint32_t nslots, uint64_t *index)
{
	if (!overwriting(r)) {
		return reserve_drop(r, nslots, index);
	}
	*index = reserve_overwrite(r, nslots);
	return true;
}

static uint64_t data_word(const struct ttrace_event *ev, uint32_t k)
{
	return k < ev->nwords ? ev->data[k] : 0;
}

/* W2-W3 for an event with continuations: out of line. */
static __attribute__((noinline)) void commit_multi(struct ttrace_ring *r, uint64_t index,
						   const struct ttrace_event *ev)
{
	uint32_t nslots = TTRACE_EVENT_SLOTS(ev->nwords);
	uint64_t ts = fresh_ts(ttrace_ring_slot(r, index), ev->ts & TTRACE_TS_MASK);
	uint32_t k = 0; /* the next data word */

	for (uint32_t j = 0; j < nslots; j++) {
		union ttrace_slot *s = ttrace_ring_slot(r, index + j);
		uint32_t i = 1;

		put(s, 0, TTRACE_TS_WRITING);
		if (j == 0) {
			put(s, 1, head_word1(r, index, ev, nslots - 1));
			put(s, 2, head_word2(ev));
			i = 3;
		}
		for (; i < TTRACE_SLOT_WORDS; i++) {
			put(s, i, data_word(ev, k++));
		}
	}
	for (uint32_t j = nslots - 1; j > 0; j--) {
		/* the continuations' ts before the head entry's, which publishes the event (W3) */
		put(ttrace_ring_slot(r, index + j), 0, ts | TTRACE_TS_CONT);
	}
	put(ttrace_ring_slot(r, index), 0, ts);
}

void ttrace_ring_commit(struct ttrace_ring *r, uint64_t index, const struct ttrace_event *ev)
{
	if (__builtin_expect(ev->nwords > TTRACE_HEAD_WORDS, 0)) {
		commit_multi(r, index, ev);
	} else {
		commit_one(r, index, ev);
	}
}

void ttrace_ring_clear_begin(struct ttrace_ring *r, struct ttrace_clearing *c)
{
	struct ttrace_cpu *s = r->state;
	/* relaxed: only clears store these three, and callers serialise them */
	uint64_t old = __atomic_load_n(&s->clear_index, __ATOMIC_RELAXED);

	c->seq = __atomic_load_n(&s->clear_seq, __ATOMIC_RELAXED);
	c->cleared = __atomic_load_n(&s->cleared, __ATOMIC_RELAXED);
	/*
	 * seq_cst, the store and the load of head: the odd clear_seq is seen
	 * before head is loaded (x86 would let a plain load pass the store).
	 * Pairs with the seq_cst loads of head, then clear_seq, in the
	 * readers' ttrace_ring_counts() and lap check: one that loads a head
	 * newer than this clear's then sees the clear in progress, not the
	 * clear_index and cleared of before it (its overwritten would go
	 * back, its lost take what the ledger counts cleared). Any recent
	 * head will do; later entries are kept.
	 */
	__atomic_store_n(&s->clear_seq, c->seq + 1, __ATOMIC_SEQ_CST);
	c->head = __atomic_load_n(&s->head, __ATOMIC_SEQ_CST);
	c->from = ttrace_ring_oldest(c->head, r->entries, old);
}

void ttrace_ring_clear_end(struct ttrace_ring *r, const struct ttrace_clearing *c)
{
	struct ttrace_cpu *s = r->state;
	struct ttrace_clear *logged = &r->log->clear[c->seq / 2 % TTRACE_CLEAR_LOG];

	/*
	 * release, each of the four: pairs with the acquire loads in
	 * ttrace_ring_counts() and the reader's clear_snapshot(), and keeps
	 * the odd clear_seq before it
	 */
	__atomic_store_n(&logged->from, c->from, __ATOMIC_RELEASE);
	__atomic_store_n(&logged->to, c->head, __ATOMIC_RELEASE);
	__atomic_store_n(&s->cleared, c->cleared + c->head - c->from, __ATOMIC_RELEASE);
	/* release, too: ttrace_ring_read() (R1) then reads a head at least this one */
	__atomic_store_n(&s->clear_index, c->head, __ATOMIC_RELEASE);
	/* release: pairs with the acquire load of clear_seq in ttrace_ring_counts() */
	__atomic_store_n(&s->clear_seq, c->seq + 2, __ATOMIC_RELEASE);
}

void ttrace_ring_clear(struct ttrace_ring *r)
{
	struct ttrace_clearing c;

	ttrace_ring_clear_begin(r, &c);
	ttrace_ring_clear_end(r, &c);
}
