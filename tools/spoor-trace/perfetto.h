/*
 * perfetto: a saved trace as Trace Event Format JSON, which
 * ui.perfetto.dev and chrome://tracing open. Times are microseconds
 * since boot (ns precision).
 *
 * The mapping:
 *   - a pseudo-process "CPUs" with one track per CPU: complete ("X")
 *     slices of the thread that ran, from sched_switch (runs.h), the IRQs
 *     (irq_entry, irq_timer) and losses as instants;
 *   - per thread (pid, tid of the event): B/E slices for system calls
 *     (syscall_entry to syscall_exit) and IPC calls (ipc_call to the
 *     ipc_reply naming the caller as its peer, or the call's syscall
 *     returning), with a flow (s/f) from the caller's call to a short
 *     "ipc_reply" slice on the replying thread; instants for page faults,
 *     process spawn, exit and faults, and user events (their fields as
 *     args);
 *   - process_name and thread_name metadata from proc_spawn and the aux
 *     PROC and THREAD records.
 * Every event has ph, ts, pid and tid. Per thread, B and E balance: an E
 * whose B is not open is dropped, and slices still open at the end are
 * closed at the last event's time. Each flow has exactly one s and one f.
 */
#ifndef SPOOR_TOOLS_SPOOR_TRACE_PERFETTO_H
#define SPOOR_TOOLS_SPOOR_TRACE_PERFETTO_H

#include <stdio.h>

#include "tools/spoor-trace/view.h"

/* The pseudo-process holding the CPU tracks, and CPU c's track (tid). */
#define PERFETTO_CPU_PID      0x7ffffff0u
#define PERFETTO_CPU_TID(cpu) (PERFETTO_CPU_PID + 1 + (cpu))

/* Writes v's events as JSON to out. Returns 0, -ENOMEM, or -EIO if out failed. */
int perfetto_convert(struct tview *v, FILE *out);

#endif
