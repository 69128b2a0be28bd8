/*
 * ranges: one CPU's entries copied as a range (ranges.h). The reader
 * protocol of abi/trace.h (R1-R5) is applied to the range, not entry by
 * entry: one head load before the copy (R1, R2), one after it (R5's
 * lap check for every slot at once), and per event only the tests that
 * need its own words: being written (ts all ones), an older lap not yet
 * marked (seq), and ts unchanged in the ring since the copy (R5: a write
 * that began meanwhile changed it). No clear runs while a recording does
 * (CLEAR answers -EBUSY) or a save (traced serves one request at a time),
 * so clear_index stays below the cursor.
 */
#include <string.h>

#include "abi/trace.h"
#include "abi/traced.h"
#include "servers/traced/ranges.h"
#include "servers/traced/state.h"

#define SLOT	   TTRACE_ENTRY_SIZE
#define NCONT_BITS (3u << TTRACE_CTX_NCONT_SHIFT) /* ctx's continuations */

/*
 * The copy, one string instruction for the whole run of slots: a loop of
 * moves takes two instructions a word and its own three a slot, and the
 * copy is most of a range's cost (traced's drain, counted in
 * instructions: make bench).
 */
static void copy_slots(union ttrace_slot *dst, const union ttrace_slot *src, uint64_t n)
{
	uint64_t words = n * (SLOT / sizeof(uint64_t));

	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(words) : : "memory");
}

/*
 * R5's test of one event: whether the ring's ts, apart bytes from the
 * copy's slot d, is still ts, the copy's. One compare with the ring's
 * word as its operand (volatile: made where it stands, after the copy and
 * the head's acquire load that come before it in range_copy()).
 */
static inline bool still(const union ttrace_slot *d, intptr_t apart, uint64_t ts)
{
	bool changed;

	__asm__ volatile("cmp %[ts], (%[d],%[apart])"
			 : "=@ccne"(changed)
			 : [d] "r"(d), [apart] "r"(apart), [ts] "r"(ts));
	return !changed;
}

/*
 * R3-R5 for the copied slots dst[k..n), ring indices from idx on: the
 * whole events among them that were written before the copy and are
 * still in the ring as copied, up to the first that is not. Returns the
 * slot after the last one taken; *events counts them. One pass, with
 * the tests an event needs of its own words only: being written or a
 * continuation (ts bit 0: TTRACE_TS_WRITING has it too), an older lap
 * not yet begun (seq), and its ts unchanged in the ring since the copy
 * (R5: a write that began meanwhile changed it). Within a stretch of
 * slots that does not wrap the ring, the ring's slot of dst[k] lies at
 * a fixed distance from it, so that test needs no index arithmetic.
 */
static uint64_t take(const union ttrace_slot *dst, uint64_t k, uint64_t n, uint64_t idx,
		     const struct ttrace_ring *r, uint64_t *events)
{
	const union ttrace_slot *ring = r->slots;
	const uint64_t mask = r->index_mask, n_ring = r->entries;
	uint64_t conts = 0, from = k;
	bool held = false;

	while (k < n && !held) {
		uint64_t first = idx & mask;
		uint64_t stretch = n - k < n_ring - first ? n - k : n_ring - first;
		const union ttrace_slot *d = dst + k, *end = d + stretch;
		const intptr_t apart = (const char *)&ring[first] - (const char *)d;
		for (; d < end; d++, idx++) {
			uint64_t ts = d->e.ts;
			if ((ts & TTRACE_TS_CONT) || d->e.seq != (uint32_t)idx ||
			    !still(d, apart, ts)) {
				held = true; /* being written, or not yet begun: the next look */
				break;
			}
			if (__builtin_expect(d->e.ctx & NCONT_BITS, 0)) {
				/* Taken when its continuations were copied too; the stretch may
				 * end inside it, so a new one starts after it. */
				uint64_t cont = TTRACE_NCONT_OF(d->e.ctx);
				held = (uint64_t)(d - dst) + 1 + cont > n;
				conts += held ? 0 : cont;
				idx += held ? 0 : 1 + cont;
				d += held ? 0 : 1 + cont;
				break;
			}
		}
		k = (uint64_t)(d - dst);
	}
	*events = k - from - conts;
	return k;
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
	uint64_t v = k, events;
	k = take(dst, k, n, i + k, r, &events);
	uint64_t idx = i + k;
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
