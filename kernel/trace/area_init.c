/*
 * area_init: laying out and preparing a trace area (see area_init.h).
 * Nothing else runs on the area yet, so plain stores suffice.
 */
#include "trace/area_init.h"

#include <stdbool.h>

#include "abi/errno.h"

static uint64_t page_up(uint64_t v)
{
	return (v + TTRACE_PAGE_SIZE - 1) & ~(uint64_t)(TTRACE_PAGE_SIZE - 1);
}

static bool geometry_ok(const struct ttrace_geometry *g)
{
	return g->num_cpus >= 1 && g->num_cpus <= TTRACE_MAX_CPUS &&
	       ttrace_is_pow2(g->ring_entries) && g->ring_entries >= TTRACE_RING_ENTRIES_MIN &&
	       g->ring_entries <= TTRACE_RING_ENTRIES_MAX && g->aux_durable_size % 8 == 0 &&
	       g->aux_durable_size <= TTRACE_AUX_BYTES_MAX && ttrace_is_pow2(g->aux_ring_size) &&
	       g->aux_ring_size >= TTRACE_AUX_RING_MIN && g->aux_ring_size <= TTRACE_AUX_BYTES_MAX;
}

int ttrace_header_init(struct ttrace_header *h, const struct ttrace_geometry *g)
{
	if (!geometry_ok(g)) {
		return -EINVAL;
	}
	*h = (struct ttrace_header){
	    .magic = TTRACE_MAGIC,
	    .version_major = TTRACE_VERSION_MAJOR,
	    .version_minor = TTRACE_VERSION_MINOR,
	    .shared_layout = TTRACE_SHARED_LAYOUT,
	    .cpu_layout = TTRACE_CPU_LAYOUT,
	    .header_size = sizeof(struct ttrace_header),
	    .num_cpus = g->num_cpus,
	    .entry_size = TTRACE_ENTRY_SIZE,
	    .ring_entries = g->ring_entries,
	    .cont_max = TTRACE_CONT_MAX,
	    .tsc_hz = g->tsc_hz,
	    .boot_tsc = g->boot_tsc,
	    .header_bytes = page_up(sizeof(struct ttrace_header)),
	    .reader_bytes = page_up(sizeof(struct ttrace_reader)),
	    .ring_bytes = (uint64_t)g->ring_entries * TTRACE_ENTRY_SIZE,
	    .aux_durable_size = g->aux_durable_size,
	    .aux_ring_size = g->aux_ring_size,
	    .aux_mask = g->aux_ring_size - 1,
	    .mode = TTRACE_MODE_OVERWRITE,
	};
	h->reader_offset = h->header_bytes;
	h->ring_offset = h->reader_offset + h->reader_bytes;
	h->aux_offset = page_up(h->ring_offset + h->num_cpus * h->ring_bytes);
	h->area_size = page_up(h->aux_offset + h->aux_durable_size + h->aux_ring_size);
	return 0;
}

void ttrace_area_place(struct ttrace_area *a, void *base, const struct ttrace_header *h)
{
	uint8_t *b = base;

	*(struct ttrace_header *)base = *h;
	*a = (struct ttrace_area){
	    .hdr = (struct ttrace_header *)base,
	    .reader = (struct ttrace_reader *)(b + h->reader_offset),
	    .rings = (union ttrace_slot *)(b + h->ring_offset),
	    .aux = (uint64_t *)(b + h->aux_offset),
	    .hdr_len = h->header_bytes,
	    .reader_len = h->reader_bytes,
	    .rings_len = h->ring_bytes * h->num_cpus,
	    .aux_len = h->aux_durable_size + h->aux_ring_size,
	};
}

int ttrace_area_init(const struct ttrace_area *a)
{
	struct ttrace_header *h = a->hdr;
	uint64_t nslots = (uint64_t)h->num_cpus * h->ring_entries;

	if (ttrace_area_check(a, NULL, 0)) {
		return -EINVAL;
	}
	/*
	 * Plain stores: no reader or writer may use the area yet. A slot that
	 * was never written must not pass for index 0 of a zeroed ring.
	 */
	for (uint64_t i = 0; i < nslots; i++) {
		a->rings[i].word[0] = TTRACE_TS_WRITING;
		for (uint32_t w = 1; w < TTRACE_ENTRY_SIZE / 8; w++) {
			a->rings[i].word[w] = 0;
		}
	}
	if (a->reader) {
		*a->reader = (struct ttrace_reader){0};
	}
	h->aux_durable_end = 0;
	h->aux_first = h->aux_durable_size;
	h->aux_last = h->aux_durable_size;
	h->aux_evicted = 0;
	return 0;
}
