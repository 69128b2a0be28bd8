/*
 * window: the export window's ring read in place by the host (window.h).
 * Every value the guest wrote is read once into a local and checked
 * before it is used as a size or an offset; the guest may change the
 * window at any moment, so nothing is read twice and trusted the second
 * time.
 */
#include <stdio.h>
#include <string.h>

#include "abi/trace_file.h"
#include "tools/spoor-receive/window.h"

#define ALIGN TTRACE_EXPORT_ALIGN

/* The ring's place in the window, checked: NULL, or why it is not one the window can hold. */
static const char *geometry(const struct window *w, const uint8_t **ring, uint64_t *size)
{
	struct ttrace_export_ctl c;

	if (!w->base || w->size < TTRACE_EXPORT_CTL_SIZE) {
		return "the window is smaller than its control page";
	}
	memcpy(&c, w->base, sizeof(c));
	if (c.magic != TTRACE_EXPORT_MAGIC || c.version != TTRACE_EXPORT_VERSION) {
		return "the window is not an export ring of version 2";
	}
	if (c.ring_offset < TTRACE_EXPORT_CTL_SIZE || c.ring_offset % ALIGN || !c.ring_size ||
	    c.ring_size % ALIGN || c.ring_offset > w->size ||
	    c.ring_size > w->size - c.ring_offset) {
		return "the window's ring does not fit the window";
	}
	*ring = w->base + c.ring_offset;
	*size = c.ring_size;
	return NULL;
}

static struct ttrace_export_ctl *ctl(const struct window *w)
{
	return (struct ttrace_export_ctl *)w->base;
}

static uint64_t head_of(const struct window *w)
{
	/* acquire: pairs with the guest's release store of head (E3) */
	return __atomic_load_n(&ctl(w)->head, __ATOMIC_ACQUIRE);
}

static void tail_set(struct window *w, uint64_t tail)
{
	w->tail = tail;
	/* release: the guest reuses the bytes below it only after this (E6, pairs with E1) */
	__atomic_store_n(&ctl(w)->tail, tail, __ATOMIC_RELEASE);
}

/*
 * What both readers of the ring start from: the ring, checked (geometry()),
 * and the head the guest has published, loaded once. NULL, or why the
 * window is bad.
 */
static const char *ring_and_head(const struct window *w, const uint8_t **ring, uint64_t *size,
				 uint64_t *head)
{
	const char *bad = geometry(w, ring, size);

	if (!bad) {
		*head = head_of(w);
	}
	return bad;
}

const char *window_take(struct window *w, window_sink *sink, void *ctx)
{
	static char why[160];
	const uint8_t *ring;
	uint64_t size, head;
	const char *bad = ring_and_head(w, &ring, &size, &head);

	if (bad) {
		return bad;
	}
	if (head % ALIGN || head - w->tail > size) {
		snprintf(why, sizeof(why),
			 "the window's head %llu is not within the ring past %llu",
			 (unsigned long long)head, (unsigned long long)w->tail);
		return why;
	}
	while (w->tail != head) {
		struct ttrace_export_rec r;
		uint64_t off = w->tail % size, room = size - off, step;

		/* off is a multiple of ALIGN below size, itself one: the head fits. */
		memcpy(&r, ring + off, sizeof(r));
		if (r.pos != w->tail) {
			snprintf(why, sizeof(why), "the record at %llu says it is at %llu",
				 (unsigned long long)w->tail, (unsigned long long)r.pos);
			return why;
		}
		if (r.magic == TTRACE_EXPORT_PAD && !r.len) {
			step = room;
		} else if (r.magic == TTRACE_EXPORT_REC && r.len % 8 == 0) {
			step = sizeof(r) + ((uint64_t)r.len + ALIGN - 1) / ALIGN * ALIGN;
		} else {
			snprintf(why, sizeof(why),
				 "the record at %llu is not one (magic %#x, length %u)",
				 (unsigned long long)w->tail, r.magic, r.len);
			return why;
		}
		if (step > room || step > head - w->tail) {
			snprintf(
			    why, sizeof(why),
			    "the record at %llu (%llu bytes) passes the ring's end or its head",
			    (unsigned long long)w->tail, (unsigned long long)step);
			return why;
		}
		if (r.magic == TTRACE_EXPORT_REC && r.len) {
			bad = sink(ctx, ring + off + sizeof(r), r.len);
			if (bad) {
				return bad;
			}
		}
		tail_set(w, w->tail + step);
	}
	return NULL;
}

const char *window_skip(struct window *w)
{
	const uint8_t *ring;
	uint64_t size, head;
	const char *bad = ring_and_head(w, &ring, &size, &head);

	if (bad) {
		return bad;
	}
	if (head % ALIGN) {
		return "the window's head is not a record boundary";
	}
	tail_set(w, head);
	return NULL;
}

void window_refuse(struct window *w, uint32_t why)
{
	if (w->base && w->size >= TTRACE_EXPORT_CTL_SIZE) {
		/* release: pairs with the guest's acquire load of refused before it publishes */
		__atomic_store_n(&ctl(w)->refused, why, __ATOMIC_RELEASE);
	}
}
