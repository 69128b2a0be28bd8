/*
 * emit: what the tracepoints' straight path (emit.c) shares with the rest
 * of the kernel's tracing (ktrace.c). Private to the two.
 */
#ifndef SPOOR_TRACE_EMIT_H
#define SPOOR_TRACE_EMIT_H

#include <stdint.h>

/*
 * [control_lock in ktrace.c, a] Nonzero while PID tracking, the echo or
 * drop mode is on, or before the rings are ready: the tracepoints then
 * take ttrace_emit_slow(), which checks all of it. One load on the
 * straight path instead of four.
 */
extern uint32_t ttrace_emit_extras;

/*
 * The full path for a tracepoint's event: kind_n is TTRACE_KIND_WORD(kind)
 * with its number of words in the low byte, d0..d4 the words. Checks PID
 * tracking, the echo, the ring and the mode.
 */
void ttrace_emit_slow(uint64_t kind_n, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3,
		      uint64_t d4);

#endif
