/*
 * loops: the measured loops (see loops.h). Every loop makes the same
 * payload from its counter, so no row writes less than another, and ends
 * its body with the same empty asm that keeps the empty loop a loop: the
 * disabled rows then differ from the empty one by the tracepoint alone.
 */
#include "bench/loops.h"

#include "abi/trace.h"
#include "arch/x86_64/cpu.h"
#include "bench/lttng_probe.h"
#include "trace/ktrace.h"
#include "trace/ring_write.h"
#include "tests/host/writers.h"

#define BENCH_PID 7
#define BENCH_TID 9

/* The five data words of event i. */
#define PAYLOAD(i) (i), (i) + 1, (i) + 2, (i) + 3, (i) + 4

/* Keeps the loop and its counter without a memory clobber: costs no instruction. */
#define LOOP_KEEP(i) __asm__ volatile("" : : "r"(i))

static struct ttrace_ring *ring;

/* The floor's ring: as many 64-byte slots as the Spoor ring, and its head. */
static union ttrace_slot *floor_slots;
static uint64_t floor_entries;
static uint64_t floor_head;

/*
 * What TTRACE() below calls on its slow path (trace/tracepoint.h). Its
 * site is a NOP nothing here rewrites, so it is never reached; it writes
 * as the slow path's ring steps would, leaving nothing to the straight
 * path.
 */
bool ttrace_emit_slow(uint32_t kind_n, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3,
		      uint64_t d4)
{
	const uint64_t data[] = {d0, d1, d2, d3, d4};
	struct ttrace_event ev = {.ts = rdtsc(),
				  .pid = BENCH_PID,
				  .tid = BENCH_TID,
				  .kind = (uint8_t)kind_n,
				  .ctx = TTRACE_CTX_KERNEL,
				  .nwords = (uint8_t)(kind_n >> TTRACE_SLOW_NWORDS_SHIFT),
				  .data = data};

	host_slow_write(ring, &ev);
	return false;
}

void loops_init(struct ttrace_ring *r, union ttrace_slot *floor_ring)
{
	static struct cpu cpu;

	ring = r;
	floor_slots = floor_ring;
	floor_entries = r->entries;
	host_cpu_enter(&cpu, r);
	host_cpu_ids(BENCH_PID, BENCH_TID);
}

void loop_spoor(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		ttrace_write_here(TTRACE_KIND_test_tick, PAYLOAD(i));
		LOOP_KEEP(i);
	}
}

void loop_spoor_slow(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		const uint64_t data[] = {PAYLOAD(i)};
		struct ttrace_event ev = {.ts = rdtsc(),
					  .pid = BENCH_PID,
					  .tid = BENCH_TID,
					  .kind = TTRACE_KIND_test_tick,
					  .ctx = TTRACE_CTX_KERNEL,
					  .nwords = TTRACE_HEAD_WORDS,
					  .data = data};
		uint64_t index;

		if (ttrace_ring_reserve(ring, 1, &index)) {
			ttrace_ring_commit(ring, index, &ev);
		}
		LOOP_KEEP(i);
	}
}

void loop_floor(uint64_t n)
{
	const uint64_t word1 = (uint64_t)TTRACE_KIND_test_tick << 32 | (uint64_t)TTRACE_CTX_KERNEL
									   << 56;

	for (uint64_t i = 0; i < n; i++) {
		/* relaxed: a plain load and store of a head in memory, as a ring keeps one */
		uint64_t index = __atomic_load_n(&floor_head, __ATOMIC_RELAXED);
		uint64_t *w = floor_slots[index & (floor_entries - 1)].word;

		w[0] = rdtsc();
		w[1] = word1 | (uint32_t)index;
		w[2] = BENCH_PID | (uint64_t)BENCH_TID << 32;
		w[3] = i;
		w[4] = i + 1;
		w[5] = i + 2;
		w[6] = i + 3;
		w[7] = i + 4;
		__atomic_store_n(&floor_head, index + 1, __ATOMIC_RELAXED);
		LOOP_KEEP(i);
	}
}

void loop_lttng_discard(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		const uint64_t data[] = {PAYLOAD(i)};

		lttng_ust_tracepoint(spoor_bench, discard, BENCH_PID, BENCH_TID,
				     TTRACE_KIND_test_tick, TTRACE_CTX_KERNEL, data);
		LOOP_KEEP(i);
	}
}

void loop_lttng_snapshot(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		const uint64_t data[] = {PAYLOAD(i)};

		lttng_ust_tracepoint(spoor_bench, snapshot, BENCH_PID, BENCH_TID,
				     TTRACE_KIND_test_tick, TTRACE_CTX_KERNEL, data);
		LOOP_KEEP(i);
	}
}

void loop_spoor_disabled(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		TTRACE(mem_pf, i, i + 1, i + 2, i + 3);
		LOOP_KEEP(i);
	}
}

void loop_lttng_disabled(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		const uint64_t data[] = {PAYLOAD(i)};

		lttng_ust_tracepoint(spoor_bench, disabled, BENCH_PID, BENCH_TID,
				     TTRACE_KIND_test_tick, TTRACE_CTX_KERNEL, data);
		LOOP_KEEP(i);
	}
}

void loop_empty(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		LOOP_KEEP(i);
	}
}

bool loops_lttng_enabled(void)
{
	return lttng_ust_tracepoint_enabled(spoor_bench, discard) &&
	       lttng_ust_tracepoint_enabled(spoor_bench, snapshot);
}
