/*
 * trigger: the kinds' triggers in the kernel (abi/trace_pred.h,
 * TRIGGERS). ktrace.c installs one with every other CPU stopped
 * (ttrace_trigger()), as it does a filter; the slow path (emit.c) checks
 * it with interrupts off, right after the kind's filter, on the events
 * the filter keeps. The locking is the filters' (filter.h): no CPU is
 * inside a trigger's program while one is replaced. What a firing
 * changes is atomic, since every CPU may fire a trigger at once: the
 * counts, the moment of the first firing, the stop and the saves the
 * reader has yet to hear of (wake.c tells it, at a tick).
 */
#ifndef SPOOR_TRACE_TRIGGER_H
#define SPOOR_TRACE_TRIGGER_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/trace_pred.h"
#include "common/trace_pred.h"

/*
 * Every other CPU stopped, interrupts off: kind's trigger becomes t (an
 * action and a program ttrace_pred_verify() accepted for kind), or none
 * for action TTRACE_TRIG_NONE, its counts from zero. The rings start
 * again if kind's trigger stopped them.
 */
void trigger_install(uint16_t kind, const struct ttrace_trigger *t);

/* kind's trigger as GET gives it (abi/trace_pred.h). control_mutex held (ktrace.c). */
void trigger_get(uint16_t kind, struct ttrace_trigger *t);

/* The kinds with a trigger: bit k for kind k. */
uint64_t trigger_kinds(void);

/* Whether a STOP trigger is set: every enabled site then takes the slow path (an extra). */
bool trigger_stop_set(void);

/*
 * [stop] The kinds with a trigger, bit k for kind k; [a] kind + 1 of
 * the STOP trigger that stopped the rings, 0 while they take events.
 * Read by the slow path inline (trigger_on(), trigger_stopped()), where
 * a call would cost every event more than the test does.
 */
extern uint64_t trigger_kind_bits;
extern uint32_t trigger_stopped_by;

/* Whether kind has a trigger. Interrupts off. */
static inline bool trigger_on(uint16_t kind)
{
	return trigger_kind_bits >> (kind & 63) & 1;
}

/*
 * Interrupts off, kind has a trigger (trigger_on()): whether its program
 * holds for ev. The same call as filter_keeps(), so a trigger that does
 * not fire costs an event what a filter that keeps it does.
 */
bool trigger_holds(uint16_t kind, const struct ttrace_pred_event *ev);

/*
 * Interrupts off, right after trigger_holds() said yes: counts the
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
