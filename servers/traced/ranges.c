/*
 * ranges: one CPU's entries copied as a range (ranges.h). The reader
 * protocol of abi/trace.h (R1-R5) is applied to the range, not entry by
 * entry: one head load before the copy (R1, R2), one after it (R5's
 * lap check for every slot at once), and per event only the tests that
 * need its own words: being written (ts all ones), an older lap not yet
 * marked (seq), and ts unchanged in the ring since the copy (R5: a write
 * that began meanwhile changed it). No clear runs while a recording does
 * (CLEAR answers -EBUSY), so clear_index stays below the cursor.
 */
#include <string.h>

#include "abi/trace.h"
#include "abi/traced.h"
#include "servers/traced/ranges.h"
#include "servers/traced/state.h"

#define SLOT TTRACE_ENTRY_SIZE

/*
 * A slot a turn, its eight words written out by the compiler: libc's
 * memcpy loops a word at a time, and this copy is most of a range's cost.
 */
static void copy_slots(union ttrace_slot *dst, const union ttrace_slot *src, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++) {
		__builtin_memcpy(&dst[k], &src[k], sizeof(dst[k]));
	}
}

static void lost_slot(union ttrace_slot *slot, uint32_t cpu, uint64_t n)
{
	*slot = (union ttrace_slot){0};
	slot->e = (struct ttrace_entry){.kind = TRACED_KIND_LOST, .cpu = (uint8_t)cpu, .data = {n}};
}

void range_copy(uint32_t cpu, struct range_cursor *c, uint64_t end, uint8_t *out, size_t max,
		struct range *res)
{
	const struct ttrace_ring *r = &traced.ring[cpu];
	union ttrace_slot *dst = (union ttrace_slot *)out;
	uint64_t n_ring = r->entries, i = c->next, lost = c->skipped;
	bool synced = !c->unsynced;

	*res = (struct range){0};
	/* acquire: pairs with the writer's reservation (abi/trace.h W1) */
	uint64_t head = __atomic_load_n(&r->state->head, __ATOMIC_ACQUIRE);
	end = end < head ? end : head;
	if (head > n_ring && head - n_ring > i) {
		/* R2: overwritten before the copy, up to the recording's end at most. */
		uint64_t to = head - n_ring < end ? head - n_ring : end;
		lost += to - i;
		i = to;
		synced = false;
	}
	/* One slot of max stays free: a marker may have to go in front. */
	uint64_t n = end - i, room = max / SLOT - 1;
	n = n < room ? n : room;
	uint64_t first = i & r->index_mask, part = n < n_ring - first ? n : n_ring - first;
	copy_slots(dst, &r->slots[first], part);
	copy_slots(dst + part, &r->slots[0], n - part);

	/* acquire: the copy's loads are done before the head is loaded again (R5) */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	uint64_t head2 = __atomic_load_n(&r->state->head, __ATOMIC_ACQUIRE);
	uint64_t k = 0;
	if (head2 > n_ring && head2 - n_ring > i) {
		/* Reserved again while copied: a writer may have written into the copy. */
		k = head2 - n_ring - i < n ? head2 - n_ring - i : n;
		lost += k;
		synced = false;
	}
	/* R3: after a loss, continuations whose head entry was lost. */
	while (!synced && k < n && dst[k].e.ts != TTRACE_TS_WRITING &&
	       (dst[k].e.ts & TTRACE_TS_CONT)) {
		lost++;
		k++;
	}
	uint64_t v = k, idx = i + k, events = 0;
	/* In locals: the acquire loads below would make the compiler reload fields. */
	const union ttrace_slot *ring = r->slots;
	const uint64_t mask = r->index_mask;
	while (k < n) {
		const struct ttrace_entry *e = &dst[k].e;
		uint64_t slots = 1 + TTRACE_NCONT_OF(e->ctx);
		if (e->ts == TTRACE_TS_WRITING || (e->ts & TTRACE_TS_CONT) ||
		    e->seq != (uint32_t)idx || k + slots > n) {
			break; /* being written, or not yet begun (an older lap): the next look */
		}
		/* acquire: R5, each event's ts as the ring has it after the copy */
		if (__atomic_load_n(&ring[idx & mask].e.ts, __ATOMIC_ACQUIRE) != e->ts) {
			break;
		}
		events++;
		k += slots;
		idx += slots;
	}
	res->events = events;
	res->entries = k - v;
	/* Synced again only at an event it took: until then a continuation is an orphan (R3). */
	c->unsynced = !synced && k == v;
	if (lost) {
		if (!v) {
			memmove(dst + 1, dst, k * SLOT); /* the free slot at the end takes it */
			v++;
			k++;
		}
		lost_slot(&dst[--v], cpu, lost);
	}
	if (v) {
		memmove(dst, dst + v, (k - v) * SLOT);
	}
	res->lost = lost;
	res->len = (k - v) * SLOT;
	c->next = idx;
	c->skipped = 0;
}

void range_skip(struct range_cursor *c)
{
	c->next++;
	c->unsynced = 1;
	c->skipped++;
}
