/*
 * tracedat: a saved trace as ftrace's trace.dat, version 6
 * (trace-cmd.dat.v6(5)), which `trace-cmd report` prints and KernelShark
 * opens.
 *
 * The mapping:
 *   - the events' formats and records: tracedat_class.h (system spoor,
 *     Linux's sched_switch and sched_wakeup in system sched, user events
 *     in user_events);
 *   - tasks: ftrace's pid is the thread; the idle threads are pid 0, the
 *     others their tid; the task list (saved_cmdlines) names every
 *     thread that wrote events by its name or its program's
 *     (tracedat_tasks.h);
 *   - per CPU, the events in pages of 4096 bytes laid out as Linux's ring
 *     buffer lays them (header_page, header_event), times in ns since
 *     boot; within a CPU, time never goes backwards (an event older than
 *     the one before it on its CPU takes that one's time), since the
 *     ring buffer holds deltas;
 *   - losses as ftrace marks them: a page whose header has the missed-
 *     events flags and the count after its data, the page that starts
 *     with the event abi/trace_file.h LOSS PLACEMENT puts the loss at
 *     (the first event its CPU kept after it, else the CPU's last event,
 *     which then starts a page of its own). A CPU that kept no event
 *     has no page to carry its loss: the converter hands it back;
 *   - no kallsyms, printk formats or options: Spoor's names travel in
 *     the events.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_TRACEDAT_H
#define SPOOR_TOOLS_SPOOR_TRACE_TRACEDAT_H

#include <stdint.h>
#include <stdio.h>

#include "tools/spoor-trace/view.h"

/*
 * Writes v's events as trace.dat to out, and into unplaced (NULL, or
 * TTRACE_MAX_CPUS counts) what each CPU lost that the format cannot
 * carry. Returns 0, -ENOMEM, -E2BIG (more event classes than ftrace's
 * 16-bit IDs number), or -EIO if out failed.
 */
int tracedat_convert(struct tview *v, FILE *out, uint64_t *unplaced);

#endif
