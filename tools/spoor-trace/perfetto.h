/*
 * perfetto: a saved trace as Trace Event Format JSON, which
 * ui.perfetto.dev and chrome://tracing open. Times are microseconds
 * since boot (ns precision).
 *
 * The mapping:
 *   - a pseudo-process "CPUs" with one track per CPU: complete ("X")
 *     slices of the thread that ran, from sched_switch (runs.h), the IRQs
 *     (irq_entry, irq_timer) as instants, and each loss as an instant
 *     "lost N events" (cat "loss") placed by the rule of abi/trace_file.h
 *     LOSS PLACEMENT: at the first event its CPU kept after it;
 *   - per thread (pid, tid of the event): complete ("X") slices for
 *     system calls (syscall_entry to syscall_exit, args of both) and IPC
 *     calls (ipc_call to the ipc_reply naming the caller as its peer, or
 *     the call's syscall returning), with a flow (s/f) from the caller's
 *     call to a short "ipc_reply" slice on the replying thread; instants
 *     for page faults, process spawn, exit and faults, and user events
 *     (their fields as args);
 *   - process_name and thread_name metadata from proc_spawn and the aux
 *     PROC and THREAD records.
 * Every event has ph, ts, pid and tid, every slice and instant a name and
 * cat. Slices are written whole, never as B/E pairs: Chrome DevTools'
 * trace engine pairs B and E by name on one stack across threads. A
 * thread's slices nest; an end whose start was not saved makes no slice,
 * and slices still open at the end close at the last event's time. Each
 * flow has exactly one s and one f. Args show a value as the text does:
 * a named one as its name ("outcome": "cow").
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
