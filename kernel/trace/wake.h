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
 * The check runs at every timer interrupt of every CPU, and while a
 * reader streams (it armed the wake-up within the last TTRACE_WAKE_LEASE
 * of that CPU's interrupts) each CPU's timer runs at TTRACE_WAKE_HZ
 * instead of the scheduler's TIMER_HZ (profile.c counts the scheduler's
 * tick out of the faster interrupts, as for the profiler, whose own rate
 * comes first when it runs). So a ring is noticed within 1 / TTRACE_WAKE_HZ
 * of passing the watermark, well inside the time a ring takes to fill at
 * full speed (an 8 MiB ring, 7 ms), where the scheduler's 10 ms tick came
 * after it had lapped. The check never runs inside a tracepoint: an
 * interrupt is a safe point for ipc_signal() (it cannot come while this
 * CPU holds the scheduler's or IPC's locks, which mask interrupts), so
 * the wake-up needs no deferral of its own, and no context a tracepoint
 * runs in (NMI, interrupts off, those locks held) ever signals.
 *
 * Cost: nothing on the tracepoints, whose straight path this leaves as
 * it is (the alternative, a test on the writer's path at each chunk
 * boundary, measured 32 instructions an enabled tracepoint against 30); one
 * relaxed load an interrupt while disarmed; while a reader streams, the
 * faster interrupts (a few hundred instructions each, 0.03 % of a CPU at
 * TTRACE_WAKE_HZ under -icount shift=0) on every CPU, idle ones too.
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

/* Every timer interrupt on every CPU, interrupts off: the check above for this CPU's ring. */
void ttrace_wake_tick(void);

#define TTRACE_WAKE_HZ	  1000 /* the timer's rate on every CPU while a reader streams */
#define TTRACE_WAKE_LEASE 1000 /* this CPU's interrupts after the last arming it stays so */

/*
 * The rate this CPU's timer should run at for the wake-up, at each of its
 * timer interrupts: TTRACE_WAKE_HZ while a reader streams, else 0 (no
 * wish: the scheduler's). A reader that stops arming (its recording
 * ended, or it died) leaves the faster rate after TTRACE_WAKE_LEASE
 * interrupts; the recorder arms at least every 500 ms while it records.
 */
uint32_t ttrace_wake_hz(void);

#endif
