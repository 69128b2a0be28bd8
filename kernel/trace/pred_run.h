/*
 * pred_run: the filtered path (tracepoint.h) in machine code. A site of a
 * kind with a filter or a trigger calls ttrace_emit_slow(), defined here:
 * with an extra on it goes on to the slow path proper
 * (ttrace_emit_full(), emit.h); without, to its kind's code, compiled by
 * pred_code.h into the kind's slot of this file's area of the kernel's
 * text. The code rejects (the event counted as filtered, false), keeps
 * (true: the site writes it on its straight path) or hands an event whose
 * trigger fired to the slow path, which checks it again and acts. A kind
 * whose programs were not compiled (their code does not fit its slot)
 * goes to the interpreter instead (ttrace_emit_filtered()).
 *
 * The code runs with interrupts on. ttrace_emit_slow()'s test of the
 * extras, its dispatch and every slot are one restartable range
 * (arch/x86_64/restart.h): none of it stores anything or changes a
 * register it reads, and its exits (the count of a rejection, the slow
 * path, the return) are outside. So the stop that installs a program
 * (ktrace.c, filter.h) sends a CPU it caught anywhere in there back to
 * ttrace_emit_slow()'s start, where it finds the extras, the dispatch
 * and the slot as the stop left them: no CPU runs code a stop rewrote,
 * nor decides by a program the call that replaced it has returned from.
 *
 * Writable and executable are never the same mapping: the area is
 * kernel text (read and execute), written through its direct-map alias
 * with every other CPU stopped, as the static branches are
 * (arch/x86_64/static_branch.h).
 */
#ifndef SPOOR_TRACE_PRED_RUN_H
#define SPOOR_TRACE_PRED_RUN_H

#include <stdint.h>

/*
 * Every other CPU stopped, interrupts off, kind's filter and trigger
 * installed (filter.h, trigger.h): compiles them into kind's slot, or
 * sends kind's events to the interpreter when they cannot be.
 */
void pred_run_install(uint16_t kind);

#endif
