/*
 * wake: the trace wake-up (abi/trace.h, THE WAKE-UP), which tells the
 * streaming reader that a ring needs draining instead of leaving it to
 * poll. The reader binds it to the endpoint it receives on and arms it
 * with a watermark; the timer tick of each CPU compares how many entries
 * of its own ring lie past the reader's tail, and the first CPU to find
 * more than the watermark disarms it and signals the endpoint
 * (ipc_signal(): a receiver waiting gets it at once, else it stays
 * pending for the next receive).
 *
 * One signal per arming: the reader arms again each time it goes back to
 * wait, after publishing its tails, so a ring that stays full while it
 * drains costs no further wake-ups. The tick checks a level, not an
 * edge: a ring that passed the watermark before the arming is found at
 * the next tick, and a signal that finds nobody waiting stays pending,
 * so no wake-up is lost between the reader's last look and its receive.
 *
 * The same binding carries a SAVE trigger's firing (abi/trace_pred.h,
 * TRIGGERS): the first tick after it signals the bound endpoint with
 * TTRACE_WAKE_TRIGGER, armed or not; the firing itself, which may come
 * in any context (inside the IPC code too), only marks it (trigger.h).
 *
 * Cost: nothing on the tracepoints, whose straight path this leaves as
 * it is; one relaxed load a tick while disarmed. A ring is noticed at
 * most one tick (1 / TIMER_HZ) after it passes the watermark, which the
 * reader's watermark leaves room for.
 */
#ifndef SPOOR_TRACE_WAKE_H
#define SPOOR_TRACE_WAKE_H

#include <stdint.h>

struct endpoint;

/*
 * Binds the wake-up to ep (replacing the endpoint it was bound to) and
 * arms it: the next tick that finds more than mark entries of its CPU's
 * ring past max(the reader's tail, clear_index) signals ep with bit c for
 * CPU c. mark is 1..ring_entries - 1 (the caller checks it). The binding
 * takes a reference of its own on ep without rights, so it keeps no
 * caller of a dead server from -EPIPE. May not be called from interrupt
 * context.
 */
void ttrace_wake_arm(struct endpoint *ep, uint64_t mark);

/* Every timer tick on every CPU, interrupts off: the check above for this CPU's ring. */
void ttrace_wake_tick(void);

#endif
