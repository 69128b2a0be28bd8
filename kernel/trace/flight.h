/*
 * flight: the panic block's trace part and the flight recorder.
 */
#ifndef SPOOR_TRACE_FLIGHT_H
#define SPOOR_TRACE_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "common/trace_format.h"

/* The flight recorder's decoder, one caller at a time; ttrace_init() sets it up (kernel/trace
 * only). */
extern struct ttrace_decoder decoder;

/*
 * For the panic block: every CPU's counters, then the last events of
 * cpu's ring, decoded. Lock-free: safe with the other CPUs stopped anywhere.
 */
void ttrace_panic_dump(uint32_t cpu);

/*
 * The last events of cpu's ring, decoded: the flight recorder part of the
 * panic block, and of the lockup detector's report. Returns how many it
 * printed. Lock-free, as above; one caller at a time (its buffers are
 * static).
 */
size_t ttrace_flight_recorder(uint32_t cpu);

#endif
