/*
 * emit: the events written through the slow path besides the tracepoints'
 * own (ttrace_emit_slow(), tracepoint.h): user events and events with a
 * call stack.
 */
#ifndef SPOOR_TRACE_EMIT_H
#define SPOOR_TRACE_EMIT_H

#include <stdbool.h>
#include <stdint.h>

struct stack_start;

/* A user event's write (abi/uevent.h), in context TTRACE_CTX_USER; false if not stored. */
bool ttrace_emit_user(const uint64_t *data, uint8_t nwords);

/*
 * An event of a kernel kind with its call stack walked from s (stack.h),
 * or without one for NULL, whatever TTRACE_OP_STACK chose: the
 * profiler's samples. Callers check
 * the kind's category first, as TTRACE() does.
 */
void ttrace_emit_stacked(uint16_t kind, const uint64_t *data, uint8_t nwords,
			 const struct stack_start *s);

#endif
