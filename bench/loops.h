/*
 * loops: the measured loops of ringbench, one per row of its table. Each
 * writes n events of the same payload (five data words that change with
 * every event) in its own way and returns nothing: ringbench.c times the
 * call. This file's code is built with the kernel's code-generation flags
 * (bench/bench.mk), so the loops around the code under test are compiled
 * as a kernel tracepoint's surroundings are; they run on the CPU
 * ringbench pinned itself to.
 */
#ifndef SPOOR_BENCH_LOOPS_H
#define SPOOR_BENCH_LOOPS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/trace_ring.h"

/* The ring loop_spoor() writes, and the floor's ring: r->entries slots. */
void loops_init(struct ttrace_ring *r, union ttrace_slot *floor_ring);

/* (a) ttrace_ring_write() of kernel/trace/ring_write.c, as the kernel builds it. */
void loop_spoor(uint64_t n);

/* (b) The floor: rdtsc, eight stores of a 64-byte record, index++, into a ring of equal size. */
void loop_floor(uint64_t n);

/* (c), (d) An enabled LTTng-UST tracepoint: the discard session's, the snapshot session's. */
void loop_lttng_discard(uint64_t n);
void loop_lttng_snapshot(uint64_t n);

/* (e) A disabled Spoor tracepoint: TTRACE()'s static branch, a 5-byte NOP. */
void loop_spoor_disabled(uint64_t n);

/* (f) A disabled LTTng-UST tracepoint (enabled in no session). */
void loop_lttng_disabled(uint64_t n);

/* (g) The loop alone. */
void loop_empty(uint64_t n);

/* Whether the LTTng session daemon enabled the discard and snapshot events for us. */
bool loops_lttng_enabled(void);

#endif
