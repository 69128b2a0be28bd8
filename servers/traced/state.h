/*
 * state: the trace area as traced mapped it, which every operation reads
 * (state.c has the design note). traced is single-threaded: one request
 * at a time, so this state needs no lock.
 */
#ifndef SPOOR_TRACED_STATE_H
#define SPOOR_TRACED_STATE_H

#include <stddef.h>
#include <stdint.h>
#include "common/trace_decoder.h"
#include "common/trace_header.h"
#include "common/trace_ring.h"

/* The trace area as traced mapped it: read-only, but for the reader page. */
struct traced {
	struct ttrace_area area;
	struct ttrace_ring ring[TTRACE_MAX_CPUS];
	uint32_t ncpus;
	uint64_t *aux_copy; /* room for a snapshot of the aux ring */
	size_t aux_copy_size;
	struct ttrace_decoder decoder; /* names and user-event definitions, found once */
};

extern struct traced traced;

/* Maps the trace area into traced; exits with one line if it cannot. */
void traced_map(void);

/* ns since boot of a TSC value (0 before boot). */
uint64_t traced_ns(uint64_t ts);

#endif
