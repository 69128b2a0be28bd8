/*
 * state: traced's shared state, the one home of what every operation
 * reads: the trace area init hands traced (the trace-read capability in
 * CAP_SLOT_TRACE_READ, trace control in CAP_SLOT_TRACE_CONTROL) as
 * traced_map() maps it, its rings, the aux snapshot room and the
 * decoder. traced_map() refuses an area it cannot read with one line and
 * exit status 1. The operations (main.c's table) and the stream behind
 * them (merge.c) only read this state, never each other's.
 */
#include <errno.h>
#include <spoor.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/naming.h"
#include "servers/traced/kframes.h"
#include "servers/traced/state.h"

struct traced traced;
static struct ttrace_uevent_slot uevent_slots[UEVENT_MAX]; /* the decoder's definitions */

uint64_t traced_ns(uint64_t ts)
{
	const struct ttrace_header *h = traced.area.hdr;
	uint64_t d = ts > h->boot_tsc ? ts - h->boot_tsc : 0;

	if (!h->tsc_hz) {
		return d;
	}
	/* d % tsc_hz < tsc_hz, so times 10^9 fits 64 bits for a TSC below 18 GHz */
	return d / h->tsc_hz * 1000000000ull + d % h->tsc_hz * 1000000000ull / h->tsc_hz;
}

/* The part of a mapping of size bytes at base that region [off, off + ...) can use. */
static void *region(uint8_t *base, uint64_t size, uint64_t off, uint64_t *len)
{
	*len = off < size ? size - off : 0;
	return base + (off < size ? off : 0);
}

static void refuse(const char *what, const char *why)
{
	printf("traced: %s: %s; exiting\n", what, why);
	exit(1);
}

void traced_map(void)
{
	struct cap_info info;
	char why[160];
	long base = sys_trace_map(CAP_SLOT_TRACE_READ, TTRACE_MAP_AREA, NULL);

	if (base == -ENOMEM) {
		/* Said once: init does not restart a server that exits so. */
		printf("traced: the kernel has no trace area (its ttrace: line at boot says why); "
		       "nothing to serve\n");
		exit(SERVICE_EXIT_UNAVAILABLE);
	}
	if (base < 0) {
		refuse("cannot map the trace area", strerror((int)-base));
	}
	long err = sys_cap_identify(CAP_SLOT_TRACE_READ, &info);
	if (err) {
		refuse("cannot size the trace area", strerror((int)-err));
	}
	uint8_t *b = (uint8_t *)base;
	struct ttrace_area *a = &traced.area;
	a->hdr = (struct ttrace_header *)b;
	a->hdr_len = info.size;
	/* Offsets come from the header, which ttrace_area_check() then checks against the mapping.
	 */
	a->rings = region(b, info.size, a->hdr_len >= sizeof(*a->hdr) ? a->hdr->ring_offset : 0,
			  &a->rings_len);
	a->aux = region(b, info.size, a->hdr_len >= sizeof(*a->hdr) ? a->hdr->aux_offset : 0,
			&a->aux_len);
	long reader = sys_trace_map(CAP_SLOT_TRACE_CONTROL, TTRACE_MAP_READER, NULL);
	if (reader < 0) {
		refuse("cannot map the trace reader page", strerror((int)-reader));
	}
	a->reader = (struct ttrace_reader *)reader;
	a->reader_len = TTRACE_PAGE_SIZE;
	if (ttrace_area_check(a, why, sizeof(why))) {
		refuse("trace area refused", why);
	}
	traced.ncpus = a->hdr->num_cpus;
	for (uint32_t i = 0; i < traced.ncpus; i++) {
		ttrace_ring_get(&traced.ring[i], a, i);
	}
	traced.aux_copy_size = a->hdr->aux_ring_size;
	long copy = sys_mem_map_anon(NULL, traced.aux_copy_size, PROT_READ | PROT_WRITE);
	if (copy < 0) {
		refuse("no memory for aux snapshots", strerror((int)-copy));
	}
	/* Committed now, as the rest of traced is at spawn: no request may need a frame. */
	long committed = sys_mem_commit((void *)copy, traced.aux_copy_size);
	if (committed) {
		printf("traced: no memory for aux snapshots: %s\n", strerror((int)-committed));
		exit(EXIT_NO_MEMORY); /* init waits for memory, then starts it again */
	}
	traced.aux_copy = (uint64_t *)copy;
	ttrace_decoder_init(&traced.decoder, &traced.area, uevent_slots);
	traced.decoder.symbolize = kframes_name;
}
