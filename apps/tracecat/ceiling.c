/*
 * ceiling: tracecat -c, what reading costs without traced's IPC. Maps the
 * trace area read-only (traced's MAP: the control level, `run -t`) and
 * copies every event of every ring out with the lock-free reader of
 * common/trace_ring.c, the one traced's dumps read with, timed with the
 * system clock. `make bench` sets the rate against the binary dump's:
 * the dump cannot be faster than the copy it is made of.
 */
#include "ceiling.h"

#include <spoor.h>
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#include "common/trace_header.h"
#include "common/trace_ring.h"

#define BATCH 64 /* records a read copies at a time: a dump page's worth */

static struct ttrace_record records[BATCH];

/* The area a trace-read capability maps, laid out as its header says and checked. */
static int map_area(struct ttrace_area *a)
{
	struct cap_info info;
	char why[160];
	uint32_t slot;
	long base = traced_call_map(&slot);

	base = base < 0 ? base : sys_trace_map((int)slot, TTRACE_MAP_AREA, NULL);
	long err = base < 0 ? base : sys_cap_identify((int)slot, &info);

	if (err) {
		printf("tracecat: cannot map the trace area: %s\n", strerror((int)-err));
		return -1;
	}
	*a = (struct ttrace_area){.hdr = (struct ttrace_header *)base, .hdr_len = info.size};
	/* The offsets are checked against the mapping by ttrace_area_check() below. */
	if (info.size >= sizeof(*a->hdr) && a->hdr->ring_offset < info.size &&
	    a->hdr->aux_offset < info.size) {
		a->rings = (union ttrace_slot *)((uint8_t *)base + a->hdr->ring_offset);
		a->rings_len = info.size - a->hdr->ring_offset;
		a->aux = (uint64_t *)((uint8_t *)base + a->hdr->aux_offset);
		a->aux_len = info.size - a->hdr->aux_offset;
	}
	if (ttrace_area_check(a, why, sizeof(why))) {
		printf("tracecat: trace area refused: %s\n", why);
		return -1;
	}
	return 0;
}

int ceiling(void)
{
	struct ttrace_area a;
	uint64_t events = 0, lost = 0;

	if (map_area(&a)) {
		return 1;
	}
	uint64_t start = (uint64_t)sys_clock_ns();
	for (uint32_t cpu = 0; cpu < a.hdr->num_cpus; cpu++) {
		struct ttrace_ring r;
		struct ttrace_cursor c;
		size_t n;

		ttrace_ring_get(&r, &a, cpu);
		ttrace_cursor_init(&c, 0);
		while ((n = ttrace_ring_read(&r, &c, records, BATCH)) > 0) {
			events += n;
		}
		lost += c.lost + c.cleared;
	}
	uint64_t took = (uint64_t)sys_clock_ns() - start;
	printf("tracecat: copied %llu events in %llu ns (%llu skipped)\n",
	       (unsigned long long)events, (unsigned long long)took, (unsigned long long)lost);
	return 0;
}
