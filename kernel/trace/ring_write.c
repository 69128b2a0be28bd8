/*
 * ring_write: the ring writer (W1-W3 of abi/trace.h) and the clear; the
 * reader they pair with is common/trace_ring.c. Slots are only ever
 * written a whole 64-bit word at a time, with __atomic stores, so a
 * reader racing the writer reads whole old or whole new words.
 */
#include "trace/ring_write.h"

bool ttrace_ring_reserve(struct ttrace_ring *r, uint32_t nslots, uint64_t *index)
{
	struct ttrace_cpu *s = r->state;

	/* relaxed: a write racing a mode change may use either mode; both count exactly */
	if (__atomic_load_n(&r->hdr->mode, __ATOMIC_RELAXED) != TTRACE_MODE_DROP) {
		/*
		 * release: pairs with the readers' acquire loads of head (R1-R5),
		 * as the drop-mode compare-and-swap's does (W1); one locked
		 * instruction on x86, so it costs nothing over relaxed, and an
		 * interrupt on this CPU cannot split it.
		 */
		*index = __atomic_fetch_add(&s->head, nslots, __ATOMIC_RELEASE);
		return true;
	}
	/* relaxed: a nested write moving head makes the compare-and-swap below retry */
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
			/* relaxed: a counter, read by ttrace_ring_counts() */
			__atomic_fetch_add(&s->dropped, nslots, __ATOMIC_RELAXED);
			return false;
		}
		/*
		 * release: pairs with the reader's acquire loads of head (R2,
		 * R5), which then see the clear acted on; relaxed on failure.
		 */
	} while (!__atomic_compare_exchange_n(&s->head, &head, head + nslots, false,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	*index = head;
	return true;
}

static uint64_t data_word(const struct ttrace_event *ev, uint32_t k)
{
	return k < ev->nwords ? ev->data[k] : 0;
}

void ttrace_ring_commit(struct ttrace_ring *r, uint64_t index, const struct ttrace_event *ev)
{
	uint32_t nslots = TTRACE_EVENT_SLOTS(ev->nwords);
	uint64_t ts = ev->ts & TTRACE_TS_MASK;
	uint8_t ctx = TTRACE_CTX_MAKE(ev->ctx & TTRACE_CTX_MASK, nslots - 1);
	uint32_t k = 0; /* the next data word */

	/*
	 * relaxed: only this CPU writes the slot. A head entry's ts must differ
	 * from the one its slot held (a clock that stood still for a lap), or
	 * a reader could take the old entry's ts for this one's (R5).
	 */
	if (__atomic_load_n(&ttrace_ring_slot(r, index)->word[0], __ATOMIC_RELAXED) == ts) {
		ts ^= 2;
	}

	for (uint32_t j = 0; j < nslots; j++) {
		union ttrace_slot *s = ttrace_ring_slot(r, index + j);
		uint64_t w[TTRACE_SLOT_WORDS];
		uint32_t first = 1;

		if (j == 0) {
			/* seq, kind, cpu, ctx; pid, tid: struct ttrace_entry, little-endian */
			w[1] = (uint32_t)index | (uint64_t)ev->kind << 32 | (uint64_t)r->cpu << 48 |
			       (uint64_t)ctx << 56;
			w[2] = ev->pid | (uint64_t)ev->tid << 32;
			first = 3;
		}
		for (uint32_t i = first; i < TTRACE_SLOT_WORDS; i++) {
			w[i] = data_word(ev, k++);
		}
		/*
		 * release: pairs with the reader's acquire loads of ts (R3,
		 * R4): who sees the marking also sees the reservation.
		 */
		__atomic_store_n(&s->word[0], TTRACE_TS_WRITING, __ATOMIC_RELEASE);
		for (uint32_t i = 1; i < TTRACE_SLOT_WORDS; i++) {
			/*
			 * release: pairs with the reader's acquire loads of the
			 * slot's words (R3, R4): who sees this word also sees the
			 * marking above and the reservation (R5 relies on it).
			 */
			__atomic_store_n(&s->word[i], w[i], __ATOMIC_RELEASE);
		}
	}
	for (uint32_t j = nslots - 1; j > 0; j--) {
		/* release: pairs with the acquire load of a continuation's ts in R4 */
		__atomic_store_n(&ttrace_ring_slot(r, index + j)->word[0], ts | TTRACE_TS_CONT,
				 __ATOMIC_RELEASE);
	}
	/* release: pairs with the acquire load of ts in R3; publishes the whole event */
	__atomic_store_n(&ttrace_ring_slot(r, index)->word[0], ts, __ATOMIC_RELEASE);
}

bool ttrace_ring_write(struct ttrace_ring *r, const struct ttrace_event *ev)
{
	uint64_t index;

	if (ev->nwords > TTRACE_EVENT_WORDS_MAX) {
		return false;
	}
	if (!ttrace_ring_reserve(r, TTRACE_EVENT_SLOTS(ev->nwords), &index)) {
		return false;
	}
	ttrace_ring_commit(r, index, ev);
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

	/* release: pairs with the acquire load of cleared in ttrace_ring_counts() */
	__atomic_store_n(&s->cleared, cleared + head - ttrace_ring_oldest(head, r->entries, old),
			 __ATOMIC_RELEASE);
	/*
	 * release: pairs with the acquire loads of clear_index in
	 * ttrace_ring_counts() and ttrace_ring_read() (R1), which then read a
	 * head at least this one.
	 */
	__atomic_store_n(&s->clear_index, head, __ATOMIC_RELEASE);
	/* release: pairs with the acquire load of clear_seq in ttrace_ring_counts() */
	__atomic_store_n(&s->clear_seq, seq + 2, __ATOMIC_RELEASE);
}
