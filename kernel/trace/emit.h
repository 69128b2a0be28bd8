/*
 * emit: the slow path, for the tracepoints' events while an extra is on
 * (tracepoint.h; pred_run.h's ttrace_emit_slow() comes here) and for the
 * events written through it besides: user events and events with a call
 * stack; and the filtered path's interpreter.
 */
#ifndef SPOOR_TRACE_EMIT_H
#define SPOOR_TRACE_EMIT_H

#include <stdbool.h>
#include <stdint.h>

struct stack_start;

/*
 * The slow path proper, as ttrace_emit_slow() (tracepoint.h) takes its
 * arguments: checks everything (PID tracking, the filter and the trigger
 * again, the stop, the echo, the stack) and writes the event. Reached by
 * jumps from ttrace_emit_slow() or the code of a kind whose trigger fired
 * (pred_run.h), never a call of its own, so its frame returns into the
 * function that has the tracepoint, where a stack walk starts. Returns
 * false: nothing is left for the straight path.
 */
bool ttrace_emit_full(uint32_t kind_n, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3,
		      uint64_t d4);

/*
 * The filtered path's interpreter (pred_run.h), reached as
 * ttrace_emit_full() is, for a kind whose programs were not compiled:
 * runs its filter and trigger with interrupts off over this CPU's record
 * (pred_record.h). Returns as ttrace_emit_slow() does: false for an event
 * rejected (counted) or handed to the slow path, true for one to write on
 * the straight path.
 */
bool ttrace_emit_filtered(uint32_t kind_n, uint64_t d0, uint64_t d1, uint64_t d2, uint64_t d3,
			  uint64_t d4);

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
