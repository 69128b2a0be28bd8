/*
 * Tests kernel/trace/recorder.c: the flight recorder reads past a slot
 * whose writer never committed (a CPU stopped by the panic between its
 * reservation and its commit), counts it, and returns every whole event
 * before and after it.
 */
#include <stdbool.h>
#include <stdint.h>

#include "abi/trace.h"
#include "area.h"
#include "common/trace_ring.h"
#include "test.h"
#include "trace/recorder.h"
#include "trace/ring_write.h"
#include "writers.h"

#define RING_SLOTS 64
#define BEFORE	   5 /* events written before the stuck slot */
#define AFTER	   3 /* and after it */

static const struct ttrace_geometry geometry = {.num_cpus = 1,
						.ring_entries = RING_SLOTS,
						.aux_durable_size = 64,
						.aux_ring_size = TTRACE_AUX_RING_MIN,
						.tsc_hz = 1000000000ull};

static void write_tick(struct ttrace_ring *r, uint64_t seq)
{
	const uint64_t data[1] = {seq};
	struct ttrace_event ev = {.ts = 1000 + 2 * seq,
				  .pid = 1,
				  .tid = 1,
				  .kind = TTRACE_KIND_test_tick,
				  .nwords = 1,
				  .data = data};

	CHECK(host_slow_write(r, &ev), "a write is stored");
}

TEST(recorder_steps_over_a_slot_being_written_and_reads_what_follows)
{
	struct ttrace_area a;
	struct ttrace_ring r;
	struct ttrace_record out[RING_SLOTS];
	uint64_t index, skipped;

	test_area_get(&a, &geometry, false);
	ttrace_ring_get(&r, &a, 0);
	for (uint64_t i = 0; i < BEFORE; i++) {
		write_tick(&r, i);
	}
	/* Reserved and never committed: the writer's CPU stopped here. */
	CHECK(ttrace_ring_reserve(&r, 1, &index), "the stuck reservation");
	for (uint64_t i = BEFORE; i < BEFORE + AFTER; i++) {
		write_tick(&r, i);
	}
	size_t n = recorder_read(&r, RING_SLOTS, out, RING_SLOTS, &skipped);
	CHECK_EQ_UINT(n, BEFORE + AFTER, "every whole event, before and after the stuck slot");
	CHECK_EQ_UINT(skipped, 1, "the stuck slot, counted");
	for (size_t i = 0; i < n; i++) {
		CHECK_EQ_UINT(out[i].data[0], i, "in order");
	}
	test_area_put(&a);
}

TEST(recorder_reads_a_quiet_ring_whole)
{
	struct ttrace_area a;
	struct ttrace_ring r;
	struct ttrace_record out[RING_SLOTS];
	uint64_t skipped;

	test_area_get(&a, &geometry, false);
	ttrace_ring_get(&r, &a, 0);
	for (uint64_t i = 0; i < RING_SLOTS + BEFORE; i++) {
		write_tick(&r, i);
	}
	size_t n = recorder_read(&r, 16, out, RING_SLOTS, &skipped);
	CHECK_EQ_UINT(n, 16, "the window's events");
	CHECK_EQ_UINT(skipped, 0, "nothing skipped");
	CHECK_EQ_UINT(out[15].data[0], RING_SLOTS + BEFORE - 1, "the newest last");
	test_area_put(&a);
}
