/*
 * recorder: the panic-time flight recorder's read of one ring: the newest
 * events, read with the lock-free reader (common/trace_ring.h) while the
 * other CPUs are stopped wherever they were. A CPU stopped between its
 * reservation and its commit leaves a slot being written for ever; the
 * reader stops there, so the recorder steps over it, counts it, and
 * reads on to the newest event.
 */
#ifndef SPOOR_TRACE_RECORDER_H
#define SPOOR_TRACE_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#include "common/trace_ring.h"

/*
 * Reads up to max of the events of ring r's last `window` entries into
 * out, in index order; *skipped is set to the slots it stepped over
 * because they were being written. Returns the events read. Pure: no
 * locks, no allocation, safe with every other CPU stopped anywhere.
 */
size_t recorder_read(const struct ttrace_ring *r, uint64_t window, struct ttrace_record *out,
		     size_t max, uint64_t *skipped);

#endif
