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

/*
 * The ring loop_spoor() and loop_spoor_slow() write, and the floor's ring:
 * r->entries slots. The calling thread's %gs then points at the ring's
 * simulated CPU (tests/host/writers.h), for the straight path.
 */
void loops_init(struct ttrace_ring *r, union ttrace_slot *floor_ring);

/*
 * (a) The straight path, ttrace_write_here() of kernel/trace/tracepoint.h,
 * as an enabled tracepoint runs it: the kernel runs the same instructions
 * after the static branch's jump to them.
 */
void loop_spoor(uint64_t n);

/*
 * (a') The slow path's ring write, ttrace_ring_reserve() and
 * ttrace_ring_commit() of kernel/trace/ring_write.c, without what the
 * kernel's slow path adds around it (the call, its checks, interrupts
 * masked for the reservation).
 */
void loop_spoor_slow(uint64_t n);

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
