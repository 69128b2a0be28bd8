/*
 * trace_ring: the lock-free reader (R1-R5 of abi/trace.h) and the
 * counters; the writer and the clear they pair with are in
 * kernel/trace/ring_write.c. Slots are only ever accessed a whole 64-bit
 * word at a time, with __atomic loads and stores, so a reader racing a
 * writer reads whole old or whole new words and the copy is validated
 * afterwards.
 */
#include "common/trace_ring.h"

#include "abi/errno.h"

/* Clears do not take long: this many retries only fail if one never ends. */
#define COUNTS_TRIES 100000

void ttrace_ring_get(struct ttrace_ring *r, const struct ttrace_area *a, uint32_t cpu)
{
	struct ttrace_header *h = a->hdr;

	r->hdr = h;
	r->state = &h->cpu[cpu];
	r->log = &h->clear_log[cpu];
	r->slots = a->rings + (uint64_t)cpu * h->ring_entries;
	r->tail = a->reader ? &a->reader->cpu[cpu].tail : NULL;
	r->entries = h->ring_entries;
	r->index_mask = h->ring_entries - 1;
	r->cpu = cpu;
}

int ttrace_ring_counts(const struct ttrace_ring *r, struct ttrace_counts *c)
{
	const struct ttrace_cpu *s = r->state;
	uint64_t clear, cleared, head, dropped, filtered;
	uint32_t seq;
	int tries = 0;
	bool torn;

	do {
		/*
		 * acquire: pairs with the release store that makes clear_seq
		 * even in ttrace_ring_clear_end()
		 */
		seq = __atomic_load_n(&s->clear_seq, __ATOMIC_ACQUIRE);
		/*
		 * acquire: pairs with the release stores in
		 * ttrace_ring_clear_end(); the loads below stay after
		 */
		clear = __atomic_load_n(&s->clear_index, __ATOMIC_ACQUIRE);
		cleared = __atomic_load_n(&s->cleared, __ATOMIC_ACQUIRE);
		/*
		 * seq_cst, head and clear_seq again: pairs with the seq_cst store
		 * and load in ttrace_ring_clear_begin(). If head is newer than
		 * the one a clear took, that clear shows in clear_seq (a plain
		 * load on x86: free). head is at least clear, read after it.
		 */
		head = __atomic_load_n(&s->head, __ATOMIC_SEQ_CST);
		/* relaxed: counters */
		dropped = __atomic_load_n(&s->dropped, __ATOMIC_RELAXED);
		filtered = __atomic_load_n(&s->filtered, __ATOMIC_RELAXED);
		torn = (seq & 1) || __atomic_load_n(&s->clear_seq, __ATOMIC_SEQ_CST) != seq;
	} while (torn && ++tries < COUNTS_TRIES);

	uint64_t lo = ttrace_ring_oldest(head, r->entries, clear);

	c->head = head;
	c->emitted = head + dropped + filtered;
	c->stored = head - lo;
	c->overwritten = lo - cleared;
	c->dropped = dropped;
	c->cleared = cleared;
	c->filtered = filtered;
	return torn ? -EBUSY : 0;
}

void ttrace_cursor_init(struct ttrace_cursor *c, uint64_t index)
{
	*c = (struct ttrace_cursor){
	    .index = index, .end = UINT64_MAX, .synced = true, .settled = index == 0};
}

void ttrace_cursor_init_last(struct ttrace_cursor *c, const struct ttrace_ring *r, uint64_t n)
{
	/* relaxed: a starting point; R1-R5 validate whatever it finds */
	uint64_t head = __atomic_load_n(&r->state->head, __ATOMIC_RELAXED);

	*c = (struct ttrace_cursor){
	    .index = head > n ? head - n : 0, .end = UINT64_MAX, .synced = head <= n};
}

enum copy_result {
	COPY_EVENT,	/* an event, still to be checked against head (R5) */
	COPY_LAPPED,	/* an event whose continuation was overwritten (R4) */
	COPY_CONT,	/* the slot holds a continuation */
	COPY_NOT_READY, /* being written, or an older lap, or a newer one */
	COPY_CHANGED	/* the slot changed while it was copied: look again */
};

/*
 * R5's first half: true if word 1 or ts of slot s differ from the copy e
 * made in R3. Only once they match is the copy's ncont the writer's.
 */
static bool slot_changed(const union ttrace_slot *s, const union ttrace_slot *e)
{
	/*
	 * acquire, both: the loads before stay before them, and the second
	 * after the first. A writer that started on the slot since R3 changed
	 * one of them.
	 */
	return __atomic_load_n(&s->word[1], __ATOMIC_ACQUIRE) != e->word[1] ||
	       __atomic_load_n(&s->word[0], __ATOMIC_ACQUIRE) != e->word[0];
}

/* R3 and R4: copies the event at index i into *rec; *nslots is the slots it takes. */
static enum copy_result copy_event(const struct ttrace_ring *r, uint64_t i,
				   struct ttrace_record *rec, uint32_t *nslots)
{
	const union ttrace_slot *s = ttrace_ring_slot(r, i);
	union ttrace_slot e;

	/* acquire: pairs with the release store of word 1 in ttrace_ring_commit() (W2) */
	e.word[1] = __atomic_load_n(&s->word[1], __ATOMIC_ACQUIRE);
	/* acquire: pairs with the release store publishing ts in ttrace_ring_commit() (W3) */
	e.word[0] = __atomic_load_n(&s->word[0], __ATOMIC_ACQUIRE);
	if (e.word[0] == TTRACE_TS_WRITING) {
		return COPY_NOT_READY;
	}
	if (e.word[0] & TTRACE_TS_CONT) {
		return COPY_CONT;
	}
	if (e.e.seq != (uint32_t)i) {
		return COPY_NOT_READY;
	}
	for (uint32_t w = 2; w < TTRACE_SLOT_WORDS; w++) {
		/* acquire: pairs with the release stores of W2, for R5 */
		e.word[w] = __atomic_load_n(&s->word[w], __ATOMIC_ACQUIRE);
	}
	uint32_t ncont = TTRACE_NCONT_OF(e.e.ctx);
	uint32_t k = 0;

	*nslots = 1 + ncont;
	for (uint32_t w = 0; w < TTRACE_HEAD_WORDS; w++) {
		rec->data[k++] = e.e.data[w];
	}
	for (uint32_t j = 1; j <= ncont; j++) {
		const union ttrace_slot *cs = ttrace_ring_slot(r, i + j);

		/* acquire: pairs with the release store of the continuation's ts (W3) */
		if (__atomic_load_n(&cs->word[0], __ATOMIC_ACQUIRE) != (e.e.ts | TTRACE_TS_CONT)) {
			return slot_changed(s, &e) ? COPY_CHANGED : COPY_LAPPED;
		}
		for (uint32_t w = 1; w < TTRACE_SLOT_WORDS; w++) {
			/* acquire: pairs with the release stores of W2, for R5 */
			rec->data[k++] = __atomic_load_n(&cs->word[w], __ATOMIC_ACQUIRE);
		}
	}
	if (slot_changed(s, &e)) {
		return COPY_CHANGED;
	}
	while (k < TTRACE_EVENT_WORDS_MAX) {
		rec->data[k++] = 0;
	}
	rec->ts = e.e.ts;
	rec->pid = e.e.pid;
	rec->tid = e.e.tid;
	rec->kind = e.e.kind;
	rec->cpu = e.e.cpu;
	rec->ctx = TTRACE_CTX_OF(e.e.ctx);
	rec->ncont = (uint8_t)ncont;
	return COPY_EVENT;
}

/* What became of entries a reader found gone (R2, R5). */
enum gone {
	GONE_OVERWRITTEN, /* reserved again: lost */
	GONE_CLEARED,	  /* a clear came past them: R1 splits them */
	GONE_CLEARING	  /* a clear is taking head now: ask again once it ends */
};

/*
 * Entries from i on are gone (R2, R5). If a clear allowed their reuse, it
 * is visible now (the acquire load of head or of a slot word that showed
 * the reuse pairs with the writer's release stores, made after it read
 * clear_index with acquire): *clear is updated, and R1 splits them. A
 * clear that has taken a head above i but not yet published clear_index
 * counts some of them cleared too, so until it ends they are neither.
 * Otherwise they were overwritten.
 */
static enum gone gone_how(const struct ttrace_ring *r, uint64_t i, uint64_t *clear)
{
	/*
	 * seq_cst: pairs with the seq_cst store and load in
	 * ttrace_ring_clear_begin(), after the seq_cst load of head that
	 * showed these entries gone: a clear that took an older head shows
	 * here. It is acquire too: the load of clear_index stays after it.
	 */
	uint32_t seq = __atomic_load_n(&r->state->clear_seq, __ATOMIC_SEQ_CST);
	/* acquire: pairs with the release store of clear_index in ttrace_ring_clear_end() */
	*clear = __atomic_load_n(&r->state->clear_index, __ATOMIC_ACQUIRE);
	if (i < *clear) {
		return GONE_CLEARED;
	}
	return seq & 1 ? GONE_CLEARING : GONE_OVERWRITTEN;
}

/* What the clears of one ring left, as one snapshot. */
struct clears {
	uint64_t index;	  /* clear_index */
	uint64_t cleared; /* the ledger's cleared count */
	uint32_t ended;	  /* clears that ended (clear_seq / 2) */
	struct ttrace_clear log[TTRACE_CLEAR_LOG];
};

/*
 * clear_index, cleared and the clear log as clears left them (the seqlock
 * of CLEAR in abi/trace.h). Returns false if a clear stayed in progress
 * through every try (one interrupted for good, as by a panic on its CPU).
 */
static bool clear_snapshot(const struct ttrace_ring *r, struct clears *c)
{
	const struct ttrace_cpu *s = r->state;

	for (int tries = 0; tries < COUNTS_TRIES; tries++) {
		/* acquire, all: as in ttrace_ring_counts() */
		uint32_t seq = __atomic_load_n(&s->clear_seq, __ATOMIC_ACQUIRE);
		c->index = __atomic_load_n(&s->clear_index, __ATOMIC_ACQUIRE);
		c->cleared = __atomic_load_n(&s->cleared, __ATOMIC_ACQUIRE);
		for (int k = 0; k < TTRACE_CLEAR_LOG; k++) {
			c->log[k].from = __atomic_load_n(&r->log->clear[k].from, __ATOMIC_ACQUIRE);
			c->log[k].to = __atomic_load_n(&r->log->clear[k].to, __ATOMIC_ACQUIRE);
		}
		c->ended = seq / 2;
		/* relaxed: the acquire loads above keep it after them */
		if (!(seq & 1) && __atomic_load_n(&s->clear_seq, __ATOMIC_RELAXED) == seq) {
			return true;
		}
	}
	return false;
}

/*
 * Of the entries [i, stop), those the clears discarded, from the log
 * (R1): the clears with to > i, newest first, each take the part of its
 * [from, to) at or above i. Below the oldest of them still logged, when
 * more ran than the log holds, everything counts cleared.
 */
static uint64_t cleared_between(const struct clears *c, uint64_t i, uint64_t stop)
{
	uint32_t logged = c->ended < TTRACE_CLEAR_LOG ? c->ended : TTRACE_CLEAR_LOG;
	uint64_t gone = 0, known = stop;

	for (uint32_t k = 0; k < logged; k++) {
		/* unsigned: wraps with clear_seq, whose range 2^31 is a multiple of the log's */
		const struct ttrace_clear *e = &c->log[(c->ended - 1 - k) % TTRACE_CLEAR_LOG];
		uint64_t from = e->from > i ? e->from : i;
		uint64_t to = e->to < stop ? e->to : stop;

		if (e->to <= i) {
			return gone; /* this one and all before it lie below i */
		}
		gone += to > from ? to - from : 0;
		known = from < known ? from : known;
	}
	return logged == c->ended ? gone : gone + (known - i);
}

/*
 * R1: the entries from c->index up to clear_index (*clear, at least that)
 * are gone; they count as the ledger counts them. Settled, the cursor
 * knows the ledger's cleared count below its index, so the difference is
 * exact whatever clears ran; otherwise the clear log splits them. Past
 * the cursor's end only the part below it counts. Returns false, having
 * moved nothing, while a clear is in progress through every try of the
 * snapshot: the split is not known yet (R6 decides when to stop waiting).
 */
static bool skip_cleared(const struct ttrace_ring *r, struct ttrace_cursor *c, uint64_t *clear)
{
	struct clears now;

	if (!clear_snapshot(r, &now)) {
		return false;
	}
	uint64_t to = now.index > *clear ? now.index : *clear;
	uint64_t stop = to < c->end ? to : c->end;
	uint64_t skipped = stop - c->index;
	uint64_t gone;

	*clear = to;
	if (stop == to && c->settled && now.cleared >= c->below) {
		gone = now.cleared - c->below;
	} else {
		gone = cleared_between(&now, c->index, stop);
	}
	if (gone > skipped) {
		gone = skipped;
	}
	c->cleared += gone;
	c->lost += skipped - gone;
	c->index = stop;
	c->synced = true;
	c->settled = stop == to;
	c->below = now.cleared;
	return true;
}

/*
 * R2 moved the cursor to head - N: every entry below is final (a clear
 * below clear_index, the rest reserved over), and the ledger's cleared
 * count below it is the whole count, unless a clear ran meanwhile.
 */
static void settle_after_lap(const struct ttrace_ring *r, struct ttrace_cursor *c)
{
	struct clears now;

	c->settled = clear_snapshot(r, &now) && now.index <= c->index;
	c->below = now.cleared;
}

size_t ttrace_ring_read(const struct ttrace_ring *r, struct ttrace_cursor *c,
			struct ttrace_record *out, size_t max)
{
	const struct ttrace_cpu *s = r->state;
	/* acquire: pairs with the release store of clear_index in ttrace_ring_clear_end() (R1) */
	uint64_t clear = __atomic_load_n(&s->clear_index, __ATOMIC_ACQUIRE);
	/*
	 * acquire: pairs with the writer's release reservation (W1); seq_cst
	 * for gone_how()
	 */
	uint64_t head = __atomic_load_n(&s->head, __ATOMIC_SEQ_CST);
	size_t n = 0;

	while (n < max && c->index < head && c->index < c->end) {
		uint64_t i = c->index;
		uint32_t nslots = 1;

		if (i < clear) { /* R1 */
			if (!skip_cleared(r, c, &clear)) {
				break;
			}
			continue;
		}
		if (head - i > r->entries) { /* R2 */
			enum gone how = gone_how(r, i, &clear);

			if (how == GONE_CLEARING) {
				break;
			}
			if (how == GONE_OVERWRITTEN) {
				uint64_t to = head - r->entries;

				c->index = to < c->end ? to : c->end;
				c->lost += c->index - i;
				c->synced = c->index == c->end; /* an end is a head value */
				settle_after_lap(r, c);
			}
			continue;
		}
		enum copy_result got = copy_event(r, i, &out[n], &nslots);

		/*
		 * seq_cst: as above; copy_event's acquire loads keep it after
		 * them (R5).
		 */
		head = __atomic_load_n(&s->head, __ATOMIC_SEQ_CST);
		if (got == COPY_EVENT && head - i <= r->entries) {
			out[n++].index = i;
			c->index = i + nslots;
			c->synced = true;
			c->settled = false;
		} else if (got == COPY_EVENT || got == COPY_LAPPED) {
			enum gone how = gone_how(r, i, &clear);

			if (how == GONE_CLEARING) {
				break;
			}
			if (how == GONE_OVERWRITTEN) {
				c->lost += nslots;
				c->index = i + nslots;
				c->synced = true;
				c->settled = false;
			}
		} else if (got == COPY_CONT && !c->synced) {
			c->lost++;
			c->index++;
			c->settled = false;
		} else if (got != COPY_CHANGED && head - i <= r->entries) {
			break; /* not written yet: a later call retries */
		}
	}
	return n;
}

/*
 * R6 for a reader held up at i below clear_index by a clear that does not
 * end: the stretch of that clear, the N entries below clear_index, counts
 * cleared, and what lies below it lost (the log, which would split them
 * exactly, is what the clear was writing). Up to the cursor's end only.
 */
static void skip_unended_clear(const struct ttrace_ring *r, struct ttrace_cursor *c, uint64_t clear)
{
	uint64_t i = c->index;
	uint64_t stop = clear < c->end ? clear : c->end;
	uint64_t kept = ttrace_ring_oldest(clear, r->entries, i);
	uint64_t gone = stop > kept ? stop - kept : 0;

	c->cleared += gone;
	c->lost += stop - i - gone;
	c->stuck += stop - i - gone;
	c->index = stop;
	c->synced = true; /* clear_index and an end are head values */
}

enum ttrace_wait ttrace_ring_wait(const struct ttrace_ring *r, struct ttrace_cursor *c,
				  uint64_t now, uint64_t patience)
{
	/* acquire: pairs with the writer's release reservation (W1) */
	uint64_t head = __atomic_load_n(&r->state->head, __ATOMIC_ACQUIRE);
	/* acquire: pairs with the release store of clear_index in ttrace_ring_clear_end() */
	uint64_t clear = __atomic_load_n(&r->state->clear_index, __ATOMIC_ACQUIRE);
	uint64_t i = c->index;

	if (i >= head || i >= c->end) {
		c->waiting = false;
		return TTRACE_WAIT_NONE;
	}
	if (!c->waiting || c->wait_index != i) {
		c->waiting = true;
		c->wait_index = i;
		c->wait_since = now;
	}
	if (now - c->wait_since < patience) {
		return TTRACE_WAIT_MORE;
	}
	c->settled = false;
	c->waiting = false;
	if (i < clear) {
		skip_unended_clear(r, c, clear);
		return TTRACE_WAIT_SKIPPED;
	}
	uint64_t to = head - i > r->entries ? head - r->entries : i + 1;

	to = to < c->end ? to : c->end;
	c->lost += to - i;
	c->stuck += to - i;
	c->index = to;
	c->synced = false;
	return TTRACE_WAIT_SKIPPED;
}

int ttrace_ring_publish_tail(const struct ttrace_ring *r, uint64_t index)
{
	if (!r->tail) {
		return -EACCES;
	}
	/* release: pairs with the acquire load of the tail in ttrace_ring_reserve() */
	__atomic_store_n(r->tail, index, __ATOMIC_RELEASE);
	return 0;
}
