/*
 * ring_write: the ring writer (W1-W3 of abi/trace.h) and the clear; the
 * reader they pair with is common/trace_ring.c. Slots are only ever
 * written a whole 64-bit word at a time, with __atomic stores, so a
 * reader racing the writer reads whole old or whole new words.
 *
 * The fast path is an event of one slot in overwrite mode, which is what
 * the kernel writes (every kernel kind fits in one slot): one unlocked
 * add reserves it, one load reads the ts the slot held, nine stores
 * write it, with no loop and no copy. Drop mode's reservation and events
 * with continuations (user events) take the out-of-line paths below.
 * The fast path itself, and the local_t operations, are in
 * ring_write_one.h, so the kernel's emit path can inline it.
 */
#include "trace/ring_write.h"
#include "trace/ring_write_one.h"

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
		 * acquire: pairs with the release store in ttrace_ring_clear().
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

/* ttrace_ring_write() in drop mode, or for an event with continuations or too many words. */
static __attribute__((noinline)) bool write_slow(struct ttrace_ring *r,
						 const struct ttrace_event *ev)
{
	uint64_t index;

	if (ev->nwords > TTRACE_EVENT_WORDS_MAX ||
	    !ttrace_ring_reserve(r, TTRACE_EVENT_SLOTS(ev->nwords), &index)) {
		return false;
	}
	ttrace_ring_commit(r, index, ev);
	return true;
}

bool ttrace_ring_write(struct ttrace_ring *r, const struct ttrace_event *ev)
{
	if (__builtin_expect(ev->nwords > TTRACE_HEAD_WORDS, 0) || !ttrace_ring_write_one(r, ev)) {
		return write_slow(r, ev);
	}
	return true;
}

void ttrace_ring_clear(struct ttrace_ring *r)
{
	struct ttrace_cpu *s = r->state;
	/* relaxed: only clears store these three, and callers serialise them */
	uint32_t seq = __atomic_load_n(&s->clear_seq, __ATOMIC_RELAXED);
	uint64_t old = __atomic_load_n(&s->clear_index, __ATOMIC_RELAXED);
	uint64_t cleared = __atomic_load_n(&s->cleared, __ATOMIC_RELAXED);

	/* relaxed: the release stores below keep it before them */
	__atomic_store_n(&s->clear_seq, seq + 1, __ATOMIC_RELAXED);
	/* relaxed: any recent value will do; later entries are kept */
	uint64_t head = __atomic_load_n(&s->head, __ATOMIC_RELAXED);
	uint64_t from = ttrace_ring_oldest(head, r->entries, old);
	struct ttrace_clear *logged = &r->log->clear[seq / 2 % TTRACE_CLEAR_LOG];

	/*
	 * release, each of the four: pairs with the acquire loads in
	 * ttrace_ring_counts() and the reader's clear_snapshot(), and keeps
	 * the odd clear_seq before it
	 */
	__atomic_store_n(&logged->from, from, __ATOMIC_RELEASE);
	__atomic_store_n(&logged->to, head, __ATOMIC_RELEASE);
	__atomic_store_n(&s->cleared, cleared + head - from, __ATOMIC_RELEASE);
	/* release, too: ttrace_ring_read() (R1) then reads a head at least this one */
	__atomic_store_n(&s->clear_index, head, __ATOMIC_RELEASE);
	/* release: pairs with the acquire load of clear_seq in ttrace_ring_counts() */
	__atomic_store_n(&s->clear_seq, seq + 2, __ATOMIC_RELEASE);
}
