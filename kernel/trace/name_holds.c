/*
 * name_holds: the program names a dump may still need (name_holds.h).
 */
#include "trace/name_holds.h"

#include <stddef.h>

void name_holds_init(struct name_holds *n, const struct ttrace_area *area)
{
	*n = (struct name_holds){.area = area};
}

/* Whether every event of h's process has left the rings. */
static bool events_gone(const struct name_holds *n, const struct name_hold *h)
{
	const struct ttrace_header *hdr = n->area->hdr;

	if (!h->freed) {
		return false;
	}
	for (uint32_t c = 0; c < hdr->num_cpus; c++) {
		/*
		 * relaxed: both only grow, so a stale value is smaller and
		 * keeps the name longer, never shorter.
		 */
		uint64_t head = __atomic_load_n(&hdr->cpu[c].head, __ATOMIC_RELAXED);
		uint64_t clear = __atomic_load_n(&hdr->cpu[c].clear_index, __ATOMIC_RELAXED);
		uint64_t lo = head > hdr->ring_entries ? head - hdr->ring_entries : 0;

		if ((lo > clear ? lo : clear) < h->head[c]) {
			return false;
		}
	}
	return true;
}

/* A free slot, or the slot of the hold freed longest ago; NULL if all hold live processes. */
static struct name_hold *slot_for_new(struct name_holds *n)
{
	struct name_hold *oldest = NULL;

	for (size_t i = 0; i < NAME_HOLDS_MAX; i++) {
		struct name_hold *h = &n->hold[i];

		if (!h->pos || events_gone(n, h)) {
			return h;
		}
		if (h->freed && (!oldest || h->freed < oldest->freed)) {
			oldest = h;
		}
	}
	return oldest;
}

void name_holds_add(struct name_holds *n, uint32_t pid, uint64_t pos)
{
	struct name_hold *h = slot_for_new(n);

	if (h) {
		*h = (struct name_hold){.pos = pos, .pid = pid};
	}
}

void name_holds_freed(struct name_holds *n, uint32_t pid)
{
	const struct ttrace_header *hdr = n->area->hdr;

	for (size_t i = 0; i < NAME_HOLDS_MAX; i++) {
		struct name_hold *h = &n->hold[i];

		if (h->pos && !h->freed && h->pid == pid) {
			h->freed = ++n->frees;
			for (uint32_t c = 0; c < hdr->num_cpus; c++) {
				/*
				 * relaxed: this runs after the process's last
				 * event was reserved (the final reference's
				 * acq_rel put orders them), so coherence gives a
				 * head past it on every CPU.
				 */
				h->head[c] = __atomic_load_n(&hdr->cpu[c].head, __ATOMIC_RELAXED);
			}
			return;
		}
	}
}

static struct name_hold *find(struct name_holds *n, uint64_t pos)
{
	for (size_t i = 0; i < NAME_HOLDS_MAX; i++) {
		if (n->hold[i].pos == pos) {
			return &n->hold[i];
		}
	}
	return NULL;
}

static bool keep(void *ctx, uint64_t pos, uint16_t tag)
{
	struct name_holds *n = ctx;
	struct name_hold *h = tag == TTRACE_AUX_PROC ? find(n, pos) : NULL;

	if (!h) {
		return false;
	}
	if (events_gone(n, h)) {
		h->pos = 0;
		return false;
	}
	return true;
}

static void moved(void *ctx, uint64_t from, uint64_t to)
{
	struct name_hold *h = find(ctx, from);

	h->pos = to;
}

struct ttrace_aux_keeper name_holds_keeper(struct name_holds *n)
{
	return (struct ttrace_aux_keeper){.keep = keep, .moved = moved, .ctx = n};
}
