/*
 * trigger: the kinds' triggers in the kernel (abi/trace_pred.h,
 * TRIGGERS). ktrace.c installs one with every other CPU stopped
 * (ttrace_trigger()), as it does a filter; the paths that run filters
 * (emit.c, pred_run.h) run a trigger's program, lowered or compiled as a
 * filter's is, right after the kind's filter, on the events the filter
 * keeps. The locking is the filters' (filter.h):
 * no CPU is inside a trigger's program while one is replaced. What a
 * firing changes is atomic, since every CPU may fire a trigger at once:
 * the counts, the moment of the first firing, the stop and the saves the
 * reader has yet to hear of (wake.c tells it, at a tick).
 */
#ifndef SPOOR_TRACE_TRIGGER_H
#define SPOOR_TRACE_TRIGGER_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/trace.h"
#include "abi/trace_pred.h"
#include "common/trace_pred_jump.h"

/*
 * Every other CPU stopped, interrupts off: kind's trigger becomes t (an
 * action and a program ttrace_pred_verify() accepted for kind, which j
 * is lowered by pred_record_lower()), or none for action
 * TTRACE_TRIG_NONE (j then ignored), its counts from zero. The rings
 * start again if kind's trigger stopped them.
 */
void trigger_install(uint16_t kind, const struct ttrace_trigger *t,
		     const struct ttrace_pred_jumps *j);

/* kind's trigger as GET gives it (abi/trace_pred.h). control_mutex held (ktrace.c). */
void trigger_get(uint16_t kind, struct ttrace_trigger *t);

/* The kinds with a trigger: bit k for kind k. */
uint64_t trigger_kinds(void);

/* Whether a STOP trigger is set: every enabled site then takes the slow path (an extra). */
bool trigger_stop_set(void);

/*
 * [a] kind + 1 of the STOP trigger that stopped the rings, 0 while they
 * take events. Read by the slow path inline (trigger_stopped()), where a
 * call would cost every event more than the test does.
 */
extern uint32_t trigger_stopped_by;

/*
 * [stop] Each kind's trigger's program, NULL for none. Read inline as
 * filter_of is (filter.h): a trigger that does not fire costs an event
 * what a filter that keeps it does.
 */
extern const struct ttrace_pred_jumps *trigger_of[TTRACE_KIND_LIMIT];

/*
 * Interrupts off, right after kind's trigger_of held (the slow path,
 * which the compiled code sends a firing to, checks again): counts the
 * firing (and keeps the moment of the first, for a save, which it marks
 * for the reader) and returns the action the caller carries out, or
 * TTRACE_TRIG_NONE for a SAVE that fired before (one save a trigger).
 */
uint32_t trigger_fired(uint16_t kind);

/*
 * Interrupts off, right after the reservation of the event whose
 * trigger returned TTRACE_TRIG_STOP: the rings take nothing more.
 */
void trigger_stop(uint16_t kind);

/* Whether a STOP trigger stopped the rings. Any context. */
static inline bool trigger_stopped(void)
{
	/* relaxed: a CPU that has not seen the stop yet reserves as it did before it */
	return __atomic_load_n(&trigger_stopped_by, __ATOMIC_RELAXED) != 0;
}

/*
 * Whether a SAVE trigger fired since the last call said so: the reader
 * is to be told (wake.c). Any context.
 */
bool trigger_saves_pending(void);

/* Takes what trigger_saves_pending() saw: true if this call took it. */
bool trigger_saves_take(void);

#endif
